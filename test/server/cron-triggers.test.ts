// A script's cron triggers through the API, with the official client (`workers.scripts.schedules`,
// unchanged) and plain requests: the set replaced whole and `[]` removing it; the platform's
// syntax accepted (names, L, W, #) and everything else refused with 10100 naming the expression
// and what is wrong, changing nothing; the account's limit (10072); a script that does not exist
// (10007); a deleted script's triggers gone; the set kept across a restart.
import { rmSync } from 'node:fs';
import { toFile } from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, ids, json, startServer, type TestServer } from './harness';
import { officialClient } from './official-client';

const account_id = ids.account;
let server: TestServer;
let cf: ReturnType<typeof officialClient>['cf'];

const SOURCE = 'export default { fetch: () => new Response("ok"), scheduled() {} };';

async function upload(name: string): Promise<void> {
  await cf.workers.scripts.update(name, {
    account_id,
    metadata: { main_module: 'index.js', compatibility_date: '2026-11-01' },
    files: [await toFile(Buffer.from(SOURCE), 'index.js', { type: 'application/javascript+module' })],
  });
}

const schedulesPath = (script: string) => `/accounts/${account_id}/workers/scripts/${script}/schedules`;

async function put(script: string, crons: string[]) {
  const response = await server.fetch(schedulesPath(script), json('PUT', crons.map((cron) => ({ cron })), bearer()));
  return { status: response.status, body: (await response.json()) as { success: boolean; result: any; errors: { code: number; message: string }[] } };
}

const cronsOf = async (script: string) => (await cf.workers.scripts.schedules.get(script, { account_id })).schedules.map((schedule) => schedule.cron);

beforeAll(async () => {
  server = await startServer();
  cf = officialClient(server).cf;
  await upload('ticker');
  await upload('other');
});

afterAll(async () => {
  await server?.stop();
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

describe('workers.scripts.schedules', () => {
  it('replaces the whole set, keeps created_on of an expression kept, and [] removes every one', async () => {
    expect(await cf.workers.scripts.schedules.get('ticker', { account_id })).toEqual({ schedules: [] });
    const first = await cf.workers.scripts.schedules.update('ticker', { account_id, body: [{ cron: '*/5 * * * *' }, { cron: '0 9 * * MON-FRI' }] });
    expect(first.schedules.map((schedule) => schedule.cron)).toEqual(['*/5 * * * *', '0 9 * * MON-FRI']);
    for (const schedule of first.schedules) {
      expect(schedule.created_on).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(schedule.modified_on).toBe(schedule.created_on);
    }
    expect(await cf.workers.scripts.schedules.get('ticker', { account_id })).toEqual(first);

    // Replaced whole: one kept (its dates too), one gone, one new; a repeated one is kept once.
    const second = await cf.workers.scripts.schedules.update('ticker', {
      account_id,
      body: [{ cron: '59 23 LW * *' }, { cron: '*/5 * * * *' }, { cron: '59 23 LW * *' }],
    });
    expect(second.schedules.map((schedule) => schedule.cron)).toEqual(['59 23 LW * *', '*/5 * * * *']);
    expect(second.schedules[1]).toEqual(first.schedules[0]);
    expect(await cronsOf('ticker')).toEqual(['59 23 LW * *', '*/5 * * * *']);

    expect(await cf.workers.scripts.schedules.update('ticker', { account_id, body: [] })).toEqual({ schedules: [] });
    expect(await cronsOf('ticker')).toEqual([]);
  });

  it("accepts the platform's syntax: names, ranges, lists, steps, L, W and #", async () => {
    const accepted = ['* * * * *', '*/30 * * * *', '0 17 * * sun', '0 17 * * 1', '10 7 * * mon-fri', '10 7 * * 2-6', '0 15 1 * *', '0 18 * * 6L', '0 18 * * friL', '0 10 * * MON#2', '0 0 L * *', '0 0 15W * *', '0 0 1 jan,JUL *', '5-55/10 0-12/3 1-15 1-6 *', '10/15 * * * *'];
    const answer = await put('ticker', accepted);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await cronsOf('ticker')).toEqual(accepted);
  });

  it('refuses what the platform refuses with 10100, naming the expression and what is wrong, and changes nothing', async () => {
    await put('ticker', ['*/5 * * * *']);
    const refused: [string, string][] = [
      ['0 22 * * 0', 'day of week "0": 0 is out of range (1-7; 1 = Sunday'],
      ['* * * *', 'it has 4 fields; a cron trigger has 5'],
      ['0 0 * * * 2026', 'it has 6 fields'],
      ['60 * * * *', 'minute "60": 60 is out of range (0-59)'],
      ['0 24 * * *', 'hour "24": 24 is out of range (0-23)'],
      ['0 0 0 * *', 'day of month "0": 0 is out of range (1-31)'],
      ['0 0 * 13 *', 'month "13": 13 is out of range (1-12)'],
      ['0 0 * FOO *', 'FOO is neither a number (1-12) nor one of JAN'],
      ['0 0 ? * *', 'day of month "?": only digits and the characters * , - / L W are allowed'],
      ['@daily', 'it has 1 field'],
      ['*/0 * * * *', 'the step after / is a whole number of at least 1'],
      ['0 0 * DEC-JAN *', 'the range DEC-JAN ends before it starts'],
      ['0 0 * * MON#6', 'the week of the month after # is 1 to 5'],
      ['0 L * * *', 'hour "L": only digits and the characters * , - / are allowed'],
      ['0 0 * * +MON', 'day of week "+MON"'],
    ];
    for (const [cron, reason] of refused) {
      // Each beside a good one: the request is refused whole.
      const answer = await put('ticker', ['0 1 * * *', cron]);
      expect(answer.status, cron).toBe(400);
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0]!.code, cron).toBe(10100);
      expect(answer.body.errors[0]!.message, cron).toContain(`invalid cron string "${cron}": `);
      expect(answer.body.errors[0]!.message, cron).toContain(reason);
    }
    await expect(cf.workers.scripts.schedules.update('ticker', { account_id, body: [{ cron: '61 * * * *' }] })).rejects.toMatchObject({ status: 400, errors: [{ code: 10100 }] });
    expect(await cronsOf('ticker')).toEqual(['*/5 * * * *']);
    // Not an array of { cron }: the document's own refusal.
    const shapeless = await server.fetch(schedulesPath('ticker'), json('PUT', { crons: ['* * * * *'] }, bearer()));
    expect(shapeless.status).toBe(400);
    expect(await cronsOf('ticker')).toEqual(['*/5 * * * *']);
  });

  it('answers 10007 for a script that does not exist', async () => {
    for (const call of [cf.workers.scripts.schedules.get('nobody', { account_id }), cf.workers.scripts.schedules.update('nobody', { account_id, body: [{ cron: '* * * * *' }] })]) {
      await expect(call).rejects.toMatchObject({ status: 404, errors: [{ code: 10007 }] });
    }
  });

  it("holds an account to 250 cron triggers over all its scripts (10072), changing nothing past it", async () => {
    const minutes = (count: number, hour: number) => Array.from({ length: count }, (_, index) => `${index % 60} ${hour + Math.floor(index / 60)} * * *`);
    expect((await put('ticker', minutes(200, 0))).status).toBe(200);
    expect((await put('other', minutes(50, 10))).status).toBe(200);
    const over = await put('other', minutes(51, 10));
    expect(over.status).toBe(400);
    expect(over.body.errors[0]).toEqual({ code: 10072, message: 'This account has reached the limit of 250 cron triggers per account: the account would hold 251.' });
    expect(await cronsOf('other')).toEqual(minutes(50, 10));
    // A script's own set is replaced, not added to.
    expect((await put('ticker', minutes(200, 5))).status).toBe(200);
  });

  it("drops a deleted script's triggers: made again under its name it has none, and the account's count is freed", async () => {
    await cf.workers.scripts.delete('ticker', { account_id, force: true });
    await expect(cf.workers.scripts.schedules.get('ticker', { account_id })).rejects.toMatchObject({ status: 404 });
    await upload('ticker');
    expect(await cronsOf('ticker')).toEqual([]);
    expect((await put('ticker', Array.from({ length: 200 }, (_, index) => `${index % 60} ${Math.floor(index / 60)} * * *`))).status).toBe(200);
  });

  it('keeps the triggers across a restart', async () => {
    await put('other', ['*/5 * * * *', '0 0 L * *']);
    const before = await cf.workers.scripts.schedules.get('other', { account_id });
    await server.stop({ keepData: true });
    server = await startServer({ dataDir: server.dataDir });
    cf = officialClient(server).cf;
    expect(await cf.workers.scripts.schedules.get('other', { account_id })).toEqual(before);
  });
});
