import { sql, type Transaction } from 'kysely';
import type { Database } from '../schema/tables';
import type { Counters } from './traits';

/** The counter that hands out log push job ids (zones' and accounts' alike). */
export const LOGPUSH_JOB_COUNTER = 'logpush_jobs';

/**
 * Counters as rows of the `counters` table, moved inside the write transaction: right where write
 * transactions take turns anyway (SQLite), and a number is never skipped.
 */
export const tableCounters: Counters = {
  next: async (db, name) => {
    const row = await db
      .updateTable('counters')
      .set((eb) => ({ value: eb('value', '+', 1) }))
      .where('name', '=', name)
      .returning('value')
      .executeTakeFirstOrThrow();
    return row.value;
  },
  continueAfter: async (db, name, value) => {
    await db.updateTable('counters').set({ value }).where('name', '=', name).execute();
  },
  last: async (db, name) => {
    const row = await db.selectFrom('counters').select('value').where('name', '=', name).executeTakeFirst();
    return Number(row?.value ?? 0);
  },
};

/** The PostgreSQL sequence of a counter (created by migration 0002). */
export function counterSequence(name: string): string {
  return `counter_${name}`;
}

/**
 * Counters as PostgreSQL sequences: a number is taken at once, with no lock held until commit, so
 * writers in different zones never queue on one counter. A number taken by a write that then
 * fails is skipped, never reused.
 */
export const sequenceCounters: Counters = {
  next: async (db, name) => {
    const { rows } = await sql<{ value: number }>`select nextval(${counterSequence(name)}) as value`.execute(db);
    return rows[0]!.value;
  },
  continueAfter: async (db, name, value) => {
    // A sequence starts at 1: with is_called false, 1 is the next value.
    await sql`select setval(${counterSequence(name)}, ${Math.max(value, 1)}, ${value >= 1})`.execute(db);
  },
  last: async (db, name) => {
    // Not transactional: at least every number any snapshot can hold, so none is handed out twice.
    const { rows } = await sql<{ last_value: string | number; is_called: boolean }>`select last_value, is_called from ${sql.id(counterSequence(name))}`.execute(db);
    const row = rows[0]!;
    return row.is_called ? Number(row.last_value) : Number(row.last_value) - 1;
  },
};
