import type { Repositories, Store } from '../../../src/store';

export interface OpenTransaction<T> {
  /** Lets the transaction run `work` and commit; answers what `work` answered. */
  finish(): Promise<T>;
}

/**
 * Starts a store transaction and keeps it open, holding its connection (and on PostgreSQL the
 * write lock), until `finish` is called. Resolves once the transaction is under way.
 */
export async function openTransaction<T>(store: Store, work: (tx: Repositories) => Promise<T>): Promise<OpenTransaction<T>> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const underWay = new Promise<void>((resolve) => (started = resolve));
  const result = store.transaction(async (tx) => {
    started();
    await held;
    return work(tx);
  });
  await Promise.race([underWay, result]);
  return {
    finish: () => {
      release();
      return result;
    },
  };
}
