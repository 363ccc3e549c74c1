import type Database from 'better-sqlite3';

/** What a write step may ask of the batch it runs in. */
export interface WriteStep {
  /** Runs `action` once the batch is committed; dropped if this step or the batch fails. */
  afterCommit(action: () => void): void;
  /** The batch (one transaction) the step runs in: the same object for every step of it. */
  readonly batch: object;
}

interface Job {
  work: (step: WriteStep) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit. Write steps queued in the same turn of the event loop run in one `BEGIN
 * IMMEDIATE` transaction, each in its own savepoint, so a step that throws changes nothing while
 * the others commit. The batch pays one flush of the write-ahead log instead of one per step, and
 * a step's checks and writes are still atomic, also against other processes on the same database.
 * A step's promise settles only after the batch is durably committed.
 */
export class WriteQueue {
  #jobs: Job[] = [];
  #scheduled = false;
  #drained: Promise<void> = Promise.resolve();
  #markDrained: () => void = () => {};
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #savepoint: Database.Statement;
  readonly #release: Database.Statement;
  readonly #rollbackTo: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    this.#savepoint = db.prepare('SAVEPOINT step');
    this.#release = db.prepare('RELEASE step');
    this.#rollbackTo = db.prepare('ROLLBACK TO step');
  }

  run<T>(work: (step: WriteStep) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#jobs.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        this.#drained = new Promise((done) => (this.#markDrained = done));
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Resolves once every queued step has settled. */
  drained(): Promise<void> {
    return this.#drained;
  }

  #flush(): void {
    const jobs = this.#jobs;
    this.#jobs = [];
    this.#scheduled = false;
    try {
      this.#commitBatch(jobs);
    } finally {
      if (!this.#scheduled) this.#markDrained();
    }
  }

  #commitBatch(jobs: Job[]): void {
    try {
      this.#begin.run();
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    const settled: (() => void)[] = [];
    const afterCommit: (() => void)[] = [];
    const batch = {};
    for (const job of jobs) {
      const actions: (() => void)[] = [];
      this.#savepoint.run();
      try {
        const value = job.work({ afterCommit: (action) => actions.push(action), batch });
        this.#release.run();
        afterCommit.push(...actions);
        settled.push(() => job.resolve(value));
      } catch (error) {
        this.#rollbackTo.run();
        this.#release.run();
        settled.push(() => job.reject(error));
      }
    }
    try {
      this.#commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.#rollback.run();
      for (const job of jobs) job.reject(error);
      return;
    }
    for (const action of afterCommit) action();
    for (const settle of settled) settle();
  }
}
