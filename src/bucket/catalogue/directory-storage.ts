/**
 * The catalogue on disk. The home account's buckets live in `<dataDir>/buckets/<name>/` (the
 * layout data directories have always had); any other account's in
 * `<dataDir>/accounts/<account_id>/buckets/<name>/`. A bucket directory holds `bucket.json`
 * (what creation fixed), its objects (the disk engine's files) and one file per changed setting
 * (`storage-class.json`, `cors.json`, `lifecycle.json`). Creation and deletion are renames of
 * the whole directory, and each setting is written whole to a temporary file and renamed into
 * place: every change is atomic and visible to every process at once, with no lock to take.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';
import { type CorsRule, DEFAULT_LIFECYCLE_RULES, type LifecycleRule } from '../settings';
import { CATALOGUE_STORAGE_METHODS, classifyFailures } from '../engine';
import { DiskEngine } from '../disk/engine';
import { diskTrouble } from '../disk/trouble';
import { StorageFullError } from '../shared';
import { fileSystemHealth, RESERVE_FILE, type PlaceHealth } from '../../storage-health';
import type { BucketRecord, BucketSettingsPatch, BucketStorageClass, CatalogueStorage } from './storage';

const INFO_FILE = 'bucket.json';
const STORAGE_CLASS_FILE = 'storage-class.json';
const CORS_FILE = 'cors.json';
const LIFECYCLE_FILE = 'lifecycle.json';
/** A half-created bucket younger than this may still be in the making by another process. */
const ABANDONED_CREATION_MS = 10 * 60 * 1000;
const ACCOUNT_ID = /^[0-9a-f]{32}$/;
const BUCKET_DIRECTORY = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
/** Bucket paths remembered (names asked for that have no bucket included) before starting afresh. */
const MAX_REMEMBERED_PATHS = 10_000;

/** Where a bucket is: its directory and the `bucket.json` that tells it exists. */
interface BucketPaths {
  directory: string;
  info: string;
}

interface StoredInfo {
  name: string;
  createdAt: string;
  location?: BucketRecord['location'];
  jurisdiction?: BucketRecord['jurisdiction'];
  storageClass?: BucketStorageClass;
}

export class DirectoryStorage implements CatalogueStorage {
  readonly #dataDir: string;
  readonly #homeAccount: string;
  /** Open storage per bucket directory, with the identity (`infoIdentity`) of the `bucket.json` it was opened for. */
  readonly #engines = new Map<string, { engine: DiskEngine; identity: string }>();
  /** Paths by account and bucket name, joined once: on a request's path, joining cost more than the `stat`. */
  readonly #paths = new Map<string, BucketPaths>();
  /** Engines of buckets another process deleted or made again: still held by handles, closed with the storage. */
  readonly #retired = new Set<DiskEngine>();
  /** Settings files read before, by path: re-read only when the file changed. */
  readonly #settings = new Map<string, { stamp: string; value: unknown }>();
  /** The data directory's file system: while it is full, new buckets and settings wait for room. */
  readonly #space: PlaceHealth;

  get location(): string {
    return this.#dataDir;
  }

  constructor(dataDir: string, homeAccount: string) {
    this.#dataDir = dataDir;
    this.#homeAccount = homeAccount;
    const home = this.#root(homeAccount);
    fs.mkdirSync(home, { recursive: true });
    removeLeftovers(home);
    this.#space = fileSystemHealth(dataDir);
    // Room for deletes on a full disk (see storage-health.ts).
    this.#space.keepReserve(join(dataDir, RESERVE_FILE));
  }

  async create(record: BucketRecord): Promise<boolean> {
    this.#refuseWhenFull();
    const root = this.#root(record.account);
    fs.mkdirSync(root, { recursive: true });
    const info: StoredInfo = {
      name: record.name,
      createdAt: record.createdAt.toISOString(),
      location: record.location,
      jurisdiction: record.jurisdiction,
      storageClass: record.storageClass,
    };
    const making = join(root, `.creating-${randomBytes(8).toString('hex')}`);
    fs.mkdirSync(making);
    writeDurably(join(making, INFO_FILE), JSON.stringify(info));
    try {
      // Fails when the name exists: a bucket directory is never empty.
      fs.renameSync(making, join(root, record.name));
    } catch (error) {
      fs.rmSync(making, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
      throw error;
    }
    syncDirectory(root);
    return true;
  }

  async get(account: string, name: string): Promise<BucketRecord | null> {
    return this.#read(account, name);
  }

  async accounts(): Promise<string[]> {
    let others: string[] = [];
    try {
      others = fs.readdirSync(join(this.#dataDir, 'accounts')).filter((name) => ACCOUNT_ID.test(name) && name !== this.#homeAccount);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return [this.#homeAccount, ...others.sort()];
  }

  async list(account: string): Promise<BucketRecord[]> {
    const root = this.#root(account);
    let names: string[];
    try {
      names = fs.readdirSync(root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const records: BucketRecord[] = [];
    for (const name of names) {
      if (!BUCKET_DIRECTORY.test(name)) continue;
      const record = this.#read(account, name);
      if (record) records.push(record);
    }
    return records;
  }

  async update(account: string, name: string, patch: BucketSettingsPatch): Promise<boolean> {
    this.#refuseWhenFull();
    const directory = this.#directory(account, name);
    if (!readInfo(directory)) return false;
    if (patch.storageClass !== undefined) replaceFile(directory, STORAGE_CLASS_FILE, JSON.stringify(patch.storageClass));
    if (patch.cors === null) fs.rmSync(join(directory, CORS_FILE), { force: true });
    else if (patch.cors !== undefined) replaceFile(directory, CORS_FILE, JSON.stringify(patch.cors));
    if (patch.lifecycle !== undefined) replaceFile(directory, LIFECYCLE_FILE, JSON.stringify(patch.lifecycle));
    return true;
  }

  async cors(account: string, name: string): Promise<CorsRule[] | null | undefined> {
    const directory = this.#directory(account, name);
    if (!readInfo(directory)) return undefined;
    return (this.#setting(join(directory, CORS_FILE)) as CorsRule[] | undefined) ?? null;
  }

  async lifecycle(account: string, name: string): Promise<readonly LifecycleRule[] | undefined> {
    const directory = this.#directory(account, name);
    if (!readInfo(directory)) return undefined;
    return (this.#setting(join(directory, LIFECYCLE_FILE)) as LifecycleRule[] | undefined) ?? DEFAULT_LIFECYCLE_RULES;
  }

  /** The storage of a bucket that exists now, with one `stat` (see `#open`). */
  async engine(account: string, name: string): Promise<DiskEngine | null> {
    return this.#open(this.#pathsOf(account, name))?.engine ?? null;
  }

  /**
   * Deletes an empty bucket: its engine marks it deleted (writes of any process still holding it
   * refuse it from then on), then its directory is renamed away and removed.
   */
  async delete(account: string, name: string): Promise<'deleted' | 'not-empty' | 'missing'> {
    const paths = this.#pathsOf(account, name);
    const { directory } = paths;
    const open = this.#open(paths);
    if (!open) return 'missing';
    const removed = join(this.#root(account), `.deleting-${randomBytes(8).toString('hex')}`);
    const emptied = await open.engine.removeIfEmpty(() => {
      // Another deletion of this bucket may have finished first: never take a bucket made since.
      if (infoIdentity(paths) !== open.identity) return;
      try {
        fs.renameSync(directory, removed);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    });
    if (!emptied) return 'not-empty';
    if (this.#engines.get(directory) === open) this.#engines.delete(directory);
    await open.engine.close();
    fs.rmSync(removed, { recursive: true, force: true });
    return 'deleted';
  }

  #refuseWhenFull(): void {
    if (this.#space.isFull) throw new StorageFullError(this.#dataDir, this.#space.fullReason!);
  }

  async close(): Promise<void> {
    const engines = [...[...this.#engines.values()].map(({ engine }) => engine), ...this.#retired];
    this.#engines.clear();
    this.#retired.clear();
    await Promise.all(engines.map((engine) => engine.close()));
  }

  /**
   * The open storage of a bucket that exists now, with one `stat`. Its `bucket.json` is written
   * once, at creation, so its identity tells this bucket from one of the same name that another
   * process deleted and created again: what was open for the old one is retired (not closed yet,
   * since a worker may still hold a bucket on it; closed with the storage) and the new one opened.
   */
  #open(paths: BucketPaths): { engine: DiskEngine; identity: string } | null {
    const { directory } = paths;
    const identity = infoIdentity(paths);
    const open = this.#engines.get(directory);
    if (open && open.identity === identity) return open;
    if (open) {
      this.#engines.delete(directory);
      this.#retired.add(open.engine);
    }
    if (identity === null) return null;
    let engine: DiskEngine;
    try {
      engine = new DiskEngine(directory, { existing: true });
    } catch (error) {
      // Deleted by another process since the `stat`: its directory is gone, and stays gone.
      if (infoIdentity(paths) !== identity) return null;
      throw error;
    }
    const opened = { engine, identity };
    this.#engines.set(directory, opened);
    return opened;
  }

  /** Where an account's buckets live. Account ids are 32 hex characters: never a path trick. */
  #root(account: string): string {
    if (!ACCOUNT_ID.test(account)) throw new TypeError(`account must be a 32-hex account id, not ${JSON.stringify(account)}.`);
    return account === this.#homeAccount ? join(this.#dataDir, 'buckets') : join(this.#dataDir, 'accounts', account, 'buckets');
  }

  #directory(account: string, name: string): string {
    return this.#pathsOf(account, name).directory;
  }

  #pathsOf(account: string, name: string): BucketPaths {
    const id = `${account}/${name}`;
    let paths = this.#paths.get(id);
    if (!paths) {
      const directory = join(this.#root(account), name);
      paths = { directory, info: join(directory, INFO_FILE) };
      if (this.#paths.size >= MAX_REMEMBERED_PATHS) this.#paths.clear();
      this.#paths.set(id, paths);
    }
    return paths;
  }

  #read(account: string, name: string): BucketRecord | null {
    const directory = this.#directory(account, name);
    const info = readInfo(directory);
    if (!info) return null;
    const storageClass = this.#setting(join(directory, STORAGE_CLASS_FILE)) as BucketStorageClass | undefined;
    return {
      account,
      name: info.name,
      createdAt: new Date(info.createdAt),
      // Buckets made before these settings existed get the defaults.
      location: info.location ?? 'enam',
      jurisdiction: info.jurisdiction ?? 'default',
      storageClass: storageClass ?? info.storageClass ?? 'Standard',
    };
  }

  /** A setting file's value (undefined when absent), re-read only when the file changed. */
  #setting(path: string): unknown {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') {
        this.#settings.delete(path);
        return undefined;
      }
      throw error;
    }
    // A rename installs a new inode: the stamp changes with every write, even within one tick.
    const stamp = `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
    const known = this.#settings.get(path);
    if (known?.stamp === stamp) return known.value;
    const value: unknown = JSON.parse(fs.readFileSync(path, 'utf8'));
    this.#settings.set(path, { stamp, value });
    return value;
  }
}

/**
 * Who a bucket's `bucket.json` is: its inode and the time it was written, or null when there is
 * no such bucket. The inode alone is not enough: a file system hands a freed inode to the next
 * file made, so a bucket deleted and made again at once may get its predecessor's.
 */
function infoIdentity(paths: BucketPaths): string | null {
  const stats = fs.statSync(paths.info, { throwIfNoEntry: false });
  return stats ? `${stats.ino}:${stats.ctimeMs}` : null;
}

function readInfo(directory: string): StoredInfo | null {
  try {
    return JSON.parse(fs.readFileSync(join(directory, INFO_FILE), 'utf8')) as StoredInfo;
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

/** Writes a file whole under a temporary name, then renames it into place (atomic). */
function replaceFile(directory: string, file: string, text: string): void {
  const temporary = join(directory, `.${file}.${randomBytes(6).toString('hex')}`);
  writeDurably(temporary, text);
  fs.renameSync(temporary, join(directory, file));
  syncDirectory(directory);
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

classifyFailures(DirectoryStorage, CATALOGUE_STORAGE_METHODS, (storage, error) => diskTrouble(error, storage.location));
