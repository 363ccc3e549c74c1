// The reference worker module, unchanged (bundled as the platform's tooling uploads it), under
// Miniflare: workerd with a real bucket binding, at an old and a current compatibility date.
// The same suite runs on our host in reference-worker.test.ts; one Miniflare instance serves
// both dates for the whole file.
import { afterAll, beforeAll } from 'vitest';
import { bundleWorker, COMPATIBILITY_DATES, startMiniflare, type RunningMiniflare } from '../support/miniflare';
import { ALLOWED, describeReferenceWorker, SECRET } from './reference-suite';

const workerName = (date: string) => `reference-${date}`;
let running: RunningMiniflare;

beforeAll(async () => {
  const script = await bundleWorker('src/worker/reference/index.ts');
  running = await startMiniflare(
    COMPATIBILITY_DATES.map((date) => ({
      name: workerName(date),
      script,
      compatibilityDate: date,
      buckets: { MY_BUCKET: `my-bucket-${date}` },
      bindings: { ALLOW_LIST: ALLOWED, AUTH_KEY_SECRET: SECRET },
    })),
  );
});

afterAll(() => running?.dispose());

for (const date of COMPATIBILITY_DATES) {
  describeReferenceWorker(`under Miniflare at compatibility date ${date}`, () => ({
    url: running.urls[workerName(date)]!,
    runtime: 'miniflare',
  }));
}
