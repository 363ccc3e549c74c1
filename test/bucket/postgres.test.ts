// What only the PostgreSQL engine promises: instances in several processes on one database see
// each other's writes at once and race fairly, a killed process loses nothing acknowledged and
// leaves nothing half-written, the bytes of replaced objects stay for the reads that need them and
// go after, and the bucket tables migrate as the API store's do.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  BucketSchemaTooNewError,
  createBucket,
  openPostgresBuckets,
  type OpenBucket,
  type PostgresBuckets,
  type PostgresBucketsOptions,
  type RuntimeOptions,
} from '../../src/bucket';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { runChild, startChild } from './child-process';
import { md5 } from './engines';

/** The platform's default rule: unfinished uploads are aborted after 7 days. */
const DEFAULT_ABORT_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const MiB = 1024 * 1024;

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

const instances: PostgresBuckets[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((instance) => instance.close()));
});

/** An instance of the bucket storage on `url`, as a process would open it. */
async function instance(url: string, options: Omit<PostgresBucketsOptions, 'connectionString'> = {}): Promise<PostgresBuckets> {
  const opened = await openPostgresBuckets({ connectionString: url, ...options });
  instances.push(opened);
  return opened;
}

/** The bucket the child processes open (`shared`), through an instance of this process. */
const shared = (on: PostgresBuckets, options: RuntimeOptions = {}): OpenBucket =>
  createBucket({ engine: on.storage('shared'), minimumPartSize: 1, ...options });

const count = async (url: string, sql: string) => Number((await cluster.query<{ n: string }>(url, sql))[0]!.n);

/** Waits until no connection of the database is inside a transaction (a killed writer's is rolled back). */
async function noOpenTransaction(url: string): Promise<void> {
  const database = new URL(url).pathname.slice(1);
  for (let waited = 0; ; waited += 50) {
    const open = await count(
      url,
      `select count(*) as n from pg_stat_activity where datname = '${database}' and state like 'idle in transaction%'`,
    );
    if (open === 0) return;
    if (waited > 10_000) throw new Error(`${open} transactions still open after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('instances in several processes on one database', () => {
  test('a write through one is read through another at once, both ways', async () => {
    const url = await cluster.createDatabase();
    const bucket = shared(await instance(url));
    await bucket.put('from-parent', 'parent wrote this');
    expect(await runChild('read', url, 'from-parent')).toEqual(['parent wrote this']);
    const [etag] = await runChild('put', url, 'from-child', 'child wrote this');
    expect((await bucket.head('from-child'))!.etag).toBe(etag);
    expect(await (await bucket.get('from-child'))!.text()).toBe('child wrote this');
  });

  test('processes racing to create one key: exactly one wins and its value is stored', async () => {
    const url = await cluster.createDatabase();
    await instance(url); // the tables exist before the race
    const racers = ['one', 'two', 'three', 'four'];
    const outcomes = await Promise.all(racers.map((value) => runChild('create-if-absent', url, 'k', value)));
    const winners = racers.filter((_, i) => outcomes[i]![0] === 'won');
    expect(winners).toHaveLength(1);
    expect(outcomes.flat().filter((line) => line === 'lost')).toHaveLength(3);
    expect(await (await shared(await instance(url)).get('k'))!.text()).toBe(winners[0]);
  });

  test('compare-and-swap increments from three processes lose no update', async () => {
    const url = await cluster.createDatabase();
    const bucket = shared(await instance(url));
    await bucket.put('counter', '0');
    await Promise.all([1, 2, 3].map(() => runChild('increment', url, 'counter', '10')));
    expect(await (await bucket.get('counter'))!.text()).toBe('30');
  });

  test('a multipart upload started in one process takes parts from another and is completed by a third', async () => {
    const url = await cluster.createDatabase();
    const bucket = shared(await instance(url));
    const [uploadId] = await runChild('create-upload', url, 'assembled');
    const part1 = JSON.parse((await runChild('upload-part', url, 'assembled', uploadId!, '1', 'first '))[0]!);
    const part2 = await bucket.resumeMultipartUpload('assembled', uploadId!).uploadPart(2, 'second');
    expect((await bucket.listMultipartUploads()).map((upload) => upload.uploadId)).toEqual([uploadId]);
    const [etag] = await runChild('complete-upload', url, 'assembled', uploadId!, JSON.stringify([part1, part2]));
    expect(etag).toMatch(/^[0-9a-f]{32}-2$/);
    const stored = (await bucket.get('assembled'))!;
    expect(stored.etag).toBe(etag);
    expect(await stored.text()).toBe('first second');
    expect(await bucket.listMultipartUploads()).toEqual([]);
  });

  test('a list cursor from one process resumes the listing in another', async () => {
    const url = await cluster.createDatabase();
    const bucket = shared(await instance(url));
    for (const key of ['a', 'b', 'c', 'd', 'e']) await bucket.put(key, key);
    const first = await bucket.list({ limit: 2 });
    expect(first.truncated && first.objects.map((o) => o.key)).toEqual(['a', 'b']);
    const [line] = await runChild('list-page', url, '2', first.truncated ? first.cursor : '');
    const second = JSON.parse(line!) as { keys: string[]; cursor: string };
    expect(second.keys).toEqual(['c', 'd']);
    const third = await bucket.list({ limit: 2, cursor: second.cursor });
    expect(third.objects.map((o) => o.key)).toEqual(['e']);
    expect(third.truncated).toBe(false);
  });

  test('expired uploads are aborted once, whichever instances ask at the same time', async () => {
    const url = await cluster.createDatabase();
    const now = Date.now();
    const creator = shared(await instance(url), { clock: () => now });
    for (const key of ['x', 'y', 'z']) {
      const upload = await creator.createMultipartUpload(key);
      await upload.uploadPart(1, `${key}1`);
      await upload.uploadPart(2, `${key}2`);
    }
    const later = { clock: () => now + DEFAULT_ABORT_AGE_MS + 1 };
    const [a, b] = [shared(await instance(url), later), shared(await instance(url), later)];
    const seen = await Promise.all([a.listMultipartUploads(), b.listMultipartUploads(), a.listMultipartUploads()]);
    expect(seen).toEqual([[], [], []]);
    expect(await cluster.query(url, 'select state, count(*)::int as n from bucket_storage.uploads group by state')).toEqual([
      { state: 'aborted', n: 3 },
    ]);
    // Each part's body was dropped exactly once (a second abort would find no part left).
    expect(await count(url, 'select count(*) as n from bucket_storage.parts')).toBe(0);
    expect(await count(url, 'select count(*) as n from bucket_storage.dropped_bodies')).toBe(6);
  });
});

describe('crashes', () => {
  test('a process killed mid-upload leaves the previous object intact, and its unfinished body is gone', async () => {
    const url = await cluster.createDatabase();
    const bucket = shared(await instance(url));
    const previous = Buffer.alloc(300_000, 7);
    const before = await bucket.put('k', previous, { customMetadata: { generation: '1' } });

    const writer = startChild('put-forever', url, 'k');
    await writer.line((line) => line === 'streaming');
    writer.process.kill('SIGKILL');
    expect((await writer.exited()).signal).toBe('SIGKILL');

    const read = (await bucket.get('k'))!;
    expect(read).toMatchObject({ etag: before.etag, version: before.version, customMetadata: { generation: '1' } });
    expect(Buffer.from(await read.arrayBuffer()).equals(previous)).toBe(true);
    // PostgreSQL rolled back the dead writer's transaction: only the committed body's chunks are left.
    await noOpenTransaction(url);
    expect(await cluster.query(url, 'select count(distinct body)::int as bodies, sum(length(bytes))::int as bytes from bucket_storage.chunks')).toEqual([
      { bodies: 1, bytes: 300_000 },
    ]);
    expect((await bucket.list()).objects.map((o) => o.key)).toEqual(['k']);
  });

  test('writes acknowledged before a kill are all there afterwards', async () => {
    const url = await cluster.createDatabase();
    const writer = startChild('put-and-hang', url, 'k');
    const acknowledged = JSON.parse(await writer.line()) as { small: string; large: string };
    writer.process.kill('SIGKILL');
    await writer.exited();

    const bucket = shared(await instance(url));
    expect(await (await bucket.get('k-small'))!.text()).toBe('acknowledged');
    expect((await bucket.head('k-small'))!.etag).toBe(acknowledged.small);
    expect(md5(await (await bucket.get('k-large'))!.bytes())).toBe(acknowledged.large);
  });

  test('a process killed while uploading a part leaves the upload with the parts stored before', async () => {
    const url = await cluster.createDatabase();
    const bucket = shared(await instance(url));
    const upload = await bucket.createMultipartUpload('m');
    const part1 = await upload.uploadPart(1, 'stored before');

    const writer = startChild('part-forever', url, 'm', upload.uploadId);
    await writer.line((line) => line === 'streaming');
    writer.process.kill('SIGKILL');
    await writer.exited();

    await noOpenTransaction(url);
    const { parts } = await bucket.listParts('m', upload.uploadId);
    expect(parts.map((part) => [part.partNumber, part.size])).toEqual([[1, 13]]);
    const part2 = await upload.uploadPart(2, '!');
    await upload.complete([part1, part2]);
    expect(await (await bucket.get('m'))!.text()).toBe('stored before!');
  });
});

describe('the bytes of replaced and deleted objects', () => {
  test('stay whole for a read under way, then the sweep reclaims them', async () => {
    const url = await cluster.createDatabase();
    const [reading, writing] = [await instance(url), await instance(url)];
    const reader = shared(reading, { minimumPartSize: 5 * MiB });
    const writer = shared(writing);
    const original = Buffer.alloc(12 * MiB).map((_, i) => i % 253);
    await reader.put('single', original);
    const upload = await reader.createMultipartUpload('multi');
    await upload.complete([
      await upload.uploadPart(1, original.subarray(0, 6 * MiB)),
      await upload.uploadPart(2, original.subarray(6 * MiB)),
    ]);
    for (const key of ['single', 'multi']) {
      const stream = (await reader.get(key))!.body.getReader();
      const first = await stream.read();
      await writer.put(key, 'replaced');
      await writer.delete(key);
      // Dropped moments ago: a sweep leaves them to the reads that may still want them.
      expect(await reading.sweep()).toBe(0);
      const chunks = [first.value!];
      for (let r = await stream.read(); !r.done; r = await stream.read()) chunks.push(r.value);
      expect(Buffer.concat(chunks).equals(original), key).toBe(true);
    }
    // Once they have waited long enough (here: a millisecond), they go.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const impatient = await instance(url, { retainDroppedMs: 1 });
    expect(await impatient.sweep()).toBe(3);
    expect(await count(url, 'select count(*) as n from bucket_storage.chunks')).toBe(0);
    expect(await count(url, 'select count(*) as n from bucket_storage.dropped_bodies')).toBe(0);
  });

  test('a read that stops for longer than they are kept fails with a message saying so', async () => {
    const url = await cluster.createDatabase();
    const bucket = shared(await instance(url));
    await bucket.put('k', Buffer.alloc(12 * MiB, 3));
    const stream = (await bucket.get('k'))!.body.getReader();
    await stream.read();
    await bucket.delete('k');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await (await instance(url, { retainDroppedMs: 1 })).sweep()).toBe(1);
    const rest = (async () => {
      for (let r = await stream.read(); !r.done; r = await stream.read());
    })();
    await expect(rest).rejects.toThrow(
      'The object being read was replaced or deleted, and its bytes were reclaimed before this read went on. Read it again.',
    );
  });
});

describe('one database, many buckets', () => {
  test('buckets share the tables and see only their own objects and uploads', async () => {
    const url = await cluster.createDatabase();
    const storage = await instance(url);
    const [one, two] = [createBucket({ engine: storage.storage('one') }), createBucket({ engine: storage.storage('two') })];
    await one.put('k', 'in one');
    await two.put('k', Buffer.alloc(100_000, 2));
    await two.createMultipartUpload('u');
    expect(await (await one.get('k'))!.text()).toBe('in one');
    expect((await two.head('k'))!.size).toBe(100_000);
    expect((await one.list()).objects.map((o) => o.size)).toEqual([6]);
    expect(await one.listMultipartUploads()).toEqual([]);
    await one.delete('k');
    expect(await one.head('k')).toBeNull();
    expect((await two.head('k'))!.size).toBe(100_000);
    expect(await cluster.query(url, 'select bucket, count(*)::int as n from bucket_storage.objects group by bucket')).toEqual([
      { bucket: 'two', n: 1 },
    ]);
  });
});

describe('requests of one turn', () => {
  test('small puts and gets made together share statements and each keeps its meaning', async () => {
    const url = await cluster.createDatabase();
    const bucket = shared(await instance(url));
    await bucket.put('existing', 'before');
    const keys = Array.from({ length: 150 }, (_, i) => `k${i}`);
    // New keys, an existing key, one key twice and a create-only-if-absent that must lose, at once.
    const written = await Promise.all([
      ...keys.map((key) => bucket.put(key, `value of ${key}`)),
      bucket.put('existing', 'after'),
      bucket.put('twice', 'first'),
      bucket.put('twice', 'second'),
      bucket.put('existing', 'never', { onlyIf: { etagDoesNotMatch: '*' } }),
    ]);
    expect(written.slice(0, -1).every((result) => result !== null)).toBe(true);
    expect(written.at(-1)).toBeNull();
    const read = await Promise.all([...keys, 'existing', 'twice', 'absent'].map((key) => bucket.get(key)));
    expect(await Promise.all(read.slice(0, keys.length).map((object) => object!.text()))).toEqual(keys.map((key) => `value of ${key}`));
    expect(await read[keys.length]!.text()).toBe('after');
    const twice = read[keys.length + 1]!;
    expect(['first', 'second']).toContain(await twice.text());
    expect([written[keys.length + 1]!.etag, written[keys.length + 2]!.etag]).toContain(twice.etag);
    expect(read.at(-1)).toBeNull();
    expect(await count(url, 'select count(*) as n from bucket_storage.objects')).toBe(keys.length + 2);
  });
});

describe('schema and connection', () => {
  test('instances opening a new database together create the bucket tables once', async () => {
    const url = await cluster.createDatabase();
    await Promise.all([instance(url), instance(url), instance(url)]);
    expect(await cluster.query(url, 'select name from bucket_storage.migration order by name')).toEqual([
      { name: '0001_initial' },
      { name: '0002_catalogue' },
      { name: '0003_flexible_checksums' },
      { name: '0004_deleted_storages' },
      { name: '0005_customer_keys' },
    ]);
  });

  test('an instance refuses a database migrated by a newer version, naming what it does not know', async () => {
    const url = await cluster.createDatabase();
    await (await instance(url)).close();
    await cluster.query(url, `insert into bucket_storage.migration (name, timestamp) values ('0003_from_the_future', 'later')`);
    const refused = openPostgresBuckets({ connectionString: url });
    await expect(refused).rejects.toBeInstanceOf(BucketSchemaTooNewError);
    await expect(refused).rejects.toThrow(
      `database ${url} has bucket schema migrations this version does not know (0003_from_the_future); it was written by a newer version. Upgrade the toolkit or point it at another database.`,
    );
  });

  test('a database of the previous version (bucket migrations up to 0004) is brought to 0005: its objects read, new ones may be encrypted', async () => {
    const url = await cluster.createDatabase();
    const before = await instance(url);
    await shared(before).put('plain.txt', 'as before');
    const upload = await shared(before).createMultipartUpload('going-on');
    const part = await upload.uploadPart(1, 'part from before');
    await before.close();
    instances.splice(instances.indexOf(before), 1);
    // The database as the previous version left it: what 0005 adds, taken away.
    for (const table of ['objects', 'uploads']) await cluster.query(url, `alter table bucket_storage.${table} drop column encryption`);
    await cluster.query(url, 'alter table bucket_storage.parts drop column iv');
    await cluster.query(url, `delete from bucket_storage.migration where name = '0005_customer_keys'`);
    const after = shared(await instance(url));
    expect(await (await after.get('plain.txt'))!.text()).toBe('as before');
    await after.resumeMultipartUpload('going-on', upload.uploadId).complete([part]);
    expect(await (await after.get('going-on'))!.text()).toBe('part from before');
    const key = 'ab'.repeat(32);
    await after.put('secret.txt', 'encrypted now', { ssecKey: key });
    expect(await (await after.get('secret.txt', { ssecKey: key }))!.text()).toBe('encrypted now');
  });

  test('a database that does not answer is named, without its password', async () => {
    const url = `postgres://someone:s3cret@127.0.0.1:${cluster.port}/no_such_database`;
    const refused = openPostgresBuckets({ connectionString: url });
    await expect(refused).rejects.toThrow(
      `cannot connect to PostgreSQL at postgres://someone@127.0.0.1:${cluster.port}/no_such_database: `,
    );
    await expect(refused).rejects.not.toThrow('s3cret');
  });

  test('options are checked', async () => {
    await expect(openPostgresBuckets({})).rejects.toThrow('openPostgresBuckets takes either connectionString or pool.');
    await expect(openPostgresBuckets({ connectionString: 'mysql://db/x' })).rejects.toThrow(
      'the database URL must start with postgres:// or postgresql://, not mysql://',
    );
    await expect(openPostgresBuckets({ connectionString: cluster.url('postgres'), maxConnections: 0 })).rejects.toThrow(
      'maxConnections must be a positive whole number, not 0.',
    );
    const storage = await instance(await cluster.createDatabase());
    expect(() => storage.storage('')).toThrow('A bucket name must be a non-empty string.');
  });
});
