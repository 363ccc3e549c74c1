// A write racing its bucket's deletion on PostgreSQL: as on the platform, either the write wins
// (and the deletion answers not empty) or the deletion wins (and the write answers no such
// bucket, 10006), never both. A write holding an engine resolved before the deletion (a worker's
// binding, a request under way) must not store rows under the deleted storage, where no one could
// read them: the deletion lists the storage in `bucket_storage.deleted_storages`, and every insert
// refuses a listed one.
import { tmpdir } from 'node:os';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  BucketCatalogueError,
  BucketError,
  createBucket,
  openBucketCatalogue,
  openPostgresBuckets,
  type BucketCatalogue,
  type OpenBucket,
} from '../../src/bucket';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { waitUntil } from '../support/wait';
import { after, expectConditionalPutsRefused, expectNoSuchBucket, LARGE, raceWrite } from './deletion-race';

const NO_SUCH_BUCKET = 10006;
/** Bodies above 32 KiB are received in a transaction of their own before their row is written. */

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.stop());

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((catalogue) => catalogue.close()));
});

/** A catalogue instance on `url`, as a process opens it (its own pool). */
async function catalogueOn(url: string): Promise<BucketCatalogue> {
  const catalogue = await openBucketCatalogue({ dataDir: tmpdir(), databaseUrl: url, defaults: { minimumPartSize: 1 } });
  opened.push(catalogue);
  return catalogue;
}

const count = async (url: string, sql: string, values: unknown[] = []) =>
  Number((await cluster.query<{ n: string }>(url, sql, values))[0]!.n);

/** Rows of the object tables whose storage no bucket has: what a lost write leaves. */
const orphans = (url: string, table: 'objects' | 'uploads' | 'chunks') =>
  count(url, `select count(*) as n from bucket_storage.${table} t where not exists (select 1 from bucket_storage.buckets b where b.storage = t.bucket)`);


describe('a write through an engine resolved before the deletion', () => {
  let url: string;
  let catalogue: BucketCatalogue;
  let bucket: OpenBucket;
  let storage: string;

  /** `photos`, opened (its engine resolved), then deleted through another instance. */
  async function deletedUnderneath(): Promise<void> {
    url = await cluster.createDatabase();
    catalogue = await catalogueOn(url);
    await catalogue.create('photos');
    bucket = await catalogue.open('photos');
    [{ storage }] = (await cluster.query<{ storage: string }>(url, 'select storage from bucket_storage.buckets')) as [{ storage: string }];
    await (await catalogueOn(url)).delete('photos');
  }

  test('a small put (the batched statement) is no such bucket, and stores nothing', async () => {
    await deletedUnderneath();
    await expectNoSuchBucket(bucket.put('cat.txt', 'meow'), 'put');
    // Several in one turn of the event loop: one statement for all of them.
    const many = ['a', 'b', 'c'].map((key) => bucket.put(key, key));
    for (const put of many) await expectNoSuchBucket(put, 'put');
    expect(await count(url, 'select count(*) as n from bucket_storage.objects')).toBe(0);
    expect(await cluster.query(url, 'select storage from bucket_storage.deleted_storages')).toEqual([{ storage }]);
  });

  test('a large put (its body received in a transaction first) is no such bucket, and leaves no bytes', async () => {
    await deletedUnderneath();
    await expectNoSuchBucket(bucket.put('big.bin', new Uint8Array(LARGE).fill(7)), 'put');
    expect(await count(url, 'select count(*) as n from bucket_storage.objects')).toBe(0);
    expect(await count(url, 'select count(*) as n from bucket_storage.chunks')).toBe(0);
  });

  test('a put over an object deleted before the bucket is no such bucket', async () => {
    url = await cluster.createDatabase();
    catalogue = await catalogueOn(url);
    await catalogue.create('photos');
    bucket = await catalogue.open('photos');
    await bucket.put('cat.txt', 'first');
    await bucket.delete('cat.txt');
    await (await catalogueOn(url)).delete('photos');
    await expectNoSuchBucket(bucket.put('cat.txt', 'second'), 'put');
    expect(await count(url, 'select count(*) as n from bucket_storage.objects')).toBe(0);
  });

  test('a conditional put its condition refuses is no such bucket, not a failed condition (412)', async () => {
    await deletedUnderneath();
    await catalogue.create('live');
    await expectConditionalPutsRefused(bucket, await catalogue.open('live'));
  });

  test('createMultipartUpload is no such bucket, and stores no upload', async () => {
    await deletedUnderneath();
    await expectNoSuchBucket(bucket.createMultipartUpload('movie.mp4'), 'createMultipartUpload');
    expect(await count(url, 'select count(*) as n from bucket_storage.uploads')).toBe(0);
  });

  test('a bucket created again under the same name takes writes: its storage is a new one', async () => {
    await deletedUnderneath();
    await catalogue.create('photos');
    const again = await catalogue.open('photos');
    await again.put('cat.txt', 'meow');
    expect(await (await again.get('cat.txt'))!.text()).toBe('meow');
    await expectNoSuchBucket(bucket.put('cat.txt', 'stale'), 'put');
    expect(await (await again.get('cat.txt'))!.text()).toBe('meow');
  });

  test('an engine opened without a catalogue is not concerned: no storage of its own is ever listed', async () => {
    url = await cluster.createDatabase();
    const buckets = await openPostgresBuckets({ connectionString: url });
    opened.push(buckets);
    const standalone = createBucket({ engine: buckets.storage('photos') });
    await standalone.put('cat.txt', 'meow');
    await standalone.createMultipartUpload('movie.mp4');
    expect(await (await standalone.get('cat.txt'))!.text()).toBe('meow');
  });
});

describe('a put waiting behind the deletion', () => {
  test('sees the deletion once it commits: no such bucket, nothing stored', async () => {
    const url = await cluster.createDatabase();
    const [writer, deleter] = [await catalogueOn(url), await catalogueOn(url)];
    await writer.create('photos');
    const bucket = await writer.open('photos');
    const locks = (where: string) =>
      count(url, `select count(*) as n from pg_locks where relation = 'bucket_storage.objects'::regclass and ${where}`);
    // Holding the bucket's row pauses the deletion after it took its table locks, before it commits.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query(`select 1 from bucket_storage.buckets where name = 'photos' for update`);
      const deletion = deleter.delete('photos');
      await waitUntil('the deletion to hold objects in SHARE mode', async () => (await locks(`mode = 'ShareLock' and granted`)) === 1);
      const put = bucket.put('cat.txt', 'meow');
      put.catch(() => {});
      await waitUntil('the put to wait for the deletion', async () => (await locks('not granted')) === 1);
      await blocker.query('rollback');
      await deletion;
      await expectNoSuchBucket(put, 'put');
    } finally {
      await blocker.end();
    }
    expect(await count(url, 'select count(*) as n from bucket_storage.objects')).toBe(0);
    expect(await count(url, 'select count(*) as n from bucket_storage.buckets')).toBe(0);
  });
});

describe('writes of one instance racing a deletion on another', () => {
  const ROUNDS = 24;
  const WRITES = 24;


  test('either the deletion is refused and every acknowledged write is there, or no write is acknowledged; nothing is orphaned', async () => {
    const url = await cluster.createDatabase();
    const [writer, deleter] = [await catalogueOn(url), await catalogueOn(url)];
    const seen = { deleted: 0, notEmpty: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const name = `race-${round}`;
      await writer.create(name);
      const bucket = await writer.open(name);
      // From 30 ms before the writes to 30 ms after them, the middle rounds at the same time.
      const lead = -30 + (60 * round) / (ROUNDS - 1);
      const deletion = after(Math.max(0, lead), () => deleter.delete(name)).then(
        () => 'deleted' as const,
        (error: unknown) => {
          if (error instanceof BucketCatalogueError && error.code === 10008) return 'not-empty' as const;
          throw error;
        },
      );
      const writes = await Promise.allSettled(
        Array.from({ length: WRITES }, (_, i) => after(Math.max(0, -lead) + (i % 6), () => raceWrite(bucket, i))),
      );
      const answer = await deletion;
      const acknowledged = writes.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      for (const result of writes) {
        if (result.status === 'rejected') {
          expect(result.reason).toBeInstanceOf(BucketError);
          expect((result.reason as BucketError).code).toBe(NO_SUCH_BUCKET);
        }
      }
      if (answer === 'deleted') {
        seen.deleted++;
        expect(acknowledged, `round ${round}: writes acknowledged on a bucket deleted`).toEqual([]);
      } else {
        seen.notEmpty++;
        expect(acknowledged.length, `round ${round}: a write refused though the bucket stayed`).toBe(WRITES);
        // Read through the other instance, which resolves the bucket afresh.
        const fresh = await deleter.open(name);
        for (const { key, upload } of acknowledged) {
          if (upload) continue;
          const i = Number(key.slice('key-'.length));
          const object = await fresh.get(key);
          expect(object, `round ${round}: ${key} acknowledged, then not found`).not.toBeNull();
          expect(object!.size).toBe(i % 8 === 0 ? LARGE : `value ${i}`.length);
          await object!.arrayBuffer();
        }
        const uploads = acknowledged.filter((write) => write.upload).length;
        expect(
          await count(
            url,
            `select count(*) as n from bucket_storage.uploads u join bucket_storage.buckets b on b.storage = u.bucket
             where b.name = $1 and u.state = 'active'`,
            [name],
          ),
        ).toBe(uploads);
      }
    }
    expect(await orphans(url, 'objects')).toBe(0);
    expect(await orphans(url, 'uploads')).toBe(0);
    expect(await orphans(url, 'chunks')).toBe(0);
    // The rounds at either end decide the race one way each; the middle ones go either way.
    expect(seen.deleted).toBeGreaterThan(0);
    expect(seen.notEmpty).toBeGreaterThan(0);
  }, 60_000);
});

describe('schema', () => {
  test('a database of the previous version (bucket migrations up to 0003) is brought to 0004, its buckets kept', async () => {
    const url = await cluster.createDatabase();
    const before = await catalogueOn(url);
    await before.create('photos');
    await before.create('old');
    await (await before.open('photos')).put('cat.txt', 'meow');
    await before.close();
    opened.splice(opened.indexOf(before), 1);
    // The database as that version left it: what 0004 and 0005 add, taken away.
    await cluster.query(url, 'drop table bucket_storage.deleted_storages');
    for (const table of ['objects', 'uploads']) await cluster.query(url, `alter table bucket_storage.${table} drop column encryption`);
    await cluster.query(url, 'alter table bucket_storage.parts drop column iv');
    await cluster.query(url, `delete from bucket_storage.migration where name in ('0004_deleted_storages', '0005_customer_keys')`);
    const catalogue = await catalogueOn(url);
    expect(await cluster.query(url, 'select name from bucket_storage.migration order by name')).toEqual([
      { name: '0001_initial' },
      { name: '0002_catalogue' },
      { name: '0003_flexible_checksums' },
      { name: '0004_deleted_storages' },
      { name: '0005_customer_keys' },
    ]);
    expect(await (await (await catalogue.open('photos')).get('cat.txt'))!.text()).toBe('meow');
    const stale = await catalogue.open('old');
    await catalogue.delete('old');
    expect(await count(url, 'select count(*) as n from bucket_storage.deleted_storages')).toBe(1);
    await expectNoSuchBucket(stale.put('k', 'v'), 'put');
  });
});
