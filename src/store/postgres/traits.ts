import { sql } from 'kysely';
import type pg from 'pg';
import { isPostgresFull, isPostgresUnreachable, unreachableReason } from '../../postgres-outages';
import { healthOf } from '../../storage-health';
import { sequenceCounters } from '../engine/counters';
import type { EngineTraits } from '../engine/traits';
import { InvalidInputError, StoreBusyError, StoreFullError, StoreUnavailableError } from '../errors';

/** SQLSTATE codes the store gives a meaning to. */
const UNIQUE_VIOLATION = '23505';
const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const LOCK_NOT_AVAILABLE = '55P03';
const NUMERIC_VALUE_OUT_OF_RANGE = '22003';
const INVALID_TEXT_REPRESENTATION = '22P02';
const CHARACTER_NOT_IN_REPERTOIRE = '22021';
const UNTRANSLATABLE_CHARACTER = '22P05';

/** What pg-pool says when every connection stayed checked out for the whole connection timeout. */
const POOL_EXHAUSTED_MESSAGE = 'timeout exceeded when trying to connect';

export interface PostgresLimits {
  readonly maxConnections: number;
  readonly connectionTimeoutMs: number;
  readonly lockTimeoutMs: number;
}

/** `databaseError`: the driver's error class (pg is loaded only when PostgreSQL is used). */
export function postgresTraits(location: string, limits: PostgresLimits, databaseError: typeof pg.DatabaseError): EngineTraits {
  const sqlState = (error: unknown): string => (error instanceof databaseError ? (error.code ?? '') : '');
  return {
    location,
    isUniqueViolation: (error) => sqlState(error) === UNIQUE_VIOLATION,
    isRetryable: (error) => [SERIALIZATION_FAILURE, DEADLOCK_DETECTED].includes(sqlState(error)),
    translate: (error) => {
      switch (sqlState(error)) {
        case LOCK_NOT_AVAILABLE:
          return new StoreBusyError(
            `database ${location}: another writer held the lock for more than ${limits.lockTimeoutMs} ms`,
            { cause: error },
          );
        case NUMERIC_VALUE_OUT_OF_RANGE:
        case INVALID_TEXT_REPRESENTATION:
          return new InvalidInputError('a number is not a whole number that fits in 64 bits', { cause: error });
        case CHARACTER_NOT_IN_REPERTOIRE:
        case UNTRANSLATABLE_CHARACTER:
          // PostgreSQL text cannot hold U+0000; SQLite can, so this is the one input only one engine refuses.
          return new InvalidInputError('text cannot contain the NUL character (U+0000)', { cause: error });
      }
      if (isPostgresUnreachable(error)) return new StoreUnavailableError(location, unreachableReason(error), { cause: error });
      if (isPostgresFull(error)) {
        const reason = 'the database server has no space left on its disk';
        healthOf(location).full(reason);
        return new StoreFullError(location, reason, { cause: error });
      }
      if (error instanceof Error && error.message === POOL_EXHAUSTED_MESSAGE) {
        return new StoreBusyError(
          `database ${location}: all ${limits.maxConnections} connections stayed busy for more than ${limits.connectionTimeoutMs} ms`,
          { cause: error },
        );
      }
      return error;
    },
    // A transaction-scoped advisory lock on a 64-bit hash of the name. Two names sharing a hash
    // only make their writers queue for one another; Kysely's migration lock key is another.
    lockForWrite: async (db, name) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${LOCK_NAMESPACE + name}, 0))`.execute(db);
      return true;
    },
    counters: sequenceCounters,
  };
}

/** Keeps the store's lock names apart from advisory locks other software takes in the same database. */
const LOCK_NAMESPACE = 'management-api/';
