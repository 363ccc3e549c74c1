import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { fileSystemHealth, healthOf } from '../../storage-health';
import { tableCounters } from '../engine/counters';
import type { EngineTraits } from '../engine/traits';
import { StoreBusyError, StoreFullError, StoreUnavailableError } from '../errors';

/**
 * SQLite's result codes the store gives a meaning to (extended codes start with these): the file
 * failed to read or write (I/O, opened read-only under us, gone), or the disk is full.
 */
const UNAVAILABLE_CODES = ['SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY'];
const FULL_CODE = 'SQLITE_FULL';

/** SQLite's error codes as the store reads them, its counters as rows, and no write locks to take. */
export function sqliteTraits(filename: string, busyTimeoutMs: number): EngineTraits {
  const codeOf = (error: unknown): string => (error instanceof BetterSqlite3.SqliteError ? error.code : '');
  return {
    location: filename,
    isUniqueViolation: (error) => codeOf(error) === 'SQLITE_CONSTRAINT_UNIQUE' || codeOf(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    isRetryable: (error) => codeOf(error) === 'SQLITE_BUSY_SNAPSHOT',
    translate: (error) => {
      const code = codeOf(error);
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
        return new StoreBusyError(`database ${filename} stayed locked by another process for more than ${busyTimeoutMs} ms`, { cause: error });
      }
      if (code.startsWith(FULL_CODE)) {
        const reason = `no space left on the device (${code})`;
        // Told once; /readyz says degraded, and writes other than deletes wait, until space is freed.
        if (filename !== ':memory:') fileSystemHealth(dirname(filename)).full(reason);
        return new StoreFullError(filename, reason, { cause: error });
      }
      if (UNAVAILABLE_CODES.some((prefix) => code.startsWith(prefix))) {
        const reason = `${(error as Error).message} (${code})`;
        // Told once; the file is read again every 250 ms until it answers (see open.ts).
        if (filename !== ':memory:') healthOf(filename).lost(reason);
        return new StoreUnavailableError(filename, reason, { cause: error });
      }
      return error;
    },
    // BEGIN IMMEDIATE already makes each write transaction the only one (see write-locking-driver.ts).
    lockForWrite: null,
    counters: tableCounters,
  };
}
