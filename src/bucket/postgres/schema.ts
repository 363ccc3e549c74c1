import type { Kysely, Migration } from 'kysely';
import type pg from 'pg';
import { BucketSchemaTooNewError } from './errors';
import { initialSchema } from './migrations/0001-initial';
import { catalogueSchema } from './migrations/0002-catalogue';
import { flexibleChecksums } from './migrations/0003-flexible-checksums';
import { deletedStorages } from './migrations/0004-deleted-storages';
import { customerKeys } from './migrations/0005-customer-keys';

/** The PostgreSQL schema holding the bucket tables, apart from the management API's tables. */
export const SCHEMA = 'bucket_storage';

/**
 * Every change of the bucket tables, in order, as SQL. Names sort in application order; a database
 * that ran a migration missing here was written by newer code and is refused.
 */
const MIGRATIONS: Record<string, string> = {
  '0001_initial': initialSchema,
  '0002_catalogue': catalogueSchema,
  '0003_flexible_checksums': flexibleChecksums,
  '0004_deleted_storages': deletedStorages,
  '0005_customer_keys': customerKeys,
};

const MIGRATION_TABLE = 'migration';
const MIGRATION_LOCK_TABLE = 'migration_lock';

/** The names of every migration this code knows, oldest first. */
export const KNOWN_BUCKET_MIGRATIONS: readonly string[] = Object.keys(MIGRATIONS).sort();
/** Where the names of the migrations run are kept (tests fake a newer schema there). */
export const BUCKET_MIGRATION_TABLE = `${SCHEMA}.${MIGRATION_TABLE}`;

/**
 * Brings the bucket tables up to date with Kysely's migrator (the API store's migrations run
 * the same way): instances starting together migrate once, under the migrator's lock, each
 * migration in one transaction. Refuses a database migrated by a newer version.
 */
export async function migrateBucketSchema(pool: pg.Pool, location: string): Promise<void> {
  // Loaded here: a process whose buckets live on disk never needs the query builder.
  const { Kysely, Migrator, PostgresDialect, sql } = await import('kysely');
  // Never destroyed: that would end the pool, which is the caller's.
  const db: Kysely<unknown> = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  const unknown = (await executedMigrations(pool)).filter((name) => !(name in MIGRATIONS));
  if (unknown.length > 0) throw new BucketSchemaTooNewError(location, unknown);
  const migrations: Record<string, Migration> = Object.fromEntries(
    Object.entries(MIGRATIONS).map(([name, text]) => [name, { up: async (on: Kysely<unknown>) => void (await sql.raw(text).execute(on)) }]),
  );
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: SCHEMA,
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw new Error(`migrating the bucket tables of database ${location} failed`, { cause: error });
}

async function executedMigrations(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ present: boolean }>('select to_regclass($1) is not null as present', [BUCKET_MIGRATION_TABLE]);
  if (!rows[0]?.present) return [];
  return (await pool.query<{ name: string }>(`select name from ${BUCKET_MIGRATION_TABLE}`)).rows.map((row) => row.name);
}
