// What a deployment changes: the next request runs the new version while requests in flight
// finish on the one they started on; a rollback and a deletion likewise; a deployment of two
// versions shares requests by its percentages.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, deployed, moduleVersion, startHarness, type Harness } from './harness';

/** A version that names itself, after waiting as long as the request asks. */
const named = (name: string) =>
  moduleVersion(`export default {
  async fetch(request) {
    const wait = Number(new URL(request.url).searchParams.get('wait') ?? 0);
    if (wait) await scheduler.wait(wait);
    return new Response('${name}');
  },
};`);

let harness: Harness;
const v1 = named('v1');
const v2 = named('v2');

beforeAll(async () => {
  harness = await startHarness({ waitUntilMs: 100 });
}, 60_000);

afterAll(() => harness?.close());

const call = async (query = '') => {
  const response = await fetch(`${harness.url}/${ACCOUNT}/site/${query}`);
  return response.headers.get('x-run-result') === 'not-deployed' ? 'not deployed' : response.text();
};

describe('deployments', () => {
  it('switch the next request to the new version, while a request in flight finishes on its own', async () => {
    await harness.runtime.apply(deployed({ site: v1 }));
    expect(await call()).toBe('v1');
    const inFlight = call('?wait=1500');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await harness.runtime.apply(deployed({ site: v2 }));
    expect(await call()).toBe('v2');
    expect(await inFlight).toBe('v1');
  });

  it('roll back to an earlier version, and stop serving a deleted script', async () => {
    await harness.runtime.apply(deployed({ site: v1 }));
    expect(await call()).toBe('v1');
    const inFlight = call('?wait=1000');
    await new Promise((resolve) => setTimeout(resolve, 200));
    await harness.runtime.apply(deployed({}));
    expect(await call()).toBe('not deployed');
    expect(await inFlight).toBe('v1');
  });

  it('share requests between two versions by the percentages', async () => {
    await harness.runtime.apply(deployed({ site: [{ percentage: 30, version: v1 }, { percentage: 70, version: v2 }] }));
    const answers: string[] = [];
    for (let i = 0; i < 400; i++) answers.push(await call());
    const ones = answers.filter((answer) => answer === 'v1').length;
    expect(answers.filter((answer) => answer !== 'v1' && answer !== 'v2')).toEqual([]);
    // 30% of 400 is 120; five standard deviations (about 46) either side.
    expect(ones).toBeGreaterThan(74);
    expect(ones).toBeLessThan(166);
  });

  it('stop the processes of versions no deployment names once their requests are done', async () => {
    // Each running version listens on a socket of its own in the runtime's directory (beside the bucket and assets services' and the trace sink's).
    const versionsRunning = () => readdirSync(harness.runtime.directory).filter((name) => name.endsWith('.sock') && name !== 'buckets.sock' && name !== 'assets.sock' && name !== 'traces.sock').length;
    expect(versionsRunning()).toBe(2);
    await harness.runtime.apply(deployed({ site: v2 }));
    await expect.poll(versionsRunning, { timeout: 5000 }).toBe(1);
    expect(await call()).toBe('v2');
  });
});
