/**
 * The one way front doors open the buckets: from the data directory, or from a PostgreSQL
 * database when a URL is given (the worker host, the S3 endpoint, `npm run bucket` and the
 * management API all call this, so they choose the same way).
 */
import { parseDatabaseUrl } from '../../database-url';
import { openPostgresBuckets } from '../postgres/buckets';
import { PostgresCatalogueStorage } from '../postgres/catalogue-storage';
import type { RuntimeOptions } from '../settings';
import { BucketCatalogue, HOME_ACCOUNT_ID } from './catalogue';
import { DirectoryStorage } from './directory-storage';
import type { CatalogueStorage } from './storage';

export interface OpenCatalogueOptions {
  /** Where the buckets live without a database (and what the catalogue names in messages then). */
  dataDir: string;
  /**
   * postgres://user:password@host:port/database: the catalogue and every bucket's objects in that
   * database (schema `bucket_storage`). Absent or empty: the data directory.
   */
  databaseUrl?: string | undefined;
  /** What the URL is called in messages (`DATABASE_URL`, `--database-url`). */
  databaseUrlName?: string;
  /** The account `create`, `list`, `open` and `delete` of the catalogue itself act on. */
  defaultAccount?: string;
  /** Options of every bucket opened (minimum part size, clock, compatibility). */
  defaults?: RuntimeOptions;
  /** The database's connection pool (with a database only). */
  pool?: DatabasePoolSettings;
}

/**
 * A bucket database's connection pool: most connections, how long an unused one stays, and the
 * longest wait for one (for a busy pool to free one, or for a server restarting to take them again).
 */
export interface DatabasePoolSettings {
  maxConnections?: number;
  idleTimeoutMs?: number;
  connectionTimeoutMs?: number;
}

/** The buckets' storage cannot be opened: a bad URL, a database out of reach or too new. */
export class BucketStorageError extends Error {
  override readonly name = 'BucketStorageError';
}

/** Opens the bucket catalogue from configuration; PostgreSQL is connected and migrated first. */
export async function openBucketCatalogue(options: OpenCatalogueOptions): Promise<BucketCatalogue> {
  const { dataDir, defaultAccount, defaults = {} } = options;
  const settings = { defaults, ...(defaultAccount ? { defaultAccount } : {}) };
  if (!options.databaseUrl) return new BucketCatalogue(dataDir, settings);
  return new BucketCatalogue(dataDir, { ...settings, storage: await openCatalogueStorage(options) });
}

/**
 * Where the catalogue keeps its buckets, chosen as `openBucketCatalogue` chooses: the data
 * directory's folders, or the database's tables (for tools that copy buckets as they are
 * stored, such as state files).
 */
export async function openCatalogueStorage(options: OpenCatalogueOptions): Promise<CatalogueStorage> {
  const { dataDir, databaseUrl } = options;
  // The home account's buckets are the data directory's own (`buckets/`), whoever the default is.
  if (!databaseUrl) return new DirectoryStorage(dataDir, HOME_ACCOUNT_ID);
  let connectionString: string;
  try {
    connectionString = parseDatabaseUrl(databaseUrl, options.databaseUrlName ?? 'the database URL').connectionString;
  } catch (error) {
    throw new BucketStorageError((error as Error).message);
  }
  let buckets;
  try {
    buckets = await openPostgresBuckets({ connectionString, ...options.pool });
  } catch (error) {
    throw new BucketStorageError(describe(error));
  }
  return new PostgresCatalogueStorage(buckets);
}

/** A failure and its causes in one line (a refused connection to `localhost` is an AggregateError with no message). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let at: unknown = error; at instanceof Error && parts.length < 4; at = at.cause) {
    const own =
      at.message ||
      (at instanceof AggregateError ? at.errors.map((inner: Error) => inner.message).join('; ') : '') ||
      ((at as NodeJS.ErrnoException).code ?? at.name);
    if (!parts.some((part) => part.includes(own))) parts.push(own);
  }
  return parts.length > 0 ? parts.join(': ') : String(error);
}
