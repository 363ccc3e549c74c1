/**
 * Opening the place a state is saved from or loaded into: the API's store (SQLite under the data
 * directory, or PostgreSQL when a database URL is given) and the buckets' catalogue storage (the
 * data directory's, unless another is given).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DirectoryStorage, HOME_ACCOUNT_ID, type CatalogueStorage } from '../bucket';
import { openPostgresStore, openSqliteStore, SQLITE_FILE_NAME, type Store } from '../store';
import type { StatePlace } from './export';

export interface PlaceOptions {
  /** The data directory (the SQLite store, and the buckets unless `bucketStorage` says otherwise). */
  dataDir: string;
  /** PostgreSQL for the store when set. */
  databaseUrl?: string | undefined;
  /** Where the buckets are kept, when not in the data directory (a database-backed storage). */
  bucketStorage?: CatalogueStorage | undefined;
}

export interface OpenPlace extends StatePlace {
  close(): Promise<void>;
}

/**
 * Opens the place without seeding it: an empty database stays empty. `mustExist` refuses a
 * data directory without a store (an export of a place that was never used).
 */
export async function openPlace(options: PlaceOptions, mustExist = false): Promise<OpenPlace> {
  const dataDir = path.resolve(options.dataDir);
  if (mustExist && !options.databaseUrl && !fs.existsSync(path.join(dataDir, SQLITE_FILE_NAME))) {
    throw new Error(`${dataDir} holds no state (no ${SQLITE_FILE_NAME}): set --data-dir or DATA_DIR to the platform's data directory, or DATABASE_URL`);
  }
  const store: Store = options.databaseUrl
    ? await openPostgresStore({ connectionString: options.databaseUrl, seed: false })
    : await openSqliteStore({ dataDir, seed: false });
  let buckets: CatalogueStorage;
  try {
    buckets = options.bucketStorage ?? new DirectoryStorage(dataDir, HOME_ACCOUNT_ID);
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    store,
    buckets,
    close: async () => {
      await Promise.allSettled([store.close(), options.bucketStorage ? Promise.resolve() : buckets.close()]);
    },
  };
}
