import type { Kysely, Transaction } from 'kysely';
import { formatTimestamp, type Clock } from '../clock';
import type { EngineTraits } from '../engine/traits';
import type { Database } from '../schema/tables';

/** What a read sees: a database handle, and the write transaction it runs in, if any. */
export interface ReadContext {
  readonly db: Kysely<Database>;
  /**
   * The write transaction this read is part of, whose own changes are not committed (nor final)
   * yet; null for a read of committed data.
   */
  readonly writing: WriteContext | null;
  /**
   * In a write transaction, takes the named lock (see write-locks.ts) unless already held, and
   * answers whether it was just taken on an engine where what was read before may then be stale
   * (not SQLite, whose write transactions exclude one another). Elsewhere a no-op.
   */
  lock(name: string): Promise<boolean>;
}

/**
 * One write transaction: its handle, its single timestamp, the locks it holds, and work to run
 * when it is about to commit and once it has. What a repository keeps per transaction (such as
 * the ruleset versions it claimed) it keeps beside this object, keyed by it.
 */
export class WriteContext implements ReadContext {
  readonly now: string;
  readonly #locks = new Set<string>();
  readonly #beforeCommit: (() => Promise<void>)[] = [];
  readonly #afterCommit: (() => void)[] = [];

  constructor(
    readonly db: Transaction<Database>,
    readonly engine: EngineTraits,
    clock: Clock,
  ) {
    this.now = formatTimestamp(clock.nowMicros());
  }

  get writing(): WriteContext {
    return this;
  }

  /**
   * Writers lock what they change before reading it, so writers of one thing queue (instead of
   * racing and retrying) and writers of different things never wait. Taken in whatever order a
   * transaction reaches them: a deadlock between two transactions is detected by the engine and
   * the loser runs again (isRetryable).
   */
  async lock(name: string): Promise<boolean> {
    const lockForWrite = this.engine.lockForWrite;
    if (lockForWrite === null || this.#locks.has(name)) return false;
    const waited = await lockForWrite(this.db, name);
    this.#locks.add(name);
    return waited;
  }

  /** Work that must see the transaction's final state, run in order just before it commits. */
  beforeCommit(work: () => Promise<void>): void {
    this.#beforeCommit.push(work);
  }

  /** Work for once the transaction has committed (never if it rolls back), such as filling caches. */
  afterCommit(work: () => void): void {
    this.#afterCommit.push(work);
  }

  /** Runs the before-commit work; called by the transaction runner only. */
  async finish(): Promise<void> {
    for (const work of this.#beforeCommit) {
      await work();
    }
  }

  /** Runs the after-commit work; called by the transaction runner only. */
  committed(): void {
    for (const work of this.#afterCommit) work();
  }
}
