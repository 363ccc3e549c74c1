// The bucket runtime of several processes on one PostgreSQL database, each started as a user
// starts it: two S3 endpoints, two worker hosts, `npm run bucket` and the management API, all
// given the same DATABASE_URL (or --database-url). What one writes the others read at once; of
// conditional writes racing from two endpoints exactly one wins; a multipart upload begun on one
// endpoint is completed on the other; an endpoint killed mid-upload loses nothing it acknowledged;
// a bucket created through the API is one the S3 endpoints serve.
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import Cloudflare from 'cloudflare';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { HOME_ACCOUNT_ID } from '../../src/bucket';
import { signedHeaders } from '../s3/raw-requests';
import { ACCESS_KEY_ID, SECRET } from '../s3/support';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { COMMAND_TEST_TIMEOUT_MS, runCommand, startHost, type Host } from '../worker/commands';
import { instanceToken, startInstance, type Instance } from './instances';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

// The keys the hand-signed requests of the S3 tests are signed with.
const KEY_ID = ACCESS_KEY_ID;
const KEYS = { S3_ACCESS_KEY_ID: KEY_ID, S3_SECRET_ACCESS_KEY: SECRET };
const MiB = 1024 * 1024;
const WORKER = join(import.meta.dirname, 'fixtures', 'objects-worker.ts');

let cluster: PostgresCluster;
let databaseUrl: string;
let dataDir: string;
let s3a: Host;
let s3b: Host;
let workerA: Host;
let workerB: Host;
const clients: S3Client[] = [];

const client = (host: Host) => {
  const s3 = new S3Client({
    endpoint: host.url,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
    maxAttempts: 1,
  });
  clients.push(s3);
  return s3;
};

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');
const text = async (s3: S3Client, Key: string, Bucket = 'shared') =>
  (await s3.send(new GetObjectCommand({ Bucket, Key }))).Body!.transformToString();

/** The HTTP status of a refused S3 call (an answered one is 200). */
const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: unknown) => {
      if (error instanceof S3ServiceException) return error.$metadata.httpStatusCode;
      throw error;
    },
  );

beforeAll(async () => {
  cluster = await startPostgres();
  databaseUrl = await cluster.createDatabase('buckets');
  // Nothing is kept here: every process is given the database.
  dataDir = mkdtempSync(join(tmpdir(), 'buckets-on-postgres-'));
  const created = await runCommand('bucket', ['create', 'shared', '--database-url', databaseUrl, '--data-dir', dataDir]);
  expect(created.code).toBe(0);
  expect(created.stdout).toContain(`\nCreated bucket shared in ${databaseUrl}\n`);
  const config = join(dataDir, 'wrangler.toml');
  writeFileSync(config, `name = "objects"\nmain = "${WORKER}"\n[[r2_buckets]]\nbinding = "BUCKET"\nbucket_name = "shared"\n`);
  // One endpoint and one host take the URL from the environment, the others from the option.
  [s3a, s3b, workerA, workerB] = await Promise.all([
    startHost(['--port', '0', '--data-dir', dataDir], { ...KEYS, DATABASE_URL: databaseUrl }, 's3'),
    startHost(['--port', '0', '--data-dir', dataDir, '--database-url', databaseUrl], KEYS, 's3'),
    startHost(['--config', config, '--port', '0', '--data-dir', dataDir], { DATABASE_URL: databaseUrl }),
    startHost(['--config', config, '--port', '0', '--data-dir', dataDir, '--database-url', databaseUrl]),
  ]);
});

afterAll(async () => {
  for (const s3 of clients) s3.destroy();
  await Promise.all([s3a, s3b, workerA, workerB].map((host) => host?.stop()));
  await cluster?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('two S3 endpoints and two worker hosts on one database', () => {
  test('they announce the database, without a password, and keep nothing in the data directory', async () => {
    expect(s3a.output.stdout).toContain(`S3 endpoint for the buckets of ${databaseUrl}\n`);
    const listed = await runCommand('bucket', ['list', '--data-dir', dataDir], { DATABASE_URL: databaseUrl });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/\nshared\t\d{4}-\d\d-\d\dT[\d:.]+Z\n$/);
    // Without the database the data directory's own (empty) catalogue answers.
    expect((await runCommand('bucket', ['list', '--data-dir', dataDir], { DATABASE_URL: '' })).stderr).toContain(`No buckets in ${dataDir}\n`);
  });

  test('an object put through one endpoint is read through the other at once', async () => {
    const [a, b] = [client(s3a), client(s3b)];
    for (let i = 0; i < 5; i++) {
      await a.send(new PutObjectCommand({ Bucket: 'shared', Key: `from-a/${i}`, Body: `a wrote ${i}` }));
      expect(await text(b, `from-a/${i}`)).toBe(`a wrote ${i}`);
      await b.send(new PutObjectCommand({ Bucket: 'shared', Key: `from-a/${i}`, Body: `b replaced ${i}` }));
      expect(await text(a, `from-a/${i}`)).toBe(`b replaced ${i}`);
    }
    const listed = await a.send(new ListObjectsV2Command({ Bucket: 'shared', Prefix: 'from-a/', MaxKeys: 2 }));
    const rest = await b.send(new ListObjectsV2Command({ Bucket: 'shared', Prefix: 'from-a/', ContinuationToken: listed.NextContinuationToken! }));
    expect([...listed.Contents!, ...rest.Contents!].map((object) => object.Key)).toEqual(['from-a/0', 'from-a/1', 'from-a/2', 'from-a/3', 'from-a/4']);
  });

  test('what a worker stores the S3 endpoints read, and the other worker reads what S3 stored', async () => {
    const put = await fetch(`${workerA.url}/by-worker`, { method: 'PUT', body: 'stored by worker a' });
    expect(put.status).toBe(200);
    const etag = await put.text();
    const got = await client(s3b).send(new GetObjectCommand({ Bucket: 'shared', Key: 'by-worker' }));
    expect(got.ETag).toBe(`"${etag}"`);
    expect(await got.Body!.transformToString()).toBe('stored by worker a');
    await client(s3a).send(new PutObjectCommand({ Bucket: 'shared', Key: 'by-s3', Body: 'stored through s3 a' }));
    const read = await fetch(`${workerB.url}/by-s3`);
    expect(await read.text()).toBe('stored through s3 a');
  });

  test('If-None-Match: * racing from both endpoints: exactly one wins each key, and its body is stored', async () => {
    const [a, b] = [client(s3a), client(s3b)];
    for (let round = 0; round < 6; round++) {
      const Key = `race/${round}`;
      const statuses = await Promise.all(
        [a, b].map((s3, i) => statusOf(s3.send(new PutObjectCommand({ Bucket: 'shared', Key, Body: `writer ${i}`, IfNoneMatch: '*' })))),
      );
      expect(statuses.toSorted()).toEqual([200, 412]);
      expect(await text(b, Key)).toBe(`writer ${statuses.indexOf(200)}`);
    }
  });

  test('a multipart upload begun on one endpoint is completed on the other', async () => {
    const [a, b] = [client(s3a), client(s3b)];
    const first = Buffer.alloc(5 * MiB, 7);
    const last = Buffer.from('the last part, uploaded elsewhere');
    const { UploadId } = await a.send(new CreateMultipartUploadCommand({ Bucket: 'shared', Key: 'assembled' }));
    const one = await a.send(new UploadPartCommand({ Bucket: 'shared', Key: 'assembled', UploadId, PartNumber: 1, Body: first }));
    const two = await b.send(new UploadPartCommand({ Bucket: 'shared', Key: 'assembled', UploadId, PartNumber: 2, Body: last }));
    await b.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'shared',
        Key: 'assembled',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: one.ETag }, { PartNumber: 2, ETag: two.ETag }] },
      }),
    );
    const got = await a.send(new GetObjectCommand({ Bucket: 'shared', Key: 'assembled' }));
    const bytes = await got.Body!.transformToByteArray();
    expect(bytes.byteLength).toBe(first.byteLength + last.byteLength);
    expect(md5(bytes)).toBe(md5(Buffer.concat([first, last])));
    expect(got.ETag).toMatch(/-2"$/);
  });

  test('an endpoint killed mid-upload loses nothing it acknowledged and leaves nothing half-written', async () => {
    const doomed = await startHost(['--port', '0', '--data-dir', dataDir, '--database-url', databaseUrl], KEYS, 's3');
    const s3 = client(doomed);
    const acknowledged: string[] = [];
    for (let i = 0; i < 10; i++) {
      await s3.send(new PutObjectCommand({ Bucket: 'shared', Key: `kept/${i}`, Body: Buffer.alloc(40_000 + i, i) }));
      acknowledged.push(`kept/${i}`);
    }
    // A 64 MiB put of which only a part is ever sent: the process dies while storing it.
    const received = partialPut(doomed.url, 'shared', 'interrupted', 64 * MiB, 8 * MiB);
    await received.sent;
    await new Promise((resolve) => setTimeout(resolve, 300));
    await doomed.stop('SIGKILL');
    await received.ended;
    const survivor = client(s3a);
    for (const [i, Key] of acknowledged.entries()) {
      const got = await survivor.send(new GetObjectCommand({ Bucket: 'shared', Key }));
      expect(md5(await got.Body!.transformToByteArray())).toBe(md5(Buffer.alloc(40_000 + i, i)));
    }
    expect(await statusOf(survivor.send(new GetObjectCommand({ Bucket: 'shared', Key: 'interrupted' })))).toBe(404);
    // The killed connection's transaction is rolled back: no chunk of the interrupted body stays.
    await waitForNoOpenTransaction();
    const [{ n }] = (await cluster.query<{ n: string }>(
      databaseUrl,
      `select count(*) as n from bucket_storage.chunks c where not exists (select 1 from bucket_storage.objects o where c.body = any(o.bodies))
       and not exists (select 1 from bucket_storage.dropped_bodies d where d.body = c.body)`,
    )) as [{ n: string }];
    expect(Number(n)).toBe(0);
  });
});

describe('the management API on the same database', () => {
  let api: Instance | undefined;
  afterAll(async () => {
    await api?.stop();
  });

  test('a bucket created with the official client is served by the S3 endpoints, and the API lists theirs', async () => {
    api = await startInstance({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir });
    const cf = new Cloudflare({ apiToken: instanceToken, baseURL: api.baseUrl, maxRetries: 0 });
    await cf.r2.buckets.create({ account_id: HOME_ACCOUNT_ID, name: 'from-the-api', locationHint: 'weur' });
    const s3 = client(s3b);
    expect((await s3.send(new HeadBucketCommand({ Bucket: 'from-the-api' }))).$metadata.httpStatusCode).toBe(200);
    expect((await s3.send(new ListBucketsCommand({}))).Buckets!.map((bucket) => bucket.Name)).toEqual(['from-the-api', 'shared']);
    await s3.send(new PutObjectCommand({ Bucket: 'from-the-api', Key: 'hello.txt', Body: 'hello' }));
    expect(await text(client(s3a), 'hello.txt', 'from-the-api')).toBe('hello');
    const listed = await cf.r2.buckets.list({ account_id: HOME_ACCOUNT_ID });
    expect(listed.buckets!.map((bucket) => [bucket.name, bucket.location])).toEqual([
      ['from-the-api', 'weur'],
      ['shared', 'enam'],
    ]);
  });
});

describe('a database that cannot be used', () => {
  test('each command says so in one line, without the password or a stack trace', async () => {
    const unreachable = 'postgres://someone:s3cret@127.0.0.1:1/nowhere';
    const config = join(dataDir, 'wrangler.toml');
    const [s3, worker, bucket] = await Promise.all([
      runCommand('s3', ['--port', '0', '--database-url', unreachable], KEYS),
      runCommand('worker', ['--config', config, '--port', '0'], { DATABASE_URL: unreachable }),
      runCommand('bucket', ['list', '--database-url', unreachable]),
    ]);
    const refusal = 'cannot connect to PostgreSQL at postgres://someone@127.0.0.1:1/nowhere: connect ECONNREFUSED 127.0.0.1:1\n';
    expect(s3.code).toBe(1);
    expect(s3.stderr).toContain(`cannot start the S3 endpoint:\n${refusal}`);
    expect(worker.code).toBe(1);
    expect(worker.stderr).toContain(`cannot start the worker:\n${refusal}`);
    expect(bucket.code).toBe(1);
    expect(bucket.stderr).toContain(`bucket list failed: ${refusal}`);
    for (const { stderr } of [s3, worker, bucket]) {
      expect(stderr).not.toContain('s3cret');
      expect(stderr).not.toMatch(/\n\s+at /);
    }
    const malformed = await runCommand('s3', ['--port', '0', '--database-url', 'mysql://db/x'], KEYS);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/--database-url must start with postgres:\/\/ or postgresql:\/\/, not mysql:\/\/\.\n\nUsage: npm run s3/);
  });
});

/** Sends the headers and the first `sent` bytes of a PUT of `size` bytes, and nothing more. */
function partialPut(url: string, bucket: string, key: string, size: number, sent: number) {
  // Unsigned payload, signed headers: the endpoint starts storing before the body ends.
  const { headers, url: target } = signedHeaders(url, {
    method: 'PUT',
    target: `/${bucket}/${key}`,
    headers: { 'content-length': String(size) },
    payloadHash: 'UNSIGNED-PAYLOAD',
  });
  const req = httpRequest(target, { method: 'PUT', headers });
  const ended = new Promise<void>((resolve) => {
    req.on('error', () => resolve());
    req.on('response', (response) => {
      response.resume();
      response.on('end', resolve);
    });
    req.on('close', resolve);
  });
  const written = new Promise<void>((resolve) => {
    const chunk = Buffer.alloc(MiB, 1);
    let at = 0;
    const more = () => {
      while (at < sent) {
        at += chunk.byteLength;
        if (!req.write(chunk)) return void req.once('drain', more);
      }
      resolve();
    };
    more();
  });
  return { sent: written, ended };
}

async function waitForNoOpenTransaction(): Promise<void> {
  const database = new URL(databaseUrl).pathname.slice(1);
  for (let waited = 0; waited < 15_000; waited += 100) {
    const [{ n }] = (await cluster.query<{ n: string }>(
      databaseUrl,
      `select count(*) as n from pg_stat_activity where datname = $1 and state like 'idle in transaction%'`,
      [database],
    )) as [{ n: string }];
    if (Number(n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('a transaction stayed open 15 s after its process died');
}
