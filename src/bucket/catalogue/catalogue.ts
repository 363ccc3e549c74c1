/**
 * The bucket catalogue: the one owner of bucket state (which buckets exist, per account, with
 * their settings), used by the management API, the worker host, the S3 endpoint and
 * `npm run bucket`. Rules live here (names, defaults, jurisdictions, filtering, paging); where
 * the buckets are kept is the storage's business (`storage.ts`).
 */
import { type CorsRule, DEFAULT_LIFECYCLE_RULES, type LifecycleRule, type RuntimeOptions } from '../settings';
import type { StorageEngine } from '../engine';
import { createBucket, type OpenBucket } from '../open';
import { DirectoryStorage } from './directory-storage';
import type {
  BucketJurisdiction,
  BucketLocation,
  BucketRecord,
  BucketStorageClass,
  CatalogueStorage,
} from './storage';

/**
 * The account whose buckets are the data directory's own `buckets/` folder: the fixtures' main
 * account, which the example worker configuration names. Other accounts' buckets live apart.
 */
export const HOME_ACCOUNT_ID = '023e105f4ecef8ad9ca31a8372d0c353';

/** A bucket of the catalogue. */
export interface BucketInfo {
  name: string;
  createdAt: Date;
  account: string;
  location: BucketLocation;
  jurisdiction: BucketJurisdiction;
  storageClass: BucketStorageClass;
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

export const CatalogueCode = {
  exists: 10004,
  invalidName: 10005,
  noSuchBucket: 10006,
  notEmpty: 10008,
} as const;

const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const LOCATIONS: readonly string[] = ['apac', 'eeur', 'enam', 'weur', 'wnam', 'oc'];
const JURISDICTIONS: readonly string[] = ['default', 'eu', 'fedramp'];
const STORAGE_CLASSES: readonly string[] = ['Standard', 'InfrequentAccess'];
/** Where a bucket is created without a location hint. */
const DEFAULT_LOCATION: BucketLocation = 'enam';

export interface CreateOptions {
  locationHint?: BucketLocation;
  jurisdiction?: BucketJurisdiction;
  storageClass?: BucketStorageClass;
}

/** Finding a bucket: through the jurisdiction it was created in (`default` when not given). */
export interface Where {
  jurisdiction?: BucketJurisdiction;
}

export interface ListOptions extends Where {
  /** Only names containing this. */
  nameContains?: string;
  /** Only names after this one (in the listing's direction). */
  startAfter?: string;
  /** Buckets per page, 1..1000; every one when absent. */
  perPage?: number;
  direction?: 'asc' | 'desc';
  /** From a previous page of the same listing. */
  cursor?: string;
}

export interface BucketPage {
  buckets: BucketInfo[];
  /** Present when more buckets remain. */
  cursor?: string;
}

export interface CatalogueOptions {
  /** Options of every bucket opened (minimum part size, clock, compatibility). */
  defaults?: RuntimeOptions;
  /** The account whose buckets are `<dataDir>/buckets/`; HOME_ACCOUNT_ID by default. */
  homeAccount?: string;
  /** The account `create`, `list`, `open` and `delete` of the catalogue itself act on; the home account by default. */
  defaultAccount?: string;
  /** Another storage than the data directory (tests; a database). */
  storage?: CatalogueStorage;
}

/** The buckets of every account of a data directory. */
export class BucketCatalogue {
  readonly #storage: CatalogueStorage;
  readonly #defaults: RuntimeOptions;
  readonly #home: string;
  readonly #default: string;
  readonly #accounts = new Map<string, AccountBuckets>();

  constructor(dataDir: string, options: CatalogueOptions | RuntimeOptions = {}) {
    if (typeof dataDir !== 'string' || dataDir === '') throw new TypeError('dataDir must be a directory path.');
    // The second argument used to be the runtime defaults alone; both forms are accepted.
    const settings: CatalogueOptions =
      'defaults' in options || 'homeAccount' in options || 'defaultAccount' in options || 'storage' in options
        ? (options as CatalogueOptions)
        : { defaults: options as RuntimeOptions };
    this.#home = settings.homeAccount ?? HOME_ACCOUNT_ID;
    this.#default = settings.defaultAccount ?? this.#home;
    this.#defaults = settings.defaults ?? {};
    this.#storage = settings.storage ?? new DirectoryStorage(dataDir, this.#home);
  }

  /** Where the buckets are, for messages: the data directory, or the database URL without its password. */
  get location(): string {
    return this.#storage.location;
  }

  /** The buckets of one account (the default account when not given). */
  account(accountId: string = this.#default): AccountBuckets {
    let buckets = this.#accounts.get(accountId);
    if (!buckets) {
      if (!/^[0-9a-f]{32}$/.test(accountId)) throw new TypeError(`account must be a 32-hex account id, not ${JSON.stringify(accountId)}.`);
      buckets = new AccountBuckets(this.#storage, accountId, this.#defaults);
      this.#accounts.set(accountId, buckets);
    }
    return buckets;
  }

  /** Creates an empty bucket of the default account. Codes: 10005 invalid name, 10004 already exists. */
  create(name: string, options?: CreateOptions): Promise<BucketInfo> {
    return this.account().create(name, options);
  }

  /** Every bucket of the default account, by name. */
  async list(): Promise<BucketInfo[]> {
    return (await this.account().list()).buckets;
  }

  /** A bucket of the default account, for a worker. Codes: 10005 invalid name, 10006 no such bucket. */
  open(name: string, options?: RuntimeOptions): Promise<OpenBucket> {
    return this.account().open(name, options);
  }

  /** A bucket of the default account, opened once and kept (see `AccountBuckets.bucket`). */
  bucket(name: string): Promise<OpenBucket> {
    return this.account().bucket(name);
  }

  /** The bucket of the default account as last found, unchecked (see `AccountBuckets.lastFound`). */
  lastFound(name: string): OpenBucket | undefined {
    return this.account().lastFound(name);
  }

  /** Deletes an empty bucket of the default account. Codes: 10005, 10006, 10008 not empty. */
  delete(name: string): Promise<void> {
    return this.account().delete(name);
  }

  /** Closes the storage of every bucket opened through the catalogue. */
  close(): Promise<void> {
    return this.#storage.close();
  }
}

/** The buckets of one account. */
export class AccountBuckets {
  readonly #storage: CatalogueStorage;
  readonly #defaults: RuntimeOptions;
  /** Buckets kept open for `bucket()`, by name; valid while their storage is the current one. */
  readonly #kept = new Map<string, { engine: StorageEngine; bucket: OpenBucket }>();

  constructor(
    storage: CatalogueStorage,
    readonly accountId: string,
    defaults: RuntimeOptions,
  ) {
    this.#storage = storage;
    this.#defaults = defaults;
  }

  /** Creates an empty bucket with the platform's default lifecycle rule. Codes: 10005, 10004. */
  async create(name: string, options: CreateOptions = {}): Promise<BucketInfo> {
    requireBucketName(name);
    requireOneOf(options.locationHint, LOCATIONS, 'locationHint');
    requireOneOf(options.jurisdiction, JURISDICTIONS, 'jurisdiction');
    requireOneOf(options.storageClass, STORAGE_CLASSES, 'storageClass');
    const record: BucketRecord = {
      account: this.accountId,
      name,
      // Milliseconds, as the platform reports creation dates.
      createdAt: new Date(Date.now()),
      location: options.locationHint ?? DEFAULT_LOCATION,
      jurisdiction: options.jurisdiction ?? 'default',
      storageClass: options.storageClass ?? 'Standard',
    };
    if (!(await this.#storage.create(record))) {
      throw new BucketCatalogueError(CatalogueCode.exists, `The bucket you tried to create already exists, and you own it: ${name}.`);
    }
    return toInfo(record);
  }

  /** The bucket. Codes: 10005 invalid name, 10006 no such bucket (in that jurisdiction). */
  async get(name: string, where: Where = {}): Promise<BucketInfo> {
    return toInfo(await this.#record(name, where));
  }

  /** A page of the account's buckets in a jurisdiction, by name. */
  async list(options: ListOptions = {}): Promise<BucketPage> {
    const jurisdiction = options.jurisdiction ?? 'default';
    const descending = options.direction === 'desc';
    const after = options.cursor !== undefined ? decodeCursor(options.cursor) : options.startAfter;
    const beyond = (name: string) => after === undefined || (descending ? name < after : name > after);
    const matching = (await this.#storage.list(this.accountId))
      .filter((record) => record.jurisdiction === jurisdiction)
      .filter((record) => options.nameContains === undefined || record.name.includes(options.nameContains))
      .filter((record) => beyond(record.name))
      .sort((a, b) => (a.name < b.name ? -1 : 1) * (descending ? -1 : 1));
    const perPage = options.perPage ?? matching.length;
    const page = matching.slice(0, perPage);
    const more = matching.length > page.length;
    return { buckets: page.map(toInfo), ...(more ? { cursor: encodeCursor(page.at(-1)!.name) } : {}) };
  }

  /** Sets the default storage class of new objects. Codes: 10005, 10006. */
  async setStorageClass(name: string, storageClass: BucketStorageClass, where: Where = {}): Promise<BucketInfo> {
    requireOneOf(storageClass, STORAGE_CLASSES, 'storageClass');
    await this.#record(name, where);
    if (!(await this.#storage.update(this.accountId, name, { storageClass }))) throw noSuchBucket(name);
    return this.get(name, where);
  }

  /** The CORS rules, or null when none are set. Codes: 10005, 10006. */
  async cors(name: string, where: Where = {}): Promise<CorsRule[] | null> {
    await this.#record(name, where);
    const rules = await this.#storage.cors(this.accountId, name);
    if (rules === undefined) throw noSuchBucket(name);
    return rules;
  }

  /** Replaces the CORS rules (an empty list or null removes them). Codes: 10005, 10006. */
  async setCors(name: string, rules: CorsRule[] | null, where: Where = {}): Promise<void> {
    await this.#record(name, where);
    const cors = rules === null || rules.length === 0 ? null : rules;
    if (!(await this.#storage.update(this.accountId, name, { cors }))) throw noSuchBucket(name);
  }

  /** The lifecycle rules (the platform's default until set). Codes: 10005, 10006. */
  async lifecycle(name: string, where: Where = {}): Promise<readonly LifecycleRule[]> {
    await this.#record(name, where);
    const rules = await this.#storage.lifecycle(this.accountId, name);
    if (rules === undefined) throw noSuchBucket(name);
    return rules;
  }

  /** Replaces the lifecycle rules; the runtime honours them from the next operation on. */
  async setLifecycle(name: string, rules: LifecycleRule[], where: Where = {}): Promise<void> {
    await this.#record(name, where);
    if (!(await this.#storage.update(this.accountId, name, { lifecycle: rules }))) throw noSuchBucket(name);
  }

  /**
   * A bucket for a worker or a front door: objects through the binding's API, with the
   * bucket's lifecycle rules honoured. Codes: 10005, 10006.
   */
  async open(name: string, options: RuntimeOptions = {}): Promise<OpenBucket> {
    return this.#openOn(await this.#engine(name), name, options);
  }

  /**
   * The bucket with the catalogue's options, opened once and kept, for a front door that serves
   * many requests. Each call still asks the storage whether the bucket exists and is the one
   * kept (on disk, one `stat`): a bucket another process deleted is 10006, one it deleted and
   * created again is opened afresh. Codes: 10005, 10006.
   */
  async bucket(name: string): Promise<OpenBucket> {
    const engine = await this.#engine(name);
    const kept = this.#kept.get(name);
    if (kept?.engine === engine) return kept.bucket;
    const bucket = this.#openOn(engine, name, {});
    this.#kept.set(name, { engine, bucket });
    return bucket;
  }

  /**
   * The bucket `bucket()` last answered for this name, without asking the storage whether it
   * still exists (the `stat` that costs as much as a small read); undefined when none is kept.
   * For a caller that can tell from its own outcome whether that mattered, and asks `bucket()`
   * when it could have: on disk a deleted bucket's database is marked deleted, in the
   * transaction that found it empty, before its directory goes, and every write refuses a marked
   * database (10006). So an object read through it existed in a live bucket when it was read, and
   * a write it accepted went into a live bucket; a read that finds nothing, or a write refused as
   * 10006, may be about a bucket deleted (and perhaps created again) by another process.
   */
  lastFound(name: string): OpenBucket | undefined {
    return this.#kept.get(name)?.bucket;
  }

  async #engine(name: string): Promise<StorageEngine> {
    requireBucketName(name);
    const engine = await this.#storage.engine(this.accountId, name);
    if (engine) return engine;
    this.#kept.delete(name);
    throw noSuchBucket(name);
  }

  #openOn(engine: StorageEngine, name: string, options: RuntimeOptions): OpenBucket {
    const storage = this.#storage;
    const account = this.accountId;
    return createBucket({
      engine,
      ...this.#defaults,
      ...options,
      // Read at each use: a rule changed by another process applies at once.
      lifecycle: async () => (await storage.lifecycle(account, name)) ?? DEFAULT_LIFECYCLE_RULES,
    });
  }

  /** Deletes an empty bucket with its settings. Codes: 10005, 10006, 10008 not empty. */
  async delete(name: string, where: Where = {}): Promise<void> {
    await this.#record(name, where);
    const outcome = await this.#storage.delete(this.accountId, name);
    if (outcome === 'missing') throw noSuchBucket(name);
    if (outcome === 'not-empty') {
      throw new BucketCatalogueError(
        CatalogueCode.notEmpty,
        `The bucket you tried to delete is not empty: ${name} still holds objects or multipart uploads in progress.`,
      );
    }
  }

  async #record(name: string, where: Where): Promise<BucketRecord> {
    requireBucketName(name);
    requireOneOf(where.jurisdiction, JURISDICTIONS, 'jurisdiction');
    const record = await this.#storage.get(this.accountId, name);
    if (!record || record.jurisdiction !== (where.jurisdiction ?? 'default')) throw noSuchBucket(name);
    return record;
  }
}

function toInfo(record: BucketRecord): BucketInfo {
  const { name, createdAt, account, location, jurisdiction, storageClass } = record;
  return { name, createdAt, account, location, jurisdiction, storageClass };
}

function noSuchBucket(name: string): BucketCatalogueError {
  return new BucketCatalogueError(CatalogueCode.noSuchBucket, `The specified bucket does not exist: ${name}.`);
}

export function requireBucketName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !BUCKET_NAME.test(name)) {
    throw new BucketCatalogueError(
      CatalogueCode.invalidName,
      `The specified bucket name is not valid: ${JSON.stringify(name)}. Names have 3 to 63 characters: lower-case letters, digits and hyphens, neither starting nor ending with a hyphen.`,
    );
  }
}

function requireOneOf(value: unknown, allowed: readonly string[], what: string): void {
  if (value !== undefined && !allowed.includes(value as string)) {
    throw new TypeError(`${what} must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}.`);
  }
}

/** Cursors are the last name of the page, opaque to clients. */
function encodeCursor(name: string): string {
  return Buffer.from(JSON.stringify({ after: name }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof value.after === 'string') return value.after;
  } catch {
    // Not one of ours; refused below.
  }
  throw new RangeError(`cursor ${JSON.stringify(cursor)} is not one a bucket listing gave.`);
}
