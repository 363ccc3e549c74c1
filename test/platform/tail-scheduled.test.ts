// A cron trigger's run of a tailed script is traced like a request: the runtime of deployed
// workers, as `npm start` wires it (cron time driven by the test), hands the platform a trace with
// the scheduled event (its cron and time), the handler's console output and its outcome; a script
// nobody tails hands none.
import { toFile } from 'cloudflare';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConnectionLimits } from '../../src/http-connections';
import { startEdgeComponent, type RunningEdgeComponent } from '../../src/platform/edge-component';
import type { Traces } from '../../src/runtime';
import { ids, startServer, type TestServer } from '../server/harness';
import { officialClient } from '../server/official-client';
import { waitUntil } from '../support/wait';

const account_id = ids.account;
const CRONNY = `
export default {
  async scheduled(controller) {
    console.log('tick', controller.cron);
    if (controller.cron === '0 0 * * *') throw new Error('midnight failed');
  },
};
`;

let server: TestServer;
let edge: RunningEdgeComponent;
const traces: Traces[] = [];

beforeAll(async () => {
  server = await startServer();
  const { cf } = officialClient(server);
  await cf.workers.scripts.update('cronny', {
    account_id,
    metadata: { main_module: 'index.js', compatibility_date: '2026-07-01' },
    files: [await toFile(Buffer.from(CRONNY), 'index.js', { type: 'application/javascript+module' })],
  });
  await cf.workers.scripts.schedules.update('cronny', { account_id, body: [{ cron: '*/5 * * * *' }, { cron: '0 0 * * *' }] });
  edge = await startEdgeComponent({
    settings: { port: 0, host: '127.0.0.1', portFrom: 'test', origins: [], trustedProxies: [], clients: [], logUploadMs: 1_000, cpuMs: 30_000 },
    dataDir: server.dataDir,
    databaseUrl: undefined,
    limits: defaultConnectionLimits,
    deployments: server.store.deployedWorkers,
    logger: pino({ level: 'silent' }),
    report: () => {},
    cron: { timer: false },
    onTraces: (each) => traces.push(each),
  });
  await waitUntil('the trigger to be followed', () => edge.cronTriggers.triggers.length === 2);
}, 60_000);

afterAll(async () => {
  await edge?.close();
  await server?.stop();
});

describe('a cron trigger of a tailed script', () => {
  it('is traced with its scheduled event, its logs and its outcome; untraced once nobody tails it', async () => {
    await edge.cronTriggers.tick(Date.parse('2026-11-28T06:05:00Z'));
    expect(traces).toEqual([]);
    await edge.trace(account_id, 'cronny', true);
    await edge.cronTriggers.tick(Date.parse('2026-12-01T00:00:00Z'));
    await waitUntil('both runs traced', () => traces.length === 2);
    const events: Record<string, any>[] = traces.map((each) => ({ script: each.script, account: each.account, ...each.events[0] }));
    const byCron = (cron: string) => events.find((event) => event.event?.cron === cron);
    expect(byCron('*/5 * * * *')).toMatchObject({
      account: account_id,
      script: 'cronny',
      outcome: 'ok',
      event: { cron: '*/5 * * * *', scheduledTime: Date.parse('2026-12-01T00:00:00Z') },
      logs: [{ message: ['tick', '*/5 * * * *'], level: 'log' }],
      exceptions: [],
    });
    expect(byCron('0 0 * * *')).toMatchObject({ outcome: 'exception', exceptions: [{ name: 'Error', message: 'midnight failed' }] });
    await edge.trace(account_id, 'cronny', false);
    traces.length = 0;
    await edge.cronTriggers.tick(Date.parse('2026-12-02T00:00:00Z'));
    expect(traces).toEqual([]);
  });
});
