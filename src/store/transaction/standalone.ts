import type { ReadContext } from './context';
import { refuseNesting, type Environment } from './environment';
import type { Executor } from './executor';
import { runInTransaction } from './run-in-transaction';

/** Reads and writes that each run in a transaction of their own. */
export function standaloneExecutor(env: Environment): Executor {
  const committed: ReadContext = { db: env.db, writing: null, lock: async () => false };
  /** Outside any transaction of this store, engine errors translated to store errors. */
  const standalone = async <T>(work: () => Promise<T>): Promise<T> => {
    refuseNesting(env);
    try {
      return await work();
    } catch (error) {
      throw env.engine.translate(error);
    }
  };
  return {
    readStatement: (work) => standalone(() => work(committed)),
    readNow: (work, ...args) => {
      refuseNesting(env);
      try {
        return work(committed, ...args);
      } catch (error) {
        throw env.engine.translate(error);
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
