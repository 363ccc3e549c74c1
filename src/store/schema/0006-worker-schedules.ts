import type { Kysely, Migration } from 'kysely';

/* Migrations are frozen history: they use Kysely<any> on purpose, never today's table types. */
/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Cron triggers of worker scripts (each expression once per script), and the claims of their
 * runs: one row per (script, expression, minute) that an instance fired, so that instances
 * sharing the database fire each minute once. Claims are the scheduler's own bookkeeping, pruned
 * as they age and never part of a dump.
 */
export const workerSchedules: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('worker_schedules')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('script_name', 'text', (c) => c.notNull())
      .addColumn('cron', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('worker_schedules_pk', ['account_id', 'script_name', 'cron'])
      .addForeignKeyConstraint('worker_schedules_script', ['account_id', 'script_name'], 'worker_scripts', ['account_id', 'name'], (c) => c.onDelete('cascade'))
      .execute();

    await db.schema
      .createTable('worker_schedule_runs')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('script_name', 'text', (c) => c.notNull())
      .addColumn('cron', 'text', (c) => c.notNull())
      .addColumn('minute', 'text', (c) => c.notNull())
      .addColumn('claimed_on', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('worker_schedule_runs_pk', ['account_id', 'script_name', 'cron', 'minute'])
      .execute();
    await db.schema.createIndex('worker_schedule_runs_minute').on('worker_schedule_runs').column('minute').execute();
  },
};
