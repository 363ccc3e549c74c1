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
  /** Open storage per bucket, with the identity (inode) of the `bucket.json` it was opened for. */
  readonly #engines = new Map<string, { engine: DiskEngine; identity: number }>();
  /** Buckets kept open for `bucket()`, by name; valid while their engine is the current one. */
  readonly #kept = new Map<string, { engine: DiskEngine; bucket: OpenBucket }>();

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

  /**
   * The bucket with the catalogue's options, opened once and kept, for a front door that serves
   * many requests. Each call still checks, with one `stat`, that the bucket exists and is the one
   * kept: a bucket another process deleted is 10006, one it deleted and created again is opened
   * afresh. Codes: 10005 invalid name, 10006 no such bucket.
   */
  bucket(name: string): OpenBucket {
    const engine = this.#engine(name);
    const kept = this.#kept.get(name);
    if (kept?.engine === engine) return kept.bucket;
    const bucket = createBucket({ engine, ...this.#defaults });
    this.#kept.set(name, { engine, bucket });
    return bucket;
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
    this.#forget(name);
    await engine.close();
    fs.rmSync(removed, { recursive: true, force: true });
  }

  /** Closes the storage of every bucket opened through the catalogue. */
  async close(): Promise<void> {
    const engines = [...this.#engines.values()];
    this.#engines.clear();
    this.#kept.clear();
    await Promise.all(engines.map(({ engine }) => engine.close()));
  }

  /**
   * The storage of a bucket that exists now. Its `bucket.json` is written once at creation, so
   * its inode tells this bucket from one of the same name created after a deletion.
   */
  #engine(name: string): DiskEngine {
    requireBucketName(name);
    const directory = join(this.#root, name);
    const identity = infoIdentity(directory);
    const open = this.#engines.get(name);
    if (open && open.identity === identity) return open.engine;
    // Deleted (and perhaps created again) by another process: what was open is forgotten (not
    // closed: a worker may still hold a bucket on it).
    if (open) this.#forget(name);
    if (identity === null) throw new BucketCatalogueError(10006, `The specified bucket does not exist: ${name}.`);
    const engine = new DiskEngine(directory);
    this.#engines.set(name, { engine, identity });
    return engine;
  }

  #forget(name: string): void {
    this.#engines.delete(name);
    this.#kept.delete(name);
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

/** The inode of a bucket's `bucket.json`, or null when there is no such bucket. */
function infoIdentity(directory: string): number | null {
  const stats = fs.statSync(join(directory, INFO_FILE), { throwIfNoEntry: false });
  return stats ? stats.ino : null;
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
