import { CompiledQuery, SqliteDriver, type DatabaseConnection, type SqliteDialectConfig, type TransactionSettings } from 'kysely';
import { lockFile } from './file-lock';

/**
 * Connections of this process to one file take turns (see file-lock.ts).
 * Write transactions start with BEGIN IMMEDIATE, taking the write lock before their first
 * read. A deferred transaction that reads and then writes fails at once with
 * SQLITE_BUSY_SNAPSHOT when another process committed in between; busy_timeout cannot help.
 */
export class WriteLockingSqliteDriver extends SqliteDriver {
  readonly #path: string | null;
  #release: (() => void) | undefined;

  /** `path`: the database file, or null for a private in-memory database. */
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

  /**
   * SQLite rolls a transaction back by itself when a statement fails for lack of room or an I/O
   * error; the rollback asked for then finds none, and its error would hide the one that matters.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      if ((error as Error).message !== NO_TRANSACTION) throw error;
    }
  }
}

/** SQLite's refusal of a rollback outside any transaction. */
const NO_TRANSACTION = 'cannot rollback - no transaction is active';
