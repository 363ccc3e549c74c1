import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely, Selectable, Transaction } from 'kysely';
import { formatTimestamp, type Clock } from './clock';
import type { DialectTraits } from './dialect';
import { ConcurrentWriteError } from './errors';
import type { Database, RulesetsTable } from './schema/tables';
import { preparedQuery, runStatementsNow } from './prepared-query';
import { SeededRows } from './seeded-rows';
import { deepFreeze, RulesetSnapshots } from './snapshot-cache';
import type { Ruleset } from './types';

/** Enough to recover from a burst of writers on one ruleset without hiding a livelock. */
const MAX_ATTEMPTS = 8;
const BASE_BACKOFF_MS = 2;

export interface Environment {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  readonly dialect: DialectTraits;
  /** Marks the async work running inside one of this store's transactions. */
  readonly inTransaction: AsyncLocalStorage<true>;
  readonly snapshots: RulesetSnapshots;
  readonly seeded: SeededRows;
}

export function createEnvironment(db: Kysely<Database>, clock: Clock, dialect: DialectTraits): Environment {
  if (dialect.statementsNow !== null) runStatementsNow(db, dialect.statementsNow.committed);
  return { db, clock, dialect, inTransaction: new AsyncLocalStorage<true>(), snapshots: new RulesetSnapshots(), seeded: new SeededRows() };
}

type RulesetRow = Selectable<RulesetsTable>;

/** The version compare-and-set of claimRuleset, prepared once. */
const bumpVersion = preparedQuery((db, id: string, current: number, next: number, now: string) =>
  db.updateTable('rulesets').set({ version: next, last_updated: now }).where('id', '=', id).where('version', '=', current),
);

/** What a read sees: a database handle, and a way to remember which ruleset versions it read. */
export interface ReadContext {
  readonly db: Kysely<Database>;
  /** Records a ruleset row read: its version is a later write's compare-and-set basis. */
  noteRulesetRow(row: RulesetRow): void;
  readonly snapshots: RulesetSnapshots;
  /** Accounts, zones and platform-managed rulesets, which only seeding writes. */
  readonly seeded: SeededRows;
  /** False in a write transaction, whose own changes are not committed (nor final) yet. */
  readonly committedOnly: boolean;
  /** Whether this transaction wrote to the ruleset (what it reads of it is then not committed). */
  wroteRuleset(id: string): boolean;
  /**
   * In a write transaction, takes the named lock (see write-locks.ts) unless already held, and
   * answers whether it was just taken on an engine where what was read before may then be stale
   * (not SQLite, whose write transactions exclude one another). Elsewhere a no-op.
   */
  lock(name: string): Promise<boolean>;
}

/**
 * The state of one write transaction: its single timestamp, the ruleset versions it read
 * (the basis of its compare-and-set) and the rulesets it already moved to a new version.
 */
export class WriteContext implements ReadContext {
  readonly now: string;
  readonly #seen = new Map<string, number>();
  readonly #claimed = new Map<string, number>();
  readonly #beforeCommit: (() => Promise<void>)[] = [];
  /** Rulesets as this transaction last wrote and read them back (see rememberRuleset). */
  readonly #written = new Map<string, Ruleset>();
  readonly #locks = new Set<string>();
  readonly #rows = new Map<string, RulesetRow>();
  readonly committedOnly = false;

  constructor(
    readonly db: Transaction<Database>,
    readonly dialect: DialectTraits,
    clock: Clock,
    readonly snapshots: RulesetSnapshots,
    readonly seeded: SeededRows,
  ) {
    this.now = formatTimestamp(clock.nowMicros());
  }

  /**
   * Writers lock what they change before reading it, so writers of one thing queue (instead of
   * racing and retrying) and writers of different things never wait. Taken in whatever order a
   * transaction reaches them: a deadlock between two transactions is detected by the engine and
   * the loser runs again (isRetryable). The ruleset version compare-and-set stays the guarantee.
   */
  async lock(name: string): Promise<boolean> {
    const lockForWrite = this.dialect.lockForWrite;
    if (lockForWrite === null || this.#locks.has(name)) return false;
    const waited = await lockForWrite(this.db, name);
    this.#locks.add(name);
    return waited;
  }

  noteRulesetRow(row: RulesetRow): void {
    if (!this.#seen.has(row.id)) {
      this.#seen.set(row.id, row.version);
    }
    this.#rows.set(row.id, row);
  }

  /**
   * The ruleset's row as this transaction last read it (under the ruleset's lock), while nothing
   * in it has written the ruleset since: a write then need not read it again.
   */
  rulesetRow(id: string): RulesetRow | undefined {
    return this.#rows.get(id);
  }

  /**
   * Moves a ruleset to its next version, once per transaction however many writes touch it.
   * `current` is the version just read inside this transaction. If the transaction read the
   * ruleset earlier at another version, or another writer bumps it first, the transaction
   * is stale and is run again.
   * Returns true the first time, so the caller can register work for commit time.
   */
  async claimRuleset(id: string, current: number): Promise<boolean> {
    if (this.#claimed.has(id)) {
      return false;
    }
    const basis = this.#seen.get(id) ?? current;
    if (basis !== current) {
      throw new ConcurrentWriteError(`ruleset ${id} changed from version ${basis} to ${current} during the write`);
    }
    const result = await bumpVersion(this.db, id, current, current + 1, this.now);
    if (result.numAffectedRows !== 1n) {
      throw new ConcurrentWriteError(`ruleset ${id} moved past version ${current} during the write`);
    }
    this.#claimed.set(id, current + 1);
    this.#seen.set(id, current + 1);
    this.#rows.delete(id);
    return true;
  }

  wroteRuleset(id: string): boolean {
    return this.#claimed.has(id);
  }

  /** The version this transaction moved the ruleset to, if it wrote it. */
  claimedVersion(id: string): number | undefined {
    return this.#claimed.get(id);
  }

  /** A ruleset this transaction created is at its first version: later writes must not bump it. */
  claimCreatedRuleset(id: string): void {
    this.#claimed.set(id, 1);
    this.#seen.set(id, 1);
  }

  /**
   * The ruleset as a write just read it back. Valid until the next write to that ruleset, which
   * must call forgetRuleset first; the version snapshot at commit then needs no second read.
   */
  rememberRuleset(ruleset: Ruleset): Ruleset {
    // Frozen: the caller gets the very object the snapshot will be written from.
    this.#written.set(ruleset.id, deepFreeze(ruleset));
    return ruleset;
  }

  forgetRuleset(id: string): void {
    this.#written.delete(id);
    this.#rows.delete(id);
  }

  writtenRuleset(id: string): Ruleset | undefined {
    return this.#written.get(id);
  }

  writtenRulesets(): Iterable<Ruleset> {
    return this.#written.values();
  }

  /** Work that must see the transaction's final state, such as version snapshots. */
  beforeCommit(work: () => Promise<void>): void {
    this.#beforeCommit.push(work);
  }

  async finish(): Promise<void> {
    for (const work of this.#beforeCommit) {
      await work();
    }
  }
}

/** How repositories reach the database: inside a caller's transaction or on their own. */
export interface Executor {
  /** Reads in one transaction: several statements that must see the same state. */
  read<T>(work: (ctx: ReadContext) => Promise<T>): Promise<T>;
  /**
   * A read of a single statement, which sees one committed state on its own: outside a caller's
   * transaction it runs without one, saving the BEGIN and COMMIT round trips.
   */
  readStatement<T>(work: (ctx: ReadContext) => Promise<T>): Promise<T>;
  /**
   * A read answered at once, without a promise: from memory, or by prepared statements' `now`
   * (SQLite, its connection free). `work` answers undefined when it cannot answer so, and the
   * caller then reads the usual way, as it must where every read takes a lock first. The
   * arguments are passed on, so that `work` need not be a closure made per call on a hot path.
   */
  readNow<A extends unknown[], T>(work: (ctx: ReadContext, ...args: A) => T | undefined, ...args: A): T | undefined;
  write<T>(work: (ctx: WriteContext) => Promise<T>): Promise<T>;
}

/**
 * Runs `work` in a fresh write transaction, running it again when a concurrent writer
 * made it stale. Engine errors with a store meaning come out as StoreErrors.
 */
export async function runInTransaction<T>(env: Environment, work: (ctx: WriteContext) => Promise<T>): Promise<T> {
  refuseNesting(env);
  for (let attempt = 1; ; attempt += 1) {
    try {
      let committed: WriteContext | undefined;
      const result = await env.inTransaction.run(true, () =>
        env.db.transaction().execute(async (trx) => {
          const now = env.dialect.statementsNow;
          const stop = now === null ? undefined : runStatementsNow(trx, now.inTransaction);
          try {
            const ctx = new WriteContext(trx, env.dialect, env.clock, env.snapshots, env.seeded);
            const value = await work(ctx);
            await ctx.finish();
            committed = ctx;
            return value;
          } finally {
            stop?.();
          }
        }),
      );
      // Committed now: the versions this transaction wrote serve the next reads from the cache.
      for (const ruleset of committed!.writtenRulesets()) env.snapshots.set(ruleset);
      return result;
    } catch (error) {
      const retryable = error instanceof ConcurrentWriteError || env.dialect.isRetryable(error);
      if (!retryable) {
        throw env.dialect.translate(error);
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new ConcurrentWriteError(`gave up after ${attempt} attempts: concurrent writers kept winning`, {
          cause: error,
        });
      }
      await sleep(BASE_BACKOFF_MS * 2 ** attempt * Math.random());
    }
  }
}

/** Reads and writes that each run in a transaction of their own. */
export function standaloneExecutor(env: Environment): Executor {
  const committed: ReadContext = {
    db: env.db,
    noteRulesetRow: () => undefined,
    snapshots: env.snapshots,
    seeded: env.seeded,
    committedOnly: true,
    wroteRuleset: () => false,
    lock: async () => false,
  };
  /** Outside any transaction of this store, engine errors translated to store errors. */
  const standalone = async <T>(work: () => Promise<T>): Promise<T> => {
    refuseNesting(env);
    try {
      return await work();
    } catch (error) {
      throw env.dialect.translate(error);
    }
  };
  return {
    readStatement: (work) => standalone(() => work(committed)),
    readNow: (work, ...args) => {
      refuseNesting(env);
      try {
        return work(committed, ...args);
      } catch (error) {
        throw env.dialect.translate(error);
      }
    },
    read: (work) =>
      standalone(() =>
        env.inTransaction.run(true, () =>
          env.db
            .transaction()
            .setAccessMode('read only')
            .execute((trx) => work({ ...committed, db: trx })),
        ),
      ),
    write: (work) => runInTransaction(env, work),
  };
}

/** Reads and writes that join the caller's transaction. */
export function transactionExecutor(ctx: WriteContext): Executor {
  return {
    read: (work) => work(ctx),
    readStatement: (work) => work(ctx),
    readNow: (work, ...args) => work(ctx, ...args),
    write: (work) => work(ctx),
  };
}

/**
 * The executor for work on what `lockName` names (a zone's WAF state, a log push job): inside a
 * write transaction each read and write takes that lock first, so the transaction's write is
 * based on what it read; on its own a read takes no lock.
 */
export function lockingExecutor(executor: Executor, lockName: string): Executor {
  const locked =
    <C extends ReadContext, T>(work: (ctx: C) => Promise<T>) =>
    async (ctx: C): Promise<T> => {
      await ctx.lock(lockName);
      return work(ctx);
    };
  return {
    read: (work) => executor.read(locked(work)),
    readStatement: (work) => executor.readStatement(locked(work)),
    // Taking the lock means waiting: such reads always go the usual way.
    readNow: () => undefined,
    write: (work) => executor.write(locked(work)),
  };
}

/**
 * Using the store itself inside `store.transaction` would wait forever on the connection
 * the transaction holds (SQLite has one); fail loudly instead.
 */
function refuseNesting(env: Environment): void {
  if (env.inTransaction.getStore() === true) {
    throw new Error('store used inside its own transaction: use the tx repositories handed to the callback');
  }
}
