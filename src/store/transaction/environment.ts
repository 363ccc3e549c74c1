import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { EngineTraits } from '../engine/traits';
import type { Database } from '../schema/tables';

/** What every transaction of one store shares: the database, the clock and the engine's traits. */
export interface Environment {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly engine: EngineTraits;
  /** Marks the async work running inside one of this store's transactions. */
  readonly inTransaction: AsyncLocalStorage<true>;
}

export function createEnvironment(db: Kysely<Database>, clock: Clock, engine: EngineTraits): Environment {
  return { db, clock, engine, inTransaction: new AsyncLocalStorage<true>() };
}

/**
 * Using the store itself inside `store.transaction` would wait forever on the connection
 * the transaction holds (SQLite has one); fail loudly instead.
 */
export function refuseNesting(env: Environment): void {
  if (env.inTransaction.getStore() === true) {
    throw new Error('store used inside its own transaction: use the tx repositories handed to the callback');
  }
}
