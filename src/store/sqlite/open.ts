import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';
import { tableCounters } from '../counters';
import type { DialectTraits, StatementRunner, StatementsNow } from '../dialect';
import { StoreBusyError } from '../errors';
import { openKyselyStore, type StoreOptions } from '../open-store';
import { lockFile } from './file-lock';
import type { Database } from '../schema/tables';
import type { Store } from '../store';

/** File name of the database inside a data directory. */
export const SQLITE_FILE_NAME = 'store.sqlite';
const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export type SqliteLocation =
  /** A directory (created if missing) that holds `store.sqlite` and its WAL files. */
  | { dataDir: string; filename?: never }
  /** A database file, or `:memory:` for a private in-memory database. */
  | { filename: string; dataDir?: never };

export type SqliteStoreOptions = SqliteLocation &
  StoreOptions & {
    /**
     * `normal` (default): in WAL mode a commit survives the process being killed at any
     * point; only an OS crash or power cut may lose the last commits (never corrupting the
     * file). `full`: fsync on every commit, so those survive too, at a large cost in write
     * throughput. A stand-in service needs the former guarantee, not the latter.
     */
    synchronous?: 'normal' | 'full';
    /** How long a write waits for another process's write lock before StoreBusyError. */
    busyTimeoutMs?: number;
  };

/** Opens (creating, migrating and seeding as needed) the embedded SQLite store. */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const filename = resolveFilename(options);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new RangeError(`busyTimeoutMs must be a non-negative whole number, got ${busyTimeoutMs}`);
  }
  const database = new BetterSqlite3(filename, { timeout: busyTimeoutMs });
  try {
    configure(database, filename, options.synchronous ?? 'normal', busyTimeoutMs);
  } catch (error) {
    database.close();
    throw new Error(`cannot open SQLite database ${filename}: ${(error as Error).message}`, { cause: error });
  }
  const path = filename === ':memory:' ? null : realpathSync(filename);
  const statements = withStatementCache(database);
  const db = new Kysely<Database>({ dialect: new WriteLockingSqliteDialect({ database: statements }, path) });
  return openKyselyStore(db, sqliteTraits(filename, busyTimeoutMs, sqliteStatementsNow(database, statements)), options);
}

function resolveFilename(options: SqliteLocation): string {
  if (options.dataDir !== undefined && options.filename !== undefined) {
    throw new TypeError('give either dataDir or filename, not both');
  }
  if (options.dataDir !== undefined) {
    mkdirSync(options.dataDir, { recursive: true });
    return join(options.dataDir, SQLITE_FILE_NAME);
  }
  if (options.filename === undefined || options.filename === '') {
    throw new TypeError('give dataDir or filename (":memory:" for an in-memory database)');
  }
  return options.filename;
}

function configure(database: BetterSqlite3.Database, filename: string, synchronous: string, busyTimeoutMs: number) {
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

/**
 * Connections of this process to one file take turns (see file-lock.ts).
 * Write transactions start with BEGIN IMMEDIATE, taking the write lock before their first
 * read. A deferred transaction that reads and then writes fails at once with
 * SQLITE_BUSY_SNAPSHOT when another process committed in between; busy_timeout cannot help.
 */
class WriteLockingSqliteDriver extends SqliteDriver {
  readonly #path: string | null;
  #release: (() => void) | undefined;

  constructor(config: SqliteDialectConfig, path: string | null) {
    super(config);
    this.#path = path;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const release = this.#path === null ? undefined : await lockFile(this.#path);
    const connection = await super.acquireConnection();
    this.#release = release;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    await super.releaseConnection();
    release?.();
  }

  override async beginTransaction(connection: DatabaseConnection, settings?: TransactionSettings): Promise<void> {
    const begin = settings?.accessMode === 'read only' ? 'begin deferred' : 'begin immediate';
    await connection.executeQuery(CompiledQuery.raw(begin));
  }
}

/**
 * Prepared statements kept by SQL text: Kysely prepares every query anew, which costs as much as
 * running a small one. Queries are parameterized, so the set of texts stays small; it is bounded
 * all the same. Safe because the driver runs one query at a time on its connection.
 */
export function withStatementCache(database: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= 512) statements.clear();
        statement = database.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * better-sqlite3 runs a statement synchronously; going through Kysely's connection queue instead
 * (driver mutex, per-file turn, a dozen awaits) costs several times the statement itself in a
 * busy server. The connection is the one Kysely uses, so a statement run here sees exactly what
 * one run through Kysely at that moment would. What Kysely's SqliteConnection answers, answered
 * the same way.
 */
export function sqliteStatementsNow(database: BetterSqlite3.Database, statements: SqliteDatabase): StatementsNow {
  const run: StatementRunner = (sql, parameters) => {
    const statement = statements.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  };
  return {
    committed: (sql, parameters) => (database.inTransaction ? undefined : run(sql, parameters)),
    // Only the transaction holding the connection gets this runner, and only while it runs.
    inTransaction: (sql, parameters) => (database.inTransaction ? run(sql, parameters) : undefined),
  };
}

class WriteLockingSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #path: string | null;
  /** `path`: the database file, or null for a private in-memory database. */
  constructor(config: SqliteDialectConfig, path: string | null) {
    super(config);
    this.#config = config;
    this.#path = path;
  }
  override createDriver(): Driver {
    return new WriteLockingSqliteDriver(this.#config, this.#path);
  }
}

function sqliteTraits(filename: string, busyTimeoutMs: number, now: StatementsNow): DialectTraits {
  const codeOf = (error: unknown): string =>
    error instanceof BetterSqlite3.SqliteError ? error.code : '';
  return {
    location: filename,
    isUniqueViolation: (error) =>
      codeOf(error) === 'SQLITE_CONSTRAINT_UNIQUE' || codeOf(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    isRetryable: (error) => codeOf(error) === 'SQLITE_BUSY_SNAPSHOT',
    translate: (error) =>
      codeOf(error).startsWith('SQLITE_BUSY') || codeOf(error).startsWith('SQLITE_LOCKED')
        ? new StoreBusyError(
            `database ${filename} stayed locked by another process for more than ${busyTimeoutMs} ms`,
            { cause: error },
          )
        : error,
    // BEGIN IMMEDIATE already makes each write transaction the only one (see the driver above).
    lockForWrite: null,
    counters: tableCounters,
    statementsNow: now,
  };
}
