import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidInputError,
  openPostgresStore,
  parseDatabaseUrl,
  StoreBusyError,
  type PostgresStoreOptions,
  type Store,
} from '../../src/store';
import { KNOWN_MIGRATIONS } from '../../src/store/schema/migrations';
import { freePort } from '../support/ports';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { fixtureId, ZONE_IDS } from './contract/fixtures';
import { openTransaction } from './helpers/open-transaction';

const PRO = { zone_id: ZONE_IDS.pro };
const PRO_ENTRY_POINT = fixtureId('pro-entry-point');
const FINISH = { from: ['start'], to: 'finished', old_managed_rules_enabled: false, new_managed_rules_enabled: true } as const;

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

describe('PostgreSQL engine', () => {
  const stores: Store[] = [];
  const clients: pg.Client[] = [];
  const open = async (options: PostgresStoreOptions) => {
    const store = await openPostgresStore(options);
    stores.push(store);
    return store;
  };
  const client = async (url: string) => {
    const connected = new pg.Client({ connectionString: url });
    await connected.connect();
    clients.push(connected);
    return connected;
  };
  afterEach(async () => {
    for (const connected of clients.splice(0)) await connected.end();
    for (const store of stores.splice(0)) await store.close();
  });

  it('gives integer columns 64 bits and text columns code-point order, as on SQLite', async () => {
    const url = await cluster.createDatabase();
    await open({ connectionString: url, seed: false });
    const columns = await cluster.query<{ data_type: string; collation_name: string | null; n: string }>(
      url,
      `select data_type, collation_name, count(*) as n from information_schema.columns
       where table_schema = 'public' and table_name not like 'store_migration%'
       group by data_type, collation_name order by data_type`,
    );
    expect(columns.map(({ data_type, collation_name }) => [data_type, collation_name])).toEqual([
      ['bigint', null],
      ['text', 'C'],
    ]);
  });

  it('keeps integers beyond 32 bits and answers nothing, not an error, for ids beyond them', async () => {
    const store = await open({ connectionString: await cluster.createDatabase() });
    const ruleset = await store.rulesets.update(PRO, PRO_ENTRY_POINT, {
      rules: [{ action: 'log', expression: 'true', score: 2 ** 40, score_threshold: -(2 ** 33) }],
    });
    expect(ruleset.rules[0]).toMatchObject({ score: 2 ** 40, score_threshold: -(2 ** 33) });
    expect(await store.logpushJobs.get(ZONE_IDS.pro, 2 ** 40)).toBeNull();
    expect(await store.rulesets.getVersion(PRO, PRO_ENTRY_POINT, String(Number.MAX_SAFE_INTEGER))).toBeNull();
  });

  it('refuses numbers that are not 64-bit whole numbers and text holding NUL as bad input, writing nothing', async () => {
    const store = await open({ connectionString: await cluster.createDatabase() });
    const before = await store.rulesets.get(PRO, PRO_ENTRY_POINT);
    for (const score of [1e20, 1.5]) {
      const refused = await store.rulesets
        .update(PRO, PRO_ENTRY_POINT, { rules: [{ action: 'log', expression: 'true', score }] })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InvalidInputError);
      expect((refused as Error).message).toBe('a number is not a whole number that fits in 64 bits');
    }
    const nul = await store.rulesets
      .update(PRO, PRO_ENTRY_POINT, { rules: [{ action: 'log', expression: 'true', description: 'a\u0000b' }] })
      .catch((e: unknown) => e);
    expect(nul).toBeInstanceOf(InvalidInputError);
    expect((nul as Error).message).toBe('text cannot contain the NUL character (U+0000)');
    expect(await store.rulesets.get(PRO, PRO_ENTRY_POINT)).toEqual(before);
  });

  it('seeds once when several instances start on the same empty database at once', async () => {
    const url = await cluster.createDatabase();
    const [first, ...others] = await Promise.all(Array.from({ length: 4 }, () => open({ connectionString: url })));
    expect((await first!.accounts.list()).result_info.total_count).toBe(2);
    expect((await first!.logpushJobs.list(ZONE_IDS.pro)).map((job) => job.id)).toEqual([1]);
    for (const other of others) {
      expect((await other.zones.list({}, { per_page: 50 })).result_info.total_count).toBe(7);
    }
    const [{ n }] = (await cluster.query<{ n: number }>(url, 'select count(*)::int as n from store_migration')) as [{ n: number }];
    expect(n).toBe(KNOWN_MIGRATIONS.length);
  });

  it('reports a write that waited for another writer longer than the lock timeout, and recovers', async () => {
    const url = await cluster.createDatabase();
    const store = await open({ connectionString: url, lockTimeoutMs: 50 });
    const other = await client(url);
    await other.query('begin');
    await other.query('select * from zone_waf where zone_id = $1 for update', [ZONE_IDS.business]);
    const error = await store.waf.transition(ZONE_IDS.business, FINISH).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreBusyError);
    expect((error as Error).message).toBe(
      `database ${parseDatabaseUrl(url).location}: another writer held the lock for more than 50 ms`,
    );
    await other.query('rollback');
    expect((await store.waf.getState(ZONE_IDS.business))?.migration_state).toBe('start');
    expect((await store.waf.transition(ZONE_IDS.business, FINISH)).migration_state).toBe('finished');
  });

  it('reports a pool whose connections all stayed busy, and serves again once one is free', async () => {
    const store = await open({ connectionString: await cluster.createDatabase(), maxConnections: 1, connectionTimeoutMs: 100 });
    const holding = await openTransaction(store, (tx) => tx.zones.get(ZONE_IDS.pro));
    const error = await store.zones.get(ZONE_IDS.pro).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreBusyError);
    expect((error as Error).message).toMatch(/: all 1 connections stayed busy for more than 100 ms$/);
    expect((await holding.finish())?.id).toBe(ZONE_IDS.pro);
    expect((await store.zones.get(ZONE_IDS.pro))?.id).toBe(ZONE_IDS.pro);
  });

  it('finishes the transactions under way when closed, then refuses work', async () => {
    const url = await cluster.createDatabase();
    const store = await openPostgresStore({ connectionString: url });
    const writing = await openTransaction(store, (tx) => tx.rulesets.update(PRO, PRO_ENTRY_POINT, { rules: [] }));
    const closing = store.close();
    expect((await writing.finish()).version).toBe('3');
    await closing;
    await expect(store.zones.get(ZONE_IDS.pro)).rejects.toThrow();
    const reopened = await open({ connectionString: url });
    expect((await reopened.rulesets.get(PRO, PRO_ENTRY_POINT))?.version).toBe('3');
  });

  it('names the server it cannot reach, without the password', async () => {
    const url = `postgres://someone:s3cret-pw@127.0.0.1:${await freePort()}/api`;
    const error = await openPostgresStore({ connectionString: url, connectionTimeoutMs: 2000 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^cannot connect to PostgreSQL at postgres:\/\/someone@127\.0\.0\.1:\d+\/api: /);
    expect((error as Error).message).not.toContain('s3cret-pw');
  });

  it('refuses malformed URLs and pool limits with clear errors that never repeat a password', async () => {
    const refusals: [string, string][] = [
      ['not a url s3cret', 'the database URL is not a URL; expected one like postgres://user:password@localhost:5432/api'],
      ['mysql://u:s3cret@localhost/api', 'the database URL must start with postgres:// or postgresql://, not mysql://'],
      ['postgres://u:s3cret@localhost', 'the database URL names no database; expected one like postgres://user:password@localhost:5432/api'],
      ['postgres://u:s3cret@localhost/', 'the database URL names no database; expected one like postgres://user:password@localhost:5432/api'],
      ['postgresql:///api', 'the database URL names no host; expected one like postgres://user:password@localhost:5432/api'],
    ];
    for (const [url, message] of refusals) {
      await expect(openPostgresStore({ connectionString: url })).rejects.toThrow(message);
    }
    expect(parseDatabaseUrl('postgresql:///api?host=/run/postgresql').location).toBe('postgresql:///api?host=/run/postgresql');
    expect(parseDatabaseUrl('postgres://u:s3cret@db.internal:6432/api?sslmode=require&password=other').location).toBe(
      'postgres://u@db.internal:6432/api?sslmode=require&password=***',
    );
    for (const limits of [{ maxConnections: 0 }, { idleTimeoutMs: -1 }, { connectionTimeoutMs: 1.5 }, { lockTimeoutMs: Number.NaN }]) {
      const error = await openPostgresStore({ connectionString: cluster.url('postgres'), ...limits }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toMatch(new RegExp(`^${Object.keys(limits)[0]} must be a positive whole number, got `));
    }
  });
});
