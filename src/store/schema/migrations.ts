import { Migrator, sql, type Kysely, type Migration } from 'kysely';
import { SchemaTooNewError } from '../errors';
import { initialSchema } from './0001-initial';
import { counterSequences } from './0002-counter-sequences';
import { accountLogpushJobs } from './0003-account-logpush-jobs';
import { workers } from './0004-workers';
import { logpushOutputOptions } from './0005-logpush-output-options';
import { workerSchedules } from './0006-worker-schedules';
import { workerAssets } from './0007-worker-assets';

/**
 * Every schema change, in order. Names sort in application order; a database that has run
 * a migration missing here was written by newer code and is refused.
 */
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': initialSchema,
  '0002_counter_sequences': counterSequences,
  '0003_account_logpush_jobs': accountLogpushJobs,
  '0004_workers': workers,
  '0005_logpush_output_options': logpushOutputOptions,
  '0006_worker_schedules': workerSchedules,
  '0007_worker_assets': workerAssets,
};

const MIGRATION_TABLE = 'store_migration';
const MIGRATION_LOCK_TABLE = 'store_migration_lock';

/** Brings the schema up to date, refusing a database whose schema is newer than this code. */
export async function migrateToLatest(db: Kysely<unknown>, location: string): Promise<void> {
  const executed = await executedMigrations(db);
  const unknown = executed.filter((name) => !(name in MIGRATIONS));
  if (unknown.length > 0) {
    throw new SchemaTooNewError(location, unknown);
  }
  // Every migration recorded (a restart): the migrator would introspect every table twice to find
  // nothing to do, some 15 ms of each start.
  if (KNOWN_MIGRATIONS.every((name) => executed.includes(name))) return;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) {
    throw new Error(`migrating database ${location} failed`, { cause: error });
  }
}

/** The migrations the database has run; none when it has no record of them (a new database). */
async function executedMigrations(db: Kysely<unknown>): Promise<string[]> {
  try {
    return await recordedMigrations(db);
  } catch (error) {
    // Read first and looked for only when that fails: introspecting every table is the slower way,
    // and engines name a missing table each in their own words.
    const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
    if (!tables.some((table) => table.name === MIGRATION_TABLE)) return [];
    // Another instance starting on the same new database made the table since the first read:
    // read it again (a second failure is a real one).
    try {
      return await recordedMigrations(db);
    } catch {
      throw error;
    }
  }
}

async function recordedMigrations(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
  return rows.map((row) => row.name);
}

/** The names of all migrations this code knows, oldest first (tests use it to fake a newer schema). */
export const KNOWN_MIGRATIONS: readonly string[] = Object.keys(MIGRATIONS).sort();
export const MIGRATION_TABLE_NAME = MIGRATION_TABLE;
