/**
 * The database behind buckets opened by `openPostgresBuckets`, for what keeps tables beside them
 * (the catalogue). Kept apart from `buckets.ts` so that the published declarations of the engine
 * never name the driver's types. Keyed by the opened buckets object (`PostgresBuckets`).
 */
import type { BucketDatabase } from './database';

const databases = new WeakMap<object, BucketDatabase>();

export function rememberDatabase(buckets: object, database: BucketDatabase): void {
  databases.set(buckets, database);
}

export function databaseOf(buckets: object): BucketDatabase {
  const database = databases.get(buckets);
  if (!database) throw new TypeError('The buckets were not opened by openPostgresBuckets.');
  return database;
}
