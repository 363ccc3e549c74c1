// The reference worker served by `npm run worker`, driven over real HTTP at an old and a current
// compatibility date. The same suite runs under Miniflare in reference-miniflare.test.ts.
import { afterAll, vi } from 'vitest';
import { COMPATIBILITY_DATES } from '../support/miniflare';
import { COMMAND_TEST_TIMEOUT_MS, expectCleanStop, type Host } from './commands';
import { startReferenceWorker } from './reference-host';
import { ALLOWED, describeReferenceWorker, SECRET } from './reference-suite';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const hosts: Host[] = [];
afterAll(() => Promise.all(hosts.map((host) => expectCleanStop(host))));

for (const date of COMPATIBILITY_DATES) {
  describeReferenceWorker(`on our host at compatibility date ${date}`, async () => {
    const host = await startReferenceWorker(ALLOWED, SECRET, date);
    hosts.push(host);
    return { url: host.url, runtime: 'host' };
  });
}
