// Log push delivery to the platform's buckets: batches of ndjson, gzipped, written at most an
// interval after their first entry under the destination's path with {DATE} expanded, recorded on
// the job; refused credentials, missing buckets and destinations outside reported on the job.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOME_ACCOUNT_ID, openBucketCatalogue, type BucketCatalogue } from '../../src/bucket';
import { BucketCredentials, LogDelivery, objectKey, parseDestination } from '../../src/logpush';
import { openSqliteStore, type LogpushJob, type Store } from '../../src/store';
import { ZONE_IDS } from '../simulator/helpers';
import { waitUntil } from '../support/wait';

const PRO = ZONE_IDS.pro;
const KEY_ID = 'LOGKEY';
const SECRET = 'log-secret-1234';
const credentials = new BucketCredentials(new Map([[KEY_ID, SECRET]]), HOME_ACCOUNT_ID);
const r2 = (bucket: string, pathPart: string, secret = SECRET) =>
  `r2://${bucket}/${pathPart}?account-id=${HOME_ACCOUNT_ID}&access-key-id=${KEY_ID}&secret-access-key=${secret}`;

let dir: string;
let store: Store;
let catalogue: BucketCatalogue;
let delivery: LogDelivery | undefined;
const failures: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'logpush-'));
  store = await openSqliteStore({ dataDir: dir });
  catalogue = await openBucketCatalogue({ dataDir: dir });
  await catalogue.account(HOME_ACCOUNT_ID).create('edge-logs');
});
afterEach(async () => {
  await delivery?.close();
  delivery = undefined;
  failures.length = 0;
});
afterAll(async () => {
  await Promise.all([store?.close(), catalogue?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

function start(uploadIntervalMs = 60_000): LogDelivery {
  delivery = new LogDelivery({ store, catalogue, credentials, uploadIntervalMs, onFailure: (_job, message) => failures.push(message) });
  return delivery;
}

async function job(destination_conf: string): Promise<LogpushJob> {
  return store.logpushJobs.create(PRO, { dataset: 'http_requests', destination_conf, logpull_options: 'fields=RayID&timestamps=rfc3339', enabled: true });
}

async function files(prefix: string): Promise<string[]> {
  const bucket = await catalogue.account(HOME_ACCOUNT_ID).bucket('edge-logs');
  return (await bucket.list({ prefix })).objects.map((object) => object.key);
}

async function lines(key: string): Promise<unknown[]> {
  const bucket = await catalogue.account(HOME_ACCOUNT_ID).bucket('edge-logs');
  const object = await bucket.get(key);
  const text = gunzipSync(Buffer.from(await object!.arrayBuffer())).toString('utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
}

const at = Date.parse('2026-11-21T10:00:00Z');

describe('delivery to a bucket of this platform', () => {
  it('writes a batch as gzipped ndjson, named by its first and last times under the path, {DATE} expanded', async () => {
    const target = await job(r2('edge-logs', 'zone/{DATE}'));
    const logs = start();
    logs.add(PRO, target, '{"RayID":"a"}\n', at);
    logs.add(PRO, target, '{"RayID":"b"}\n', at + 2_500);
    await logs.flush();
    const written = await files('zone/20261121/');
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^zone\/20261121\/20261121T100000Z_20261121T100002Z_[0-9a-f]{8}\.log\.gz$/);
    expect(await lines(written[0]!)).toEqual([{ RayID: 'a' }, { RayID: 'b' }]);
    const recorded = await store.logpushJobs.get(PRO, target.id);
    expect(recorded).toMatchObject({ last_error: null, error_message: null });
    expect(recorded!.last_complete).not.toBeNull();
  });

  it('writes a batch on its own at most the interval after its first entry', async () => {
    const target = await job(r2('edge-logs', 'timed'));
    const logs = start(150);
    const began = Date.now();
    logs.add(PRO, target, '{"RayID":"c"}\n', at);
    await waitUntil('the batch to be written', async () => (await files('timed/')).length === 1, 5_000, 20);
    expect(Date.now() - began).toBeLessThan(2_000);
  });

  it('writes what is open when closed (a SIGTERM loses nothing accepted)', async () => {
    const target = await job(r2('edge-logs', 'closing'));
    const logs = start();
    logs.add(PRO, target, '{"RayID":"d"}\n', at);
    await logs.close();
    expect(await files('closing/')).toHaveLength(1);
    expect(() => logs.add(PRO, target, '{}', at)).toThrow(/closed/);
  });

  it('reports refused credentials, a missing bucket and a destination outside on the job, and tries a bucket again', async () => {
    const wrongSecret = await job(r2('edge-logs', 'refused', 'not-the-secret'));
    const missing = await job(r2('later-bucket', 'x'));
    const outside = await job('s3://edge-logs/example-org?region=us-east-1');
    const logs = start(100);
    for (const target of [wrongSecret, missing, outside]) logs.add(PRO, target, '{"RayID":"e"}\n', at);
    await logs.flush();
    const errorOf = async (id: number) => (await store.logpushJobs.get(PRO, id))!.error_message;
    expect(await errorOf(wrongSecret.id)).toBe(
      'error validating destination r2://edge-logs/refused: access denied: the access key LOGKEY and its secret are not an S3 access key of this platform',
    );
    expect(await errorOf(missing.id)).toMatch(/^error uploading to r2:\/\/later-bucket\/x: .*later-bucket/);
    expect(await errorOf(outside.id)).toBe(
      'error uploading to a s3 destination: this platform delivers logs only to its own buckets (r2://); 1 entries not delivered',
    );
    expect((await store.logpushJobs.get(PRO, outside.id))!.last_error).not.toBeNull();
    // No secret in any message.
    expect(failures.join('\n')).not.toContain('not-the-secret');
    expect(failures.join('\n')).not.toContain(SECRET);
    // The bucket appears: the kept batch is written at the next try, and the job recovers.
    await catalogue.account(HOME_ACCOUNT_ID).create('later-bucket');
    await waitUntil('the kept batch to be written', async () => (await errorOf(missing.id)) === null, 5_000, 20);
    const later = await catalogue.account(HOME_ACCOUNT_ID).bucket('later-bucket');
    expect((await later.list({ prefix: 'x/' })).objects).toHaveLength(1);
  });
});

describe('destinations', () => {
  it('reads an r2 destination, and refuses one missing its credentials', () => {
    expect(parseDestination(r2('edge-logs', 'a/b/{DATE}/'))).toEqual({
      kind: 'bucket',
      bucket: 'edge-logs',
      path: 'a/b/{DATE}',
      accountId: HOME_ACCOUNT_ID,
      accessKeyId: KEY_ID,
      secretAccessKey: SECRET,
    });
    expect(() => parseDestination('r2://edge-logs/x?account-id=abc')).toThrow('an r2 destination carries account-id, access-key-id and secret-access-key in its query; missing: access-key-id, secret-access-key');
    expect(parseDestination('https://logs.example.com/ingest?header_Authorization=x')).toEqual({ kind: 'outside', scheme: 'https' });
  });

  it('accepts only this platform\'s S3 keys, for the account its S3 endpoint serves', () => {
    const destination = parseDestination(r2('edge-logs', 'x'));
    expect(destination.kind === 'bucket' && credentials.problem(destination)).toBeNull();
    const otherAccount = parseDestination(r2('edge-logs', 'x').replace(HOME_ACCOUNT_ID, '5a7805061c76ada191ed06f989cc3dac'));
    expect(otherAccount.kind === 'bucket' && credentials.problem(otherAccount)).toMatch(/^account 5a7805061c76ada191ed06f989cc3dac has no buckets/);
  });

  it('names files by date and time', () => {
    expect(objectKey('', at, at)).toMatch(/^20261121T100000Z_20261121T100000Z_[0-9a-f]{8}\.log\.gz$/);
    expect(objectKey('{DATE}/{DATE}', at, at + 61_000)).toMatch(/^20261121\/20261121\/20261121T100000Z_20261121T100101Z_/);
  });
});
