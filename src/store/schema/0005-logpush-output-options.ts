import type { Kysely, Migration } from 'kysely';

/* Migrations are frozen history: they use Kysely<any> on purpose, never today's table types. */
/* eslint-disable @typescript-eslint/no-explicit-any */

/** A log push job's `output_options` (JSON), the structured replacement for `logpull_options`. */
export const logpushOutputOptions: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('logpush_jobs').addColumn('output_options', 'text').execute();
  },
};
