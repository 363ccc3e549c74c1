import { setTimeout as sleep } from 'node:timers/promises';
import { ConcurrentWriteError } from '../errors';
import { WriteContext } from './context';
import { refuseNesting, type Environment } from './environment';

/** Enough to recover from a burst of writers on one thing without hiding a livelock. */
const MAX_ATTEMPTS = 8;
const BASE_BACKOFF_MS = 2;

/**
 * Runs `work` in a fresh write transaction, running it again when a concurrent writer made it
 * stale (ConcurrentWriteError, or an engine error the engine calls retryable). Engine errors with
 * a store meaning come out as StoreErrors.
 */
export async function runInTransaction<T>(env: Environment, work: (ctx: WriteContext) => Promise<T>): Promise<T> {
  refuseNesting(env);
  for (let attempt = 1; ; attempt += 1) {
    try {
      let ctx: WriteContext | undefined;
      const result = await env.inTransaction.run(true, () =>
        env.db.transaction().execute(async (trx) => {
          ctx = new WriteContext(trx, env.engine, env.clock);
          const value = await work(ctx);
          await ctx.finish();
          return value;
        }),
      );
      ctx!.committed();
      return result;
    } catch (error) {
      const retryable = error instanceof ConcurrentWriteError || env.engine.isRetryable(error);
      if (!retryable) {
        throw env.engine.translate(error);
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
