import type { Transaction } from 'kysely';
import type { Database } from '../schema/tables';

/**
 * What the engine-neutral store needs to know of one database engine beyond what Kysely's
 * dialect covers: which errors mean what, how a write takes a lock, how counters count (both ways
 * are in counters.ts). (The Kysely dialect itself, with its driver, is each engine's own: see
 * sqlite/ and postgres/.)
 */
export interface EngineTraits {
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
  readonly counters: Counters;
}

/** Named counters (their rows are created by the schema migrations): each number is handed out once. */
export interface Counters {
  /** The next number: greater than every number handed out before, never handed out again. */
  next(db: Transaction<Database>, name: string): Promise<number>;
  /** The next number will be `value` + 1 (loading fixtures whose numbers go up to `value`). */
  continueAfter(db: Transaction<Database>, name: string, value: number): Promise<void>;
  /** The last number handed out (0 when none): what `continueAfter` takes to carry a counter elsewhere. */
  last(db: Transaction<Database>, name: string): Promise<number>;
}
