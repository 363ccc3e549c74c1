import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Statements kept at most; queries are parameterized, so the store's set of texts stays far below. */
const CAPACITY = 512;

/**
 * The database as Kysely's SQLite dialect takes it, with prepared statements kept by SQL text:
 * Kysely prepares every query anew, which costs as much as running a small one. Safe because the
 * driver runs one query at a time on its connection.
 */
export function withStatementCache(database: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= CAPACITY) statements.clear();
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
