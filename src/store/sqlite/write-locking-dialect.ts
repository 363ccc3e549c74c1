import { SqliteDialect, type Driver, type SqliteDialectConfig } from 'kysely';
import { WriteLockingSqliteDriver } from './write-locking-driver';

/** Kysely's SQLite dialect with the store's driver (see write-locking-driver.ts). */
export class WriteLockingSqliteDialect extends SqliteDialect {
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
