import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';
import { DiskEngine } from './disk-engine';
import { createBucket, type OpenBucket } from './open';
import type { RuntimeOptions } from './settings';

/** A bucket of the catalogue. */
export interface BucketInfo {
  name: string;
  createdAt: Date;
}

/** A catalogue failure, with the platform's code for it. */
export class BucketCatalogueError extends Error {
  override readonly name = 'BucketCatalogueError';

  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const INFO_FILE = 'bucket.json';
/** A half-created bucket younger than this may still be in the making by another process. */
const ABANDONED_CREATION_MS = 10 * 60 * 1000;

/**
 * The buckets of a data directory, each under `<dataDir>/buckets/<name>/`. Creation and deletion
 * are atomic renames, so a bucket is either fully there or absent, also for other processes.
 */
export class BucketCatalogue {
  readonly #root: string;
  readonly #defaults: RuntimeOptions;
  readonly #engines = new Map<string, DiskEngine>();

  constructor(dataDir: string, defaults: RuntimeOptions = {}) {
    if (typeof dataDir !== 'string' || dataDir === '') throw new TypeError('dataDir must be a directory path.');
    this.#root = join(dataDir, 'buckets');
    this.#defaults = defaults;
    fs.mkdirSync(this.#root, { recursive: true });
    removeLeftovers(this.#root);
  }

  /** Creates an empty bucket. Codes: 10005 invalid name, 10004 already exists. */
  async create(name: string): Promise<BucketInfo> {
    requireBucketName(name);
    const info = { name, createdAt: new Date().toISOString() };
    const making = join(this.#root, `.creating-${randomBytes(8).toString('hex')}`);
    fs.mkdirSync(making);
    writeDurably(join(making, INFO_FILE), JSON.stringify(info));
    try {
      // Fails when the name exists: a bucket directory is never empty.
      fs.renameSync(making, join(this.#root, name));
    } catch (error) {
      fs.rmSync(making, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') {
        throw new BucketCatalogueError(10004, `The bucket you tried to create already exists: ${name}.`);
      }
      throw error;
    }
    syncDirectory(this.#root);
    return { name, createdAt: new Date(info.createdAt) };
  }

  /** Every bucket, by name. */
  async list(): Promise<BucketInfo[]> {
    const buckets: BucketInfo[] = [];
    for (const name of fs.readdirSync(this.#root)) {
      if (!BUCKET_NAME.test(name)) continue;
      const info = readInfo(join(this.#root, name));
      if (info) buckets.push(info);
    }
    return buckets.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** A bucket for a worker. Codes: 10005 invalid name, 10006 no such bucket. */
  async open(name: string, options: RuntimeOptions = {}): Promise<OpenBucket> {
    return createBucket({ engine: this.#engine(name), ...this.#defaults, ...options });
  }

  /** Deletes an empty bucket. Codes: 10005 invalid name, 10006 no such bucket, 10008 not empty. */
  async delete(name: string): Promise<void> {
    const engine = this.#engine(name);
    const removed = join(this.#root, `.deleting-${randomBytes(8).toString('hex')}`);
    const emptied = await engine.removeIfEmpty(() => fs.renameSync(join(this.#root, name), removed));
    if (!emptied) {
      throw new BucketCatalogueError(
        10008,
        `The bucket you tried to delete is not empty: ${name} still holds objects or multipart uploads in progress.`,
      );
    }
    this.#engines.delete(name);
    await engine.close();
    fs.rmSync(removed, { recursive: true, force: true });
  }

  /** Closes the storage of every bucket opened through the catalogue. */
  async close(): Promise<void> {
    const engines = [...this.#engines.values()];
    this.#engines.clear();
    await Promise.all(engines.map((engine) => engine.close()));
  }

  #engine(name: string): DiskEngine {
    requireBucketName(name);
    const directory = join(this.#root, name);
    if (!readInfo(directory)) {
      this.#engines.delete(name);
      throw new BucketCatalogueError(10006, `The specified bucket does not exist: ${name}.`);
    }
    let engine = this.#engines.get(name);
    if (!engine) {
      engine = new DiskEngine(directory);
      this.#engines.set(name, engine);
    }
    return engine;
  }
}

function requireBucketName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !BUCKET_NAME.test(name)) {
    throw new BucketCatalogueError(
      10005,
      `The specified bucket name is not valid: ${JSON.stringify(name)}. Names have 3 to 63 characters: lower-case letters, digits and hyphens, neither starting nor ending with a hyphen.`,
    );
  }
}

function readInfo(directory: string): BucketInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(join(directory, INFO_FILE), 'utf8')) as { name: string; createdAt: string };
    return { name: info.name, createdAt: new Date(info.createdAt) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') {
      return null;
    }
    throw error;
  }
}

function writeDurably(path: string, text: string): void {
  const fd = fs.openSync(path, 'wx');
  try {
    fs.writeFileSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function syncDirectory(path: string): void {
  const fd = fs.openSync(path, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Deletions interrupted by a crash, and creations abandoned long ago. */
function removeLeftovers(root: string): void {
  const now = Date.now();
  for (const name of fs.readdirSync(root)) {
    const path = join(root, name);
    const abandoned =
      name.startsWith('.deleting-') ||
      (name.startsWith('.creating-') && now - fs.statSync(path).mtimeMs > ABANDONED_CREATION_MS);
    if (abandoned) fs.rmSync(path, { recursive: true, force: true });
  }
}
