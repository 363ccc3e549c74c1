import type { ExecutionContext } from './worker-module';

/** The work handed to `ctx.waitUntil`, so the host can let it finish before it stops. */
export class PendingWork {
  readonly #pending = new Set<Promise<void>>();
  readonly #report: (error: unknown) => void;

  /** `report` hears of work that failed: nobody else would. */
  constructor(report: (error: unknown) => void) {
    this.#report = report;
  }

  /** A fresh `ctx` for one request. */
  context(): ExecutionContext {
    return {
      waitUntil: (promise) => this.#track(promise),
      passThroughOnException: () => {},
      props: {},
    };
  }

  /** Resolves once all work handed over so far, and any it handed over in turn, has settled. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  #track(promise: Promise<unknown>): void {
    const tracked: Promise<void> = Promise.resolve(promise)
      .then(
        () => {},
        (error: unknown) => this.#report(error),
      )
      .finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }
}
