import { sql, type Kysely, type Migration } from 'kysely';

/* Migrations are frozen history: they use Kysely<any> on purpose, never today's table types. */
/* eslint-disable @typescript-eslint/no-explicit-any */

const JOB_COLUMNS = [
  'id', 'zone_id', 'name', 'dataset', 'destination_conf', 'logpull_options', 'enabled', 'frequency', 'kind',
  'last_complete', 'last_error', 'error_message', 'created_on',
] as const;

/**
 * Log push jobs of an account beside those of a zone: one table whose rows belong to exactly
 * one of the two, so job ids stay one sequence across scopes. SQLite cannot drop a NOT NULL,
 * so the table is rebuilt (on both engines alike) and its rows copied with their ids.
 */
export const accountLogpushJobs: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('logpush_jobs_next')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.references('zones.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text')
      .addColumn('dataset', 'text', (c) => c.notNull())
      .addColumn('destination_conf', 'text', (c) => c.notNull())
      .addColumn('logpull_options', 'text')
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('frequency', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('last_complete', 'text')
      .addColumn('last_error', 'text')
      .addColumn('error_message', 'text')
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addCheckConstraint('logpush_jobs_one_owner', sql`(zone_id is null) <> (account_id is null)`)
      .execute();
    await db
      .insertInto('logpush_jobs_next')
      .columns([...JOB_COLUMNS])
      .expression(db.selectFrom('logpush_jobs').select([...JOB_COLUMNS]))
      .execute();
    await db.schema.dropTable('logpush_jobs').execute();
    await db.schema.alterTable('logpush_jobs_next').renameTo('logpush_jobs').execute();
    await db.schema.createIndex('logpush_jobs_by_zone').on('logpush_jobs').columns(['zone_id', 'id']).execute();
    await db.schema.createIndex('logpush_jobs_by_account').on('logpush_jobs').columns(['account_id', 'id']).execute();
  },
};
