import type { QueryResult, Transaction } from 'kysely';
import type { Counters } from './counters';
import type { Database } from './schema/tables';

/** What the engine-neutral store needs to know about one database engine's errors. */
export interface DialectTraits {
  /** Where the data lives, for error messages (a file name, a database URL without secrets). */
  readonly location: string;
  /** A unique or primary-key constraint refused a row. */
  isUniqueViolation(error: unknown): boolean;
  /** The engine gave up on the transaction because of a concurrent one; running it again may succeed. */
  isRetryable(error: unknown): boolean;
  /** Turns engine errors that have a store meaning (busy, ...) into StoreErrors; others pass through. */
  translate(error: unknown): unknown;
  /**
   * Holds the named lock until the transaction ends, waiting for any other transaction holding it,
   * and answers true. Null on engines whose write transactions already exclude one another
   * (SQLite): there is nothing to take, and nothing the transaction read can have changed since.
   */
  lockForWrite: ((db: Transaction<Database>, name: string) => Promise<boolean>) | null;
  /**
   * Where the engine's driver is synchronous (SQLite), statements run at once instead of through
   * the query builder's connection queue (see prepared-query.ts); null elsewhere.
   */
  readonly statementsNow: StatementsNow | null;
  readonly counters: Counters;
}

/** Runs one compiled statement synchronously, or answers undefined when it must wait its turn. */
export type StatementRunner = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown> | undefined;

export interface StatementsNow {
  /**
   * Outside any transaction: answers undefined while a transaction holds the connection, since a
   * read there would see that transaction's uncommitted rows.
   */
  readonly committed: StatementRunner;
  /** Inside the write transaction that holds the connection. */
  readonly inTransaction: StatementRunner;
}
