import { CompiledQuery, PostgresDriver, type DatabaseConnection, type TransactionSettings } from 'kysely';

/**
 * The store's transactions on PostgreSQL keep the semantics they have on SQLite:
 * - A write transaction runs in READ COMMITTED, so every statement sees every earlier writer's
 *   commit, and locks what it changes (a ruleset, a phase entry point, a job: see write-locks.ts)
 *   before reading it, as SQLite's BEGIN IMMEDIATE locks the whole file. Writers of one thing, from any number of
 *   processes, queue on its lock instead of racing and retrying; writers of different things never
 *   wait on each other. The ruleset version compare-and-set stays as the guarantee behind it.
 *   Readers never wait for a lock.
 * - A read-only transaction reads one snapshot (REPEATABLE READ, which never fails for a
 *   reader), as a SQLite read transaction does: a ruleset and its rules come from the same
 *   commit even while a writer commits in between the two queries.
 */
export class WriteLockingPostgresDriver extends PostgresDriver {
  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.accessMode === 'read only') {
      await connection.executeQuery(CompiledQuery.raw('start transaction isolation level repeatable read read only'));
      return;
    }
    await connection.executeQuery(CompiledQuery.raw('start transaction isolation level read committed'));
  }
}
