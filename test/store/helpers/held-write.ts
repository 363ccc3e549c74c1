import { setTimeout as sleep } from 'node:timers/promises';
import type { Repositories, Store } from '../../../src/store';

export interface HeldWrite<T> {
  /** What the work answered; its transaction is still open, holding its locks. */
  readonly value: T;
  /** Lets the transaction commit; answers what the work answered once it has. Safe to call twice. */
  release(): Promise<T>;
}

/** Runs `work` in a store transaction, then keeps that transaction open until `release`. */
export async function holdWrite<T>(store: Store, work: (tx: Repositories) => Promise<T>): Promise<HeldWrite<T>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let ran!: (value: T) => void;
  const hasRun = new Promise<T>((resolve) => (ran = resolve));
  const committed = store.transaction(async (tx) => {
    const value = await work(tx);
    ran(value);
    await released;
    return value;
  });
  // A failing `work` rejects `committed` before `hasRun` ever settles.
  const value = await Promise.race([hasRun, committed]);
  return {
    value,
    release: () => {
      release();
      return committed;
    },
  };
}

/** Whether `promise` is still unsettled after `ms` (it keeps running either way). */
export async function stillWaiting(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const settled = promise.then(
    () => false,
    () => false,
  );
  try {
    return await Promise.race([settled, sleep(ms, true, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}

/** `promise`, or a failure naming `what` after `ms`: a write that should not wait fails fast instead of at the lock timeout. */
export async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  const timer = new AbortController();
  const late = sleep(ms, undefined, { signal: timer.signal }).then(() => Promise.reject(new Error(`${what} did not finish within ${ms} ms`)));
  late.catch(() => undefined);
  try {
    return await Promise.race([promise, late]);
  } finally {
    timer.abort();
  }
}
