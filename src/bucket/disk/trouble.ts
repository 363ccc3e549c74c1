import BetterSqlite3 from 'better-sqlite3';
import { fileSystemHealth, healthOf } from '../../storage-health';
import { StorageFullError, StorageUnavailableError } from '../shared';

/** Codes (SQLite's result codes, extended ones start with these; system errors) of a full file system. */
const FULL = ['SQLITE_FULL', 'ENOSPC', 'EDQUOT'];
/** Codes of files that failed to read or write, or of a file system remounted read-only. */
const FAILING = ['SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'EIO', 'EROFS'];
/** Codes of another process holding the database's lock for longer than the busy timeout. */
const BUSY = ['SQLITE_BUSY', 'SQLITE_LOCKED'];

/**
 * What a failure of the disk engine (SQLite metadata, body files) in `directory` means: its file
 * system full (told once to the process's health, and /readyz says degraded until space is freed),
 * its files failing (told once, until they read again) or locked too long, or none of these (the
 * error as it was).
 */
export function diskTrouble(error: unknown, directory: string): unknown {
  const code = error instanceof BetterSqlite3.SqliteError ? error.code : (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== 'string' || code === '') return error;
  const is = (prefixes: string[]) => prefixes.some((prefix) => code.startsWith(prefix));
  if (is(FULL)) {
    const reason = `no space left on the device (${code})`;
    fileSystemHealth(directory).full(reason);
    return new StorageFullError(directory, reason, { cause: error });
  }
  if (is(FAILING)) {
    const reason = `${(error as Error).message} (${code})`;
    healthOf(directory).lost(reason);
    return new StorageUnavailableError(directory, reason, { cause: error });
  }
  if (is(BUSY)) return new StorageUnavailableError(directory, 'another process held its lock for longer than the busy timeout', { cause: error });
  return error;
}
