// What only the catalogue on PostgreSQL does: its table comes with the bucket tables' migrations
// (a newer database is refused), opening it from a bad URL or an unreachable server is a one-line
// BucketStorageError, and the look for expired objects of a bucket used by several instances is
// taken by one of them per minute.
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { BucketStorageError, openBucketCatalogue, type BucketCatalogue } from '../../src/bucket';
import { startPostgres, type PostgresCluster } from '../support/postgres';

const MINUTE = 60_000;
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.stop());

const opened: BucketCatalogue[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((catalogue) => catalogue.close()));
});

async function catalogueOn(databaseUrl: string, clock?: () => number): Promise<BucketCatalogue> {
  const catalogue = await openBucketCatalogue({ dataDir: tmpdir(), databaseUrl, ...(clock ? { defaults: { clock } } : {}) });
  opened.push(catalogue);
  return catalogue;
}

describe('schema', () => {
  test('the catalogue table is a migration of the bucket tables; a newer database is refused', async () => {
    const url = await cluster.createDatabase();
    await (await openBucketCatalogue({ dataDir: tmpdir(), databaseUrl: url })).close();
    expect(await cluster.query(url, 'select name from bucket_storage.migration order by name')).toEqual([
      { name: '0001_initial' },
      { name: '0002_catalogue' },
      { name: '0003_flexible_checksums' },
      { name: '0004_deleted_storages' },
      { name: '0005_customer_keys' },
    ]);
    await cluster.query(url, `insert into bucket_storage.migration (name, timestamp) values ('9999_later', 'later')`);
    const refused = openBucketCatalogue({ dataDir: tmpdir(), databaseUrl: url });
    await expect(refused).rejects.toBeInstanceOf(BucketStorageError);
    await expect(refused).rejects.toThrow(`database ${url} has bucket schema migrations this version does not know (9999_later)`);
  });

  test('buckets, settings and storage names are rows an operator can read', async () => {
    const url = await cluster.createDatabase();
    const catalogue = await catalogueOn(url);
    await catalogue.create('photos', { locationHint: 'weur' });
    await catalogue.account().setCors('photos', [{ allowed: { origins: ['*'], methods: ['GET'] } }]);
    const [row] = await cluster.query(url, 'select account, name, storage, location, cors::text as cors, lifecycle from bucket_storage.buckets');
    expect(row).toMatchObject({
      account: '023e105f4ecef8ad9ca31a8372d0c353',
      name: 'photos',
      location: 'weur',
      cors: '[{"allowed":{"origins":["*"],"methods":["GET"]}}]',
      lifecycle: null,
    });
    expect((row as { storage: string }).storage).toMatch(/^023e105f4ecef8ad9ca31a8372d0c353\/photos\/[0-9a-f]{12}$/);
  });
});

describe('opening', () => {
  test('a malformed URL and an unreachable server are BucketStorageErrors naming the database without its password', async () => {
    const malformed = openBucketCatalogue({ dataDir: tmpdir(), databaseUrl: 'postgres://db', databaseUrlName: 'DATABASE_URL' });
    await expect(malformed).rejects.toBeInstanceOf(BucketStorageError);
    await expect(malformed).rejects.toThrow('DATABASE_URL names no database; expected one like postgres://user:password@localhost:5432/api');
    const unreachable = openBucketCatalogue({ dataDir: tmpdir(), databaseUrl: 'postgres://me:s3cret@127.0.0.1:1/x' });
    await expect(unreachable).rejects.toThrow(
      new BucketStorageError('cannot connect to PostgreSQL at postgres://me@127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1'),
    );
  });

  test('without a URL the data directory keeps the buckets', async () => {
    const catalogue = await openBucketCatalogue({ dataDir: `${tmpdir()}/no-database-${process.pid}`, databaseUrl: '' });
    opened.push(catalogue);
    expect(catalogue.location).toBe(`${tmpdir()}/no-database-${process.pid}`);
  });
});

describe('object expiry shared by instances', () => {
  test('of two instances using a bucket, one looks for expired objects per minute', async () => {
    const url = await cluster.createDatabase();
    let now = Date.parse('2026-03-01T00:00:00Z');
    const clock = () => now;
    const [one, two] = [await catalogueOn(url, clock), await catalogueOn(url, clock)];
    await one.create('logs');
    await one.account().setLifecycle('logs', [
      { id: 'old', enabled: true, conditions: { prefix: '' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 60 } } },
    ]);
    const [a, b] = [await one.open('logs'), await two.open('logs')];
    const at = (seconds: number) => (now = start + seconds * 1000);
    const start = now;
    // Reads and lists look for expired objects (at most once a minute per instance); puts do not.
    await a.put('k1', 'x');
    expect(await a.head('k1')).not.toBeNull(); // a looks at 0 s: nothing has expired
    at(35);
    await b.put('k2', 'y');
    at(90);
    expect(await b.head('k1')).toBeNull(); // b looks, 90 s after a: k1 (90 s old) goes, k2 (55 s) stays
    at(100);
    // a has not looked for 100 s, but b looked 10 s ago: a does not look, and k2 (65 s old) stays.
    expect(await a.head('k2')).not.toBeNull();
    at(160);
    expect(await a.head('k2')).toBeNull();
    const [sweep] = await cluster.query<{ last_at: string }>(url, 'select last_at from bucket_storage.object_sweeps');
    expect(Number(sweep!.last_at)).toBe(now);
  });
});
