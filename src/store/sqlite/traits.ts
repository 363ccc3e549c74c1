import BetterSqlite3 from 'better-sqlite3';
import { tableCounters } from '../engine/counters';
import type { EngineTraits } from '../engine/traits';
import { StoreBusyError } from '../errors';

/** SQLite's error codes as the store reads them, its counters as rows, and no write locks to take. */
export function sqliteTraits(filename: string, busyTimeoutMs: number): EngineTraits {
  const codeOf = (error: unknown): string => (error instanceof BetterSqlite3.SqliteError ? error.code : '');
  return {
    location: filename,
    isUniqueViolation: (error) => codeOf(error) === 'SQLITE_CONSTRAINT_UNIQUE' || codeOf(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    isRetryable: (error) => codeOf(error) === 'SQLITE_BUSY_SNAPSHOT',
    translate: (error) =>
      codeOf(error).startsWith('SQLITE_BUSY') || codeOf(error).startsWith('SQLITE_LOCKED')
        ? new StoreBusyError(`database ${filename} stayed locked by another process for more than ${busyTimeoutMs} ms`, { cause: error })
        : error,
    // BEGIN IMMEDIATE already makes each write transaction the only one (see write-locking-driver.ts).
    lockForWrite: null,
    counters: tableCounters,
  };
}
