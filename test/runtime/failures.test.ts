// Workers that fail: one that throws or hangs answers the platform's 500 (its error in the
// platform's log, never in the answer), one that spins past its CPU time or its memory is cut
// off, one that cannot start fails its own requests; none of them disturbs another script,
// each running in a process of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, deployed, moduleVersion, startHarness, type Harness } from './harness';

const OK = "export default { fetch: () => new Response('ok') };";

const FAILING = `
export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === '/throw') throw new TypeError('boom in the worker');
    if (path === '/reject') return Promise.reject(new RangeError('rejected on purpose'));
    if (path === '/hang') return new Promise(() => {});
    if (path === '/spin') { for (;;) {} }
    if (path === '/memory') { const kept = []; for (;;) kept.push(new Array(1 << 20).fill(Math.random())); }
    if (path === '/not-a-response') return 'text';
    return new Response('still here');
  },
  async scheduled(controller) {
    if (controller.cron === 'spin') { for (;;) {} }
    if (controller.cron === 'hang') return new Promise(() => {});
  },
};
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ cpuMs: 300 });
  await harness.runtime.apply(
    deployed({
      failing: moduleVersion(FAILING),
      healthy: moduleVersion(OK),
      broken: moduleVersion('export default { fetch() { return new Response("never") } '),
    }),
  );
}, 60_000);

afterAll(() => harness?.close());

const call = (script: string, path = '/') => fetch(`${harness.url}/${ACCOUNT}/${script}${path}`);
const resultOf = async (response: Response) => ({
  status: response.status,
  result: response.headers.get('x-run-result'),
  error: decodeURIComponent(response.headers.get('x-run-error') ?? ''),
  body: await response.text(),
});

describe('a worker that fails', () => {
  it('throws or rejects: the runtime reports an exception with the error, and answers nothing of it', async () => {
    const thrown = await resultOf(await call('failing', '/throw'));
    expect(thrown).toMatchObject({ status: 500, result: 'exception', body: '' });
    expect(thrown.error).toContain('TypeError: boom in the worker');
    const rejected = await resultOf(await call('failing', '/reject'));
    expect(rejected.error).toContain('RangeError: rejected on purpose');
    const wrong = await resultOf(await call('failing', '/not-a-response'));
    expect(wrong.result).toBe('exception');
    // The worker's log says it too, tagged with its script.
    expect(harness.logs.some((entry) => entry.script === 'failing' && entry.message.includes('boom in the worker'))).toBe(true);
    // And the worker goes on serving.
    expect(await (await call('failing', '/')).text()).toBe('still here');
  });

  it('hangs with nothing left to wait for: the runtime cancels it as an exception', async () => {
    const hung = await resultOf(await call('failing', '/hang'));
    expect(hung).toMatchObject({ status: 500, result: 'exception' });
    expect(hung.error).toContain('hung');
  });

  it('spins past its CPU time: it is cut off, while another script answers meanwhile, and serves again afterwards', async () => {
    const started = Date.now();
    const spinning = call('failing', '/spin');
    await new Promise((resolve) => setTimeout(resolve, 150));
    const other = await call('healthy');
    expect([other.status, await other.text()]).toEqual([200, 'ok']);
    const answered = Date.now();
    const spun = await resultOf(await spinning);
    const cutOff = Date.now();
    expect(spun).toMatchObject({ status: 503, result: 'exceeded-resources' });
    // The other script answered while this one was still spinning.
    expect(answered).toBeLessThan(cutOff);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(harness.reports.some((line) => line.includes('exceeded its CPU time'))).toBe(true);
    expect(await (await call('failing', '/')).text()).toBe('still here');
  }, 30_000);

  it('exhausts its memory: it is cut off as the platform cuts it, and serves again afterwards', async () => {
    const exhausted = await resultOf(await call('failing', '/memory'));
    expect(exhausted).toMatchObject({ status: 503, result: 'exceeded-resources' });
    expect(await (await call('failing', '/')).text()).toBe('still here');
    expect(await (await call('healthy')).text()).toBe('ok');
  }, 30_000);

  it("a cron trigger's handler that spins is cut off, one that hangs is an exception; the worker serves after both", async () => {
    const minute = Date.parse('2026-11-28T06:00:00Z');
    expect(await harness.runtime.scheduled(ACCOUNT, 'failing', 'spin', minute)).toMatchObject({ result: 'exceeded-resources', error: 'the worker exceeded its CPU time' });
    expect(await (await call('failing', '/')).text()).toBe('still here');
    expect(await harness.runtime.scheduled(ACCOUNT, 'failing', 'hang', minute)).toMatchObject({ result: 'exception', error: expect.stringContaining('hung') });
    expect(await harness.runtime.scheduled(ACCOUNT, 'failing', 'fine', minute)).toMatchObject({ result: 'ok' });
    expect(await (await call('failing', '/')).text()).toBe('still here');
  });

  it('cannot start: its requests fail with why, the other scripts serve', async () => {
    const broken = await resultOf(await call('broken'));
    expect(broken).toMatchObject({ status: 500, result: 'exception' });
    expect(broken.error).toMatch(/cannot start/);
    expect(harness.reports.some((line) => line.startsWith('broken (version '))).toBe(true);
    expect(await (await call('healthy')).text()).toBe('ok');
  });
});
