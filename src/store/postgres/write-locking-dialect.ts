import {
  CompiledQuery,
  PostgresDialect,
  PostgresDriver,
  type DatabaseConnection,
  type Driver,
  type PostgresDialectConfig,
  type TransactionSettings,
} from 'kysely';

/**
 * Key of the advisory lock every write transaction holds. Arbitrary: it only has to differ
 * from other advisory locks taken in the same database (Kysely's migration lock uses
 * 3853314791062309107). Advisory locks are per database, so stores on other databases of
 * the same server never wait for each other.
 */
export const WRITE_LOCK_KEY = '6418720395531447297';

/**
 * The store's transactions on PostgreSQL keep the semantics they have on SQLite:
 * - A write transaction takes one database-wide lock before its first read (as SQLite's
 *   BEGIN IMMEDIATE does), in READ COMMITTED, so every statement sees every earlier writer's
 *   commit. Writers from any number of processes queue on the lock instead of racing and
 *   retrying; the ruleset version compare-and-set stays as the guarantee behind it. Readers
 *   never wait for the lock.
 * - A read-only transaction reads one snapshot (REPEATABLE READ, which never fails for a
 *   reader), as a SQLite read transaction does: a ruleset and its rules come from the same
 *   commit even while a writer commits in between the two queries.
 */
class WriteLockingPostgresDriver extends PostgresDriver {
  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.accessMode === 'read only') {
      await connection.executeQuery(CompiledQuery.raw('start transaction isolation level repeatable read read only'));
      return;
    }
    await connection.executeQuery(CompiledQuery.raw('start transaction isolation level read committed'));
    try {
      await connection.executeQuery(CompiledQuery.raw(`select pg_advisory_xact_lock(${WRITE_LOCK_KEY})`));
    } catch (error) {
      // Kysely only rolls back transactions that began; this one did, so end it here or the
      // connection goes back to the pool inside an aborted transaction.
      await connection.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      throw error;
    }
  }
}

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
