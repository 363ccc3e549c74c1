/**
 * The one way front doors open the buckets: from the data directory, or from a PostgreSQL
 * database when a URL is given (the worker host, the S3 endpoint, `npm run bucket` and the
 * management API all call this, so they choose the same way).
 */
import { parseDatabaseUrl } from '../../database-url';
import { openPostgresBuckets } from '../postgres/buckets';
import { PostgresCatalogueStorage } from '../postgres/catalogue-storage';
import type { RuntimeOptions } from '../settings';
import { BucketCatalogue } from './catalogue';

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
  pool?: { maxConnections?: number; idleTimeoutMs?: number; connectionTimeoutMs?: number };
}

/** The buckets' storage cannot be opened: a bad URL, a database out of reach or too new. */
export class BucketStorageError extends Error {
  override readonly name = 'BucketStorageError';
}

/** Opens the bucket catalogue from configuration; PostgreSQL is connected and migrated first. */
export async function openBucketCatalogue(options: OpenCatalogueOptions): Promise<BucketCatalogue> {
  const { dataDir, databaseUrl, defaultAccount, defaults = {} } = options;
  const settings = { defaults, ...(defaultAccount ? { defaultAccount } : {}) };
  if (!databaseUrl) return new BucketCatalogue(dataDir, settings);
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
  return new BucketCatalogue(dataDir, { ...settings, storage: new PostgresCatalogueStorage(buckets) });
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
