// Cron triggers fired in workerd: at a minute an expression names, the deployed version's
// `scheduled` handler runs with `{ cron, scheduledTime }` and its bindings (here it writes to its
// bucket); a handler that throws is reported with its error, a worker without one is reported,
// not crashed; a run another instance claimed does not run; minutes the expressions do not name
// run nothing. The timer (fake time) fires each minute once, and never a minute that passed
// while it was held up.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CronTriggers, type CronRun, type DeployedWorkers } from '../../src/runtime';
import { ACCOUNT, deployed, moduleVersion, startHarness, type Harness } from './harness';

const SCHEDULED = `
export default {
  fetch: () => new Response('fetch'),
  async scheduled(controller, env, ctx) {
    if (controller.cron === '0 * * * *') throw new RangeError('the hourly run failed');
    await env.FILES.put('runs/' + controller.scheduledTime, JSON.stringify({ cron: controller.cron, scheduledTime: controller.scheduledTime }));
  },
};
`;

// 2026-11-28 06:05 UTC, a Saturday.
const MINUTE = Date.parse('2026-11-28T06:05:00Z');

let harness: Harness;
let what: DeployedWorkers;

beforeAll(async () => {
  harness = await startHarness();
  await harness.catalogue.create('files');
  what = deployed({
    writer: moduleVersion(SCHEDULED, [{ type: 'r2_bucket', name: 'FILES', bucket_name: 'files' }]),
    plain: moduleVersion("export default { fetch: () => new Response('only fetch') };"),
  });
  what.scripts[0]!.crons = ['*/5 * * * *', '0 * * * *', '0 9 * * MON-FRI'];
  what.scripts[1]!.crons = ['*/5 * * * *'];
  await harness.runtime.apply(what);
}, 60_000);

afterAll(() => harness?.close());

function triggers(claim: (key: string) => boolean = () => true) {
  const runs: CronRun[] = [];
  const cron = new CronTriggers({
    fire: (account, script, expression, time) => harness.runtime.scheduled(account, script, expression, time),
    claim: async (account, script, expression, minute) => claim(`${account}/${script}/${expression}/${minute}`),
    log: (run) => runs.push(run),
    report: (line) => harness.reports.push(line),
    timer: false,
  });
  cron.set(what);
  return { cron, runs };
}

describe('firing in workerd', () => {
  it("runs the deployed version's scheduled handler with the cron and the minute, writing to its bucket", async () => {
    const { cron, runs } = triggers();
    await cron.tick(MINUTE + 1_234);
    const byScript = Object.fromEntries(runs.map((run) => [run.script, run]));
    expect(runs).toHaveLength(2);
    expect(byScript.writer!.outcome).toEqual({ result: 'ok', version: what.scripts[0]!.versions[0]!.version.id });
    expect(byScript.writer).toMatchObject({ account: ACCOUNT, cron: '*/5 * * * *', scheduledTime: MINUTE });
    const bucket = await harness.catalogue.open('files');
    const object = await bucket.get(`runs/${MINUTE}`);
    expect(JSON.parse(await new Response(object!.body).text())).toEqual({ cron: '*/5 * * * *', scheduledTime: MINUTE });
    // A worker without a scheduled handler is told, and keeps serving.
    expect(byScript.plain!.outcome).toEqual({ result: 'no-handler', version: what.scripts[1]!.versions[0]!.version.id });
    expect((await fetch(`${harness.url}/${ACCOUNT}/plain/`)).status).toBe(200);
  });

  it("reports a handler's exception with the worker's error, and nothing runs at minutes no expression names", async () => {
    const { cron, runs } = triggers();
    const hour = Date.parse('2026-11-28T07:00:00Z');
    await cron.tick(hour);
    const hourly = runs.find((run) => run.cron === '0 * * * *');
    expect(hourly!.outcome).toMatchObject({ result: 'exception', error: 'RangeError: the hourly run failed' });
    // 07:00 is also a five-minute mark: that one ran and wrote.
    expect(runs.map((run) => `${run.script} ${run.cron} ${run.outcome.result}`).sort()).toEqual([
      'plain */5 * * * * no-handler',
      'writer */5 * * * * ok',
      'writer 0 * * * * exception',
    ]);
    runs.length = 0;
    await cron.tick(Date.parse('2026-11-28T07:01:00Z'));
    // Saturday: the weekday expression does not match at 09:00 either.
    await cron.tick(Date.parse('2026-11-28T09:01:00Z'));
    expect(runs).toEqual([]);
    await cron.tick(Date.parse('2026-11-30T09:00:00Z'));
    expect(runs.filter((run) => run.cron === '0 9 * * MON-FRI').map((run) => run.outcome.result)).toEqual(['ok']);
  });

  it('runs nothing another instance claimed', async () => {
    const taken = new Set([`${ACCOUNT}/writer/*/5 * * * */${MINUTE + 5 * 60_000}`]);
    const { cron, runs } = triggers((key) => !taken.has(key));
    await cron.tick(MINUTE + 5 * 60_000);
    expect(runs.map((run) => run.script)).toEqual(['plain']);
    const bucket = await harness.catalogue.open('files');
    expect(await bucket.head(`runs/${MINUTE + 5 * 60_000}`)).toBeNull();
  });

  it('tells a script no longer deployed, and a claim that fails runs nothing', async () => {
    const runs: CronRun[] = [];
    const cron = new CronTriggers({
      fire: (account, script, expression, time) => harness.runtime.scheduled(account, script === 'writer' ? 'gone' : script, expression, time),
      claim: async (_account, script) => {
        if (script === 'plain') throw new Error('database out of reach');
        return true;
      },
      log: (run) => runs.push(run),
      report: () => {},
      timer: false,
    });
    cron.set(what);
    await cron.tick(MINUTE);
    expect(runs.map((run) => [run.script, run.outcome]).sort()).toEqual([
      ['plain', { result: 'claim-failed', error: 'database out of reach' }],
      ['writer', { result: 'not-deployed' }],
    ]);
  });
});

describe('the timer', () => {
  afterEach(() => vi.useRealTimers());

  it('fires each minute once at its start, and never replays minutes it was held up past', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(Date.parse('2026-11-28T06:04:30Z'));
    const fired: number[] = [];
    const cron = new CronTriggers({
      fire: async (_account, _script, _cron, time) => {
        fired.push(time);
        return { result: 'ok', version: 'v' };
      },
      claim: async () => true,
      log: () => {},
      report: () => {},
    });
    cron.set({ scripts: [{ account_id: ACCOUNT, name: 'every', workers_dev: false, versions: [{ percentage: 100, version: moduleVersion('') }], crons: ['* * * * *'] }] });
    // The minute it started in is not fired (it was due before the start).
    await vi.advanceTimersByTimeAsync(29_000);
    expect(fired).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(fired).toEqual([Date.parse('2026-11-28T06:05:00Z')]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fired).toEqual([Date.parse('2026-11-28T06:05:00Z'), Date.parse('2026-11-28T06:06:00Z')]);
    // The clock jumps ten minutes ahead (a suspended machine): the minutes it missed are not
    // replayed; the minute the timer wakes in fires.
    vi.setSystemTime(Date.parse('2026-11-28T06:16:30Z'));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fired.map((time) => new Date(time).toISOString().slice(11, 16))).toEqual(['06:05', '06:06', '06:17']);
    await cron.stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(fired).toHaveLength(3);
  });
});
