// Cron triggers in the store, on PostgreSQL: two platforms' schedulers over one database fire a
// (script, expression, minute) once between them (each run claimed in the database), the
// read model hands each deployed script's expressions to the runtime, and deleting a script
// drops its expressions (a script made again under its name has none).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CronTriggers } from '../../src/runtime';
import { openPostgresStore, type Store, type WorkerVersionInput } from '../../src/store';
import { startPostgres, type PostgresCluster } from '../support/postgres';

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';

const VERSION: WorkerVersionInput = {
  main_module: 'index.js',
  compatibility_date: '2026-11-01',
  compatibility_flags: [],
  bindings: [],
  modules: [{ name: 'index.js', type: 'esm', bytes: new TextEncoder().encode('export default { scheduled() {} };') }],
  keep_bindings: [],
  annotations: {},
  source: 'api',
  author_email: null,
  handlers: ['scheduled'],
};

let cluster: PostgresCluster;
const stores: Store[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
  const url = await cluster.createDatabase();
  // Two platforms on one database.
  stores.push(await openPostgresStore({ connectionString: url }), await openPostgresStore({ connectionString: url }));
  await stores[0]!.workers.uploadVersion(ACCOUNT, 'ticker', VERSION, { create: true, deploy: true });
  await stores[0]!.workers.replaceSchedules(ACCOUNT, 'ticker', ['* * * * *', '*/2 * * * *'], 250);
}, 60_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  await cluster?.stop();
});

describe('two instances on one PostgreSQL database', () => {
  it('see the expressions in the read model, and fire each (script, expression, minute) once between them', async () => {
    const fired: string[] = [];
    const schedulers = await Promise.all(
      stores.map(async (store, instance) => {
        const cron = new CronTriggers({
          fire: async (_account, script, expression, time) => {
            fired.push(`${instance} ${script} ${expression} ${new Date(time).toISOString()}`);
            return { result: 'ok', version: 'v' };
          },
          claim: (account, script, expression, minute) => store.deployedWorkers.claimScheduledRun(account, script, expression, minute),
          log: () => {},
          report: () => {},
          timer: false,
        });
        const snapshot = await store.deployedWorkers.snapshot();
        expect(snapshot.scripts.map((script) => [script.name, script.crons])).toEqual([['ticker', ['* * * * *', '*/2 * * * *']]]);
        cron.set(snapshot);
        return cron;
      }),
    );
    const minutes = ['2026-11-28T06:00:00Z', '2026-11-28T06:01:00Z', '2026-11-28T06:02:00Z'].map(Date.parse);
    // Both wake at each minute at once, several times over (as a restarted or late timer might).
    for (const minute of minutes) await Promise.all([...schedulers, ...schedulers].map((cron) => cron.tick(minute)));
    const runs = fired.map((line) => line.slice(2)).sort();
    expect(runs).toEqual([
      'ticker * * * * * 2026-11-28T06:00:00.000Z',
      'ticker * * * * * 2026-11-28T06:01:00.000Z',
      'ticker * * * * * 2026-11-28T06:02:00.000Z',
      'ticker */2 * * * * 2026-11-28T06:00:00.000Z',
      'ticker */2 * * * * 2026-11-28T06:02:00.000Z',
    ]);
  });

  it('drop a deleted script\'s expressions: made again under its name, it has none', async () => {
    const [store] = stores as [Store];
    await store.workers.deleteScript(ACCOUNT, 'ticker');
    expect(await store.workers.listSchedules(ACCOUNT, 'ticker')).toBeNull();
    await store.workers.uploadVersion(ACCOUNT, 'ticker', VERSION, { create: true, deploy: true });
    expect(await store.workers.listSchedules(ACCOUNT, 'ticker')).toEqual([]);
    expect((await store.deployedWorkers.snapshot()).scripts.map((script) => script.crons)).toEqual([[]]);
  });
});
