import type { Executor, ReadContext } from './session';
import { deepFreeze } from './snapshot-cache';
import type { Account, Ruleset, Zone } from './types';

/** Values by id, each frozen as it is remembered (callers copy before they change anything). */
export class FrozenById<T extends { id: string }> {
  readonly #entries = new Map<string, T>();

  get(id: string): T | undefined {
    return this.#entries.get(id);
  }

  remember(value: T): T {
    const frozen = deepFreeze(value);
    this.#entries.set(value.id, frozen);
    return frozen;
  }
}

/**
 * Accounts, zones and platform-managed rulesets as read once. Only seeding writes them (no
 * operation creates, changes or deletes one; writes to a managed ruleset are refused), so what any
 * process read of them stays true for the life of the database: every request's zone or account
 * lookup after the first is answered from memory, on every engine and instance. An id not found
 * is not remembered (a store opened on an empty database is seeded later). Should an operation
 * ever write these tables, it must forget what it changes here.
 */
export class SeededRows {
  readonly zones = new FrozenById<Zone>();
  readonly accounts = new FrozenById<Account>();
  /** Rulesets with no account and no zone, at their only version. */
  readonly platformRulesets = new FrozenById<Ruleset>();
}

/**
 * A zone or an account by id: from memory at once (every lookup after the first), otherwise read
 * by `read` and remembered. `rows` picks the kind; both are plain functions, not closures made per
 * call, since every request looks up its zone or account.
 */
export async function seededById<T extends { id: string }>(
  executor: Executor,
  rows: (seeded: SeededRows) => FrozenById<T>,
  id: string,
  read: (db: ReadContext['db'], id: string) => Promise<T | undefined>,
): Promise<T | null> {
  const known = executor.readNow(knownRow<T>, rows, id);
  if (known !== undefined) return known;
  return executor.readStatement(async (ctx) => {
    const row = await read(ctx.db, id);
    return row === undefined ? null : rows(ctx.seeded).remember(row);
  });
}

function knownRow<T extends { id: string }>(ctx: ReadContext, rows: (seeded: SeededRows) => FrozenById<T>, id: string): T | undefined {
  return rows(ctx.seeded).get(id);
}
