// Where the engines differ underneath (text collation, integer width, isolation), the store
// must not: the same calls give the same answers on SQLite and on PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { fixtureId, ZONE_IDS } from './contract/fixtures';
import type { StoreHarness } from './helpers/harness';
import { postgresHarness } from './helpers/postgres-harness';
import { sqliteHarness } from './helpers/sqlite-harness';

let cluster: PostgresCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

const engines: [string, () => StoreHarness][] = [
  ['sqlite', sqliteHarness],
  [
    'postgres',
    () => {
      if (cluster === undefined) throw new Error('the PostgreSQL server did not start');
      return postgresHarness(cluster);
    },
  ],
];

const BUSINESS = { zone_id: ZONE_IDS.business };
const PRO = { zone_id: ZONE_IDS.pro };
const PRO_ENTRY_POINT = fixtureId('pro-entry-point');

describe.each(engines)('%s', (_engine, createHarness) => {
  let harness: StoreHarness;
  beforeAll(() => {
    harness = createHarness();
  });
  afterEach(async () => {
    await harness.cleanup();
    harness = createHarness();
  });

  it('orders names by code point, whatever the database locale', async () => {
    const store = await harness.fresh();
    for (const name of ['b', 'Ä', 'a-b', 'B', 'ab', 'a', 'a b']) {
      await store.rulesets.create(BUSINESS, { name, kind: 'custom', phase: 'http_request_firewall_custom' });
    }
    const ascending = await store.rulesets.list(BUSINESS, { order: 'name', per_page: 50 });
    expect(ascending.items.map((ruleset) => ruleset.name)).toEqual(['B', 'a', 'a b', 'a-b', 'ab', 'b', 'Ä']);
    const secondPage = await store.rulesets.list(BUSINESS, { order: 'name', direction: 'DESC', per_page: 3, page: 2 });
    expect(secondPage.items.map((ruleset) => ruleset.name)).toEqual(['a-b', 'a b', 'a']);
  });

  it('keeps 64-bit integers and finds nothing beyond them', async () => {
    const store = await harness.fresh();
    const ruleset = await store.rulesets.update(PRO, PRO_ENTRY_POINT, {
      rules: [{ action: 'log', expression: 'true', score: Number.MAX_SAFE_INTEGER, score_threshold: -(2 ** 40) }],
    });
    expect(ruleset.rules[0]).toMatchObject({ score: Number.MAX_SAFE_INTEGER, score_threshold: -(2 ** 40) });
    expect(await store.logpushJobs.get(ZONE_IDS.pro, 2 ** 53 - 1)).toBeNull();
    expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, String(2 ** 40))).toBeNull();
  });

  it('answers a ruleset whose rules are those of its version while writers commit', async () => {
    const store = await harness.fresh();
    const reader = await harness.reopen();
    // Version n holds n - 2 rules (the fixture is at version 2): a read mixing two commits shows.
    let writing = true;
    const writer = (async () => {
      try {
        for (let count = 1; count <= 40; count += 1) {
          const rules = Array.from({ length: count }, (_, i) => ({ action: 'log', expression: 'true', description: `r${i}` }));
          await store.rulesets.update(PRO, PRO_ENTRY_POINT, { rules });
        }
      } finally {
        writing = false; // a failed write ends the reads too, and `await writer` reports it
      }
    })();
    let reads = 0;
    while (writing) {
      const ruleset = await reader.rulesets.get(PRO, PRO_ENTRY_POINT);
      const version = Number(ruleset!.version);
      if (version > 2) expect(ruleset!.rules).toHaveLength(version - 2);
      reads += 1;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
    expect((await reader.rulesets.get(PRO, PRO_ENTRY_POINT))?.version).toBe('42');
  });
});
