// Cron triggers end to end, as `npm start` wires them, with time driven by the test: a worker
// uploaded with the official client, its cron triggers set through the API; the edge component
// (the runtime of deployed workers following the store) fires its `scheduled` handler in workerd
// at a minute the expression names, the handler writes to its bucket, and the object is read back
// through the API. Each run is one line of the platform's log, with the worker's error when its
// handler throws and a warning for a worker without one; a new set of triggers is followed
// within the store's poll.
import { Writable } from 'node:stream';
import { toFile } from 'cloudflare';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConnectionLimits } from '../../src/http-connections';
import { startEdgeComponent, type RunningEdgeComponent } from '../../src/platform/edge-component';
import { bearer, ids, startServer, type TestServer } from '../server/harness';
import { officialClient } from '../server/official-client';
import { waitUntil } from '../support/wait';

const account_id = ids.account;
const NIGHTLY = `
export default {
  async scheduled(controller, env, ctx) {
    if (controller.cron === '0 0 * * *') throw new Error('the nightly run failed: ' + new Date(controller.scheduledTime).toISOString());
    await env.RUNS.put('runs/' + new Date(controller.scheduledTime).toISOString(), controller.cron);
  },
};
`;

let server: TestServer;
let cf: ReturnType<typeof officialClient>['cf'];
let edge: RunningEdgeComponent;
const logLines: Record<string, unknown>[] = [];

async function upload(name: string, source: string, bindings: { type: 'r2_bucket'; name: string; bucket_name: string }[] = []): Promise<void> {
  await cf.workers.scripts.update(name, {
    account_id,
    metadata: { main_module: 'index.js', compatibility_date: '2026-07-01', bindings },
    files: [await toFile(Buffer.from(source), 'index.js', { type: 'application/javascript+module' })],
  });
}

const cronLines = () => logLines.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('cron trigger'));

beforeAll(async () => {
  server = await startServer();
  cf = officialClient(server).cf;
  await server.buckets.account(account_id).create('cron-runs');
  await upload('nightly', NIGHTLY, [{ type: 'r2_bucket', name: 'RUNS', bucket_name: 'cron-runs' }]);
  await upload('plain', "export default { fetch: () => new Response('no scheduled handler') };");
  await cf.workers.scripts.schedules.update('nightly', { account_id, body: [{ cron: '*/15 * * * *' }, { cron: '0 0 * * *' }] });
  await cf.workers.scripts.schedules.update('plain', { account_id, body: [{ cron: '0 0 1 * *' }] });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  edge = await startEdgeComponent({
    settings: { port: 0, host: '127.0.0.1', portFrom: 'test', origins: [], trustedProxies: [], clients: [], logUploadMs: 1_000, cpuMs: 30_000 },
    dataDir: server.dataDir,
    databaseUrl: undefined,
    limits: defaultConnectionLimits,
    deployments: server.store.deployedWorkers,
    logger: pino({ level: 'info' }, sink),
    report: () => {},
    cron: { timer: false },
  });
}, 60_000);

afterAll(async () => {
  await edge?.close();
  await server?.stop();
});

async function objectThroughApi(key: string): Promise<{ status: number; body: string }> {
  const response = await server.fetch(`/accounts/${account_id}/r2/buckets/cron-runs/objects/${encodeURIComponent(key)}`, { headers: bearer() });
  return { status: response.status, body: await response.text() };
}

describe('cron triggers fired by the platform', () => {
  it('runs the scheduled handler in workerd at a matching minute; what it wrote is read back through the API', async () => {
    await edge.cronTriggers.tick(Date.parse('2026-11-28T06:14:00Z'));
    expect(cronLines()).toEqual([]);
    await edge.cronTriggers.tick(Date.parse('2026-11-28T06:15:00Z'));
    expect(await objectThroughApi('runs/2026-11-28T06:15:00.000Z')).toEqual({ status: 200, body: '*/15 * * * *' });
    expect(cronLines()).toEqual([
      expect.objectContaining({ level: 30, msg: 'cron trigger', script: 'nightly', cron: '*/15 * * * *', scheduledTime: '2026-11-28T06:15:00.000Z', result: 'ok', version: expect.any(String) }),
    ]);
  });

  it("logs a handler's exception with the worker's error, and a worker without a scheduled handler", async () => {
    logLines.length = 0;
    // Midnight on the 1st: every expression of both scripts matches.
    await edge.cronTriggers.tick(Date.parse('2026-12-01T00:00:00Z'));
    const key = (line: Record<string, unknown>) => `${String(line.script)} ${String(line.cron)}`;
    const lines = cronLines().sort((a, b) => (key(a) < key(b) ? -1 : 1));
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: 'cron trigger', script: 'nightly', cron: '*/15 * * * *', result: 'ok' }),
      expect.objectContaining({ level: 40, msg: 'cron trigger: the worker failed', script: 'nightly', cron: '0 0 * * *', result: 'exception', error: 'Error: the nightly run failed: 2026-12-01T00:00:00.000Z' }),
      expect.objectContaining({ level: 40, msg: 'cron trigger: the worker has no scheduled handler', script: 'plain', cron: '0 0 1 * *', result: 'no-handler' }),
    ]);
    expect(await objectThroughApi('runs/2026-12-01T00:00:00.000Z')).toEqual({ status: 200, body: '*/15 * * * *' });
  });

  it('follows a new set of triggers, and fires nothing for a deleted script', async () => {
    await cf.workers.scripts.schedules.update('nightly', { account_id, body: [{ cron: '7 6 * * SAT' }] });
    logLines.length = 0;
    await waitUntil('the new set to be followed', () => edge.cronTriggers.triggers.includes(`${account_id}/nightly: 7 6 * * SAT`));
    expect(edge.cronTriggers.triggers).toEqual([`${account_id}/nightly: 7 6 * * SAT`, `${account_id}/plain: 0 0 1 * *`]);
    await edge.cronTriggers.tick(Date.parse('2026-11-28T06:07:00Z'));
    expect(await objectThroughApi('runs/2026-11-28T06:07:00.000Z')).toEqual({ status: 200, body: '7 6 * * SAT' });
    await cf.workers.scripts.delete('plain', { account_id, force: true });
    await cf.workers.scripts.schedules.update('nightly', { account_id, body: [] });
    logLines.length = 0;
    await waitUntil('the deletion to be followed', () => edge.cronTriggers.triggers.length === 0);
    await edge.cronTriggers.tick(Date.parse('2026-12-01T00:00:00Z'));
    expect(cronLines()).toEqual([]);
  });
});
