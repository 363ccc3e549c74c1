import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, openSqliteStore, SQLITE_FILE_NAME, type Store } from '../../src/store';
import { initialSchema } from '../../src/store/schema/0001-initial';
import { MIGRATION_TABLE_NAME } from '../../src/store/schema/migrations';
import { startPostgres, type PostgresCluster } from '../support/postgres';

/* The database is built as the first schema had it, so today's table types do not apply. */
/* eslint-disable @typescript-eslint/no-explicit-any */

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const ZONE = '9d6991f5ca85bf43524971c922c4bcfc';
const NOW = '2026-11-20T10:00:00.000000Z';

/**
 * A database at the first schema holding zone jobs 1 and 7 (ids 2 to 6 were deleted), as a
 * server of the previous release left it.
 */
async function databaseOfPreviousRelease(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ '0001_initial': initialSchema }) },
    migrationTableName: MIGRATION_TABLE_NAME,
    migrationLockTableName: `${MIGRATION_TABLE_NAME}_lock`,
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
  await db.insertInto('accounts').values({ id: ACCOUNT, name: 'Account', type: 'standard', settings: '{}', created_on: NOW }).execute();
  await db
    .insertInto('zones')
    .values({
      id: ZONE, account_id: ACCOUNT, name: 'example.com', status: 'active', paused: 0, type: 'full', development_mode: 0,
      name_servers: '[]', created_on: NOW, modified_on: NOW, meta: '{}', owner: '{}', permissions: '[]', plan: '{}',
    })
    .execute();
  for (const id of [1, 7]) {
    await db
      .insertInto('logpush_jobs')
      .values({
        id, zone_id: ZONE, name: `job-${id}`, dataset: 'http_requests', destination_conf: 's3://logs?region=eu',
        logpull_options: null, enabled: 1, frequency: 'high', kind: '', created_on: NOW,
      })
      .execute();
  }
  await db.updateTable('counters').set({ value: 7 }).where('name', '=', 'logpush_jobs').execute();
}

/** What the migrated store must show: the zone jobs as they were, new ids after the old ones. */
async function expectMigrated(store: Store): Promise<void> {
  expect((await store.logpushJobs.list(ZONE)).map((job) => [job.id, job.name, job.enabled])).toEqual([
    [1, 'job-1', true],
    [7, 'job-7', true],
  ]);
  expect(await store.accountLogpushJobs.list(ACCOUNT)).toEqual([]);
  expect((await store.accountLogpushJobs.create(ACCOUNT, { dataset: 'audit_logs', destination_conf: 's3://a?region=eu' })).id).toBe(8);
  expect((await store.logpushJobs.create(ZONE, { dataset: 'http_requests', destination_conf: 's3://z?region=eu' })).id).toBe(9);
  expect(await store.accountLogpushJobs.get(ACCOUNT, 7)).toBeNull();
  expect(await store.logpushJobs.get(ZONE, 8)).toBeNull();
}

describe('migrating a database of the first schema to account log push jobs', () => {
  let cluster: PostgresCluster | undefined;
  const directories: string[] = [];
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  it('keeps the zone jobs and their ids on SQLite', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'account-jobs-migration-'));
    directories.push(dataDir);
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME)) }) });
    await databaseOfPreviousRelease(db);
    await db.destroy();
    const store = await openSqliteStore({ dataDir, seed: false });
    try {
      await expectMigrated(store);
    } finally {
      await store.close();
    }
  });

  it('keeps the zone jobs and their ids on PostgreSQL, and refuses a job with two owners', async () => {
    const url = await cluster!.createDatabase();
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) });
    await databaseOfPreviousRelease(db);
    await db.destroy();
    const store = await openPostgresStore({ connectionString: url, seed: false });
    try {
      await expectMigrated(store);
    } finally {
      await store.close();
    }
    const insert = sql`insert into logpush_jobs (id, zone_id, account_id, dataset, destination_conf, enabled, frequency, kind, created_on)
      values (100, ${ZONE}, ${ACCOUNT}, 'x', 'y', 0, 'high', '', ${NOW})`;
    const raw = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) });
    try {
      await expect(insert.execute(raw)).rejects.toThrow(/logpush_jobs_one_owner/);
    } finally {
      await raw.destroy();
    }
  });
});
