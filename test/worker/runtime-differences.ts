// Where our host, Miniflare and the runtime of deployed workers may answer the same request differently, each for a reason given
// in the table of allowed differences in docs/buckets-and-workers.md. Everything else must agree.

export type Runtime = 'host' | 'miniflare' | 'deployed';

export interface RuntimeAnswers {
  /**
   * A `Range` header no byte of the object satisfies (`bytes=1100-` on 1,000 bytes): the
   * platform's documentation has the binding throw 10039 (InvalidRange, 416), which the worker
   * answers 416; Miniflare's simulated bucket ignores such a header and serves the whole object.
   */
  unsatisfiableRange: 'refused' | 'whole object';
}

export const differences: Record<Runtime, RuntimeAnswers> = {
  host: { unsatisfiableRange: 'refused' },
  miniflare: { unsatisfiableRange: 'whole object' },
  // workerd's own binding over our bucket runtime (what `npm start` deploys).
  deployed: { unsatisfiableRange: 'refused' },
};
