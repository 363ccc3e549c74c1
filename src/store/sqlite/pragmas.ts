import type BetterSqlite3 from 'better-sqlite3';

/** How the store runs SQLite: WAL, the chosen durability, foreign keys, and how long to wait for a lock. */
export function applyPragmas(database: BetterSqlite3.Database, filename: string, synchronous: 'normal' | 'full', busyTimeoutMs: number): void {
  if (filename !== ':memory:') {
    // WAL lets readers run while one process writes; a killed writer leaves the
    // uncommitted tail of the log behind, which the next opener ignores.
    const mode = database.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') {
      throw new Error(`the database refused WAL mode (journal_mode is ${String(mode)})`);
    }
  }
  database.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  database.pragma('foreign_keys = ON');
  database.pragma(`busy_timeout = ${busyTimeoutMs}`);
}
