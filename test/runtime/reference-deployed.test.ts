// The reference worker, bundled as the platform's tooling uploads it, deployed to the runtime
// of `npm start` (workerd, its bucket binding served from our catalogue), at an old and a current
// compatibility date: the same HTTP suite our host and Miniflare pass.
import { afterAll, beforeAll } from 'vitest';
import { describeReferenceWorker, ALLOWED, SECRET } from '../worker/reference-suite';
import { bundleWorker, COMPATIBILITY_DATES } from '../support/miniflare';
import { ACCOUNT, deployed, moduleVersion, startHarness, type Harness } from './harness';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
  const script = await bundleWorker('src/worker/reference/index.ts');
  const scripts: Parameters<typeof deployed>[0] = {};
  for (const date of COMPATIBILITY_DATES) {
    const bucket = `reference-${date}`;
    await harness.catalogue.create(bucket);
    const version = moduleVersion(script, [
      { type: 'json', name: 'ALLOW_LIST', json: ALLOWED },
      { type: 'secret_text', name: 'AUTH_KEY_SECRET', text: SECRET },
      { type: 'r2_bucket', name: 'MY_BUCKET', bucket_name: bucket },
    ]);
    scripts[`reference-${date}`] = { ...version, compatibility_date: date };
  }
  await harness.runtime.apply(deployed(scripts));
}, 60_000);

afterAll(() => harness?.close());

for (const date of COMPATIBILITY_DATES) {
  describeReferenceWorker(`deployed to the platform's runtime at compatibility date ${date}`, () => ({
    url: `${harness.url}/${ACCOUNT}/reference-${date}`,
    runtime: 'deployed',
  }));
}
