import type { ReadContext, WriteContext } from './context';

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
   * A read answered at once, without a promise (from memory). `work` answers undefined when it
   * cannot answer so, and the caller then reads the usual way, as it must where every read takes
   * a lock first. The arguments are passed on, so that `work` need not be a closure made per call
   * on a hot path.
   */
  readNow<A extends unknown[], T>(work: (ctx: ReadContext, ...args: A) => T | undefined, ...args: A): T | undefined;
  write<T>(work: (ctx: WriteContext) => Promise<T>): Promise<T>;
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
