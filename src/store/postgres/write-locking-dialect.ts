import { PostgresDialect, type Driver, type PostgresDialectConfig } from 'kysely';
import { WriteLockingPostgresDriver } from './write-locking-driver';

/** Kysely's PostgreSQL dialect with the store's driver (see write-locking-driver.ts). */
export class WriteLockingPostgresDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;

  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new WriteLockingPostgresDriver(this.#config);
  }
}
