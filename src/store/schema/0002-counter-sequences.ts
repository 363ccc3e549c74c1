import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';

/* Migrations are frozen history: they use Kysely<any> on purpose, never today's table types. */
/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * On PostgreSQL each counter becomes a sequence (see counterSequence in engine/counters.ts),
 * starting after the value its row holds: taking a number from a sequence locks nothing until
 * commit, so writers in different zones never queue on a counter row. SQLite keeps the rows
 * (its writes take turns anyway).
 */
export const counterSequences: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    const counters = await db.selectFrom('counters').select(['name', 'value']).execute();
    for (const { name, value } of counters as { name: string; value: number }[]) {
      const sequence = sql.id(`counter_${name}`);
      await sql`create sequence ${sequence} as bigint minvalue 1`.execute(db);
      // With is_called false the next value is exactly value + 1.
      await sql`select setval(${`counter_${name}`}, ${Number(value) + 1}, false)`.execute(db);
    }
  },
};
