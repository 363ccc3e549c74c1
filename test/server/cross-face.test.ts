// One catalogue behind every face, each in its own process: a bucket created with wrangler
// through the API (`npm start`) is bound by the worker host (`npm run worker`) and served by the S3
// endpoint (`npm run s3`) at once; an object written through S3 is read through the API and the
// worker, and one uploaded through the API is read through S3 and the worker.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { COMMAND_TEST_TIMEOUT_MS, expectCleanStop, ROOT, startHost, type Host } from '../worker/commands';
import { startApiProcess, temporaryDirectory, wrangler, type ApiProcess } from './api-process';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS * 2, hookTimeout: COMMAND_TEST_TIMEOUT_MS * 2 });

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const TOKEN = 'cross-face-token-0123456789';
const KEY_ID = 'CROSSKEY';
const SECRET = 'cross-face-secret-0123456789';
const AUTH_KEY_SECRET = 'cross-face-worker-secret';

const work = temporaryDirectory('cross-face-');
const dataDir = path.join(work, 'data');
let api: ApiProcess;
let s3Host: Host | undefined;
let worker: Host | undefined;
let s3: S3Client;

beforeAll(async () => {
  api = await startApiProcess({ DATA_DIR: dataDir, API_TOKEN: TOKEN });
});
afterAll(async () => {
  s3?.destroy();
  if (worker) await expectCleanStop(worker);
  if (s3Host) await expectCleanStop(s3Host);
  await api?.stop();
  rmSync(work, { recursive: true, force: true });
});

const apiObject = (key: string, init: RequestInit = {}) =>
  fetch(`${api.baseUrl}/accounts/${ACCOUNT}/r2/buckets/cross-bucket/objects/${encodeURIComponent(key)}`, {
    ...init,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(init.headers as Record<string, string>) },
  });

it('a bucket created with wrangler is bound by a worker and served by S3; objects cross every face', async () => {
  const created = await wrangler(['r2', 'bucket', 'create', 'cross-bucket'], { CLOUDFLARE_API_BASE_URL: api.baseUrl, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT }, work);
  expect(created.output).toContain("Created bucket 'cross-bucket'");

  // The worker host starts only when its bound bucket exists: it does, in its account.
  const config = path.join(work, 'wrangler.toml');
  writeFileSync(
    config,
    [
      'name = "cross-face"',
      `main = ${JSON.stringify(path.join(ROOT, 'src/worker/reference/index.ts'))}`,
      `account_id = "${ACCOUNT}"`,
      'compatibility_date = "2026-07-01"',
      '[[r2_buckets]]',
      'binding = "MY_BUCKET"',
      'bucket_name = "cross-bucket"',
      '[vars]',
      'ALLOW_LIST = "from-s3.txt,from-api.txt"',
      '[secrets]',
      'required = ["AUTH_KEY_SECRET"]',
      '',
    ].join('\n'),
  );
  [worker, s3Host] = await Promise.all([
    startHost(['--config', config, '--port', '0', '--data-dir', dataDir], { AUTH_KEY_SECRET }),
    startHost(['--port', '0', '--data-dir', dataDir], { S3_ACCESS_KEY_ID: KEY_ID, S3_SECRET_ACCESS_KEY: SECRET }, 's3'),
  ]);
  s3 = new S3Client({ endpoint: s3Host.url, region: 'auto', forcePathStyle: true, credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET } });

  // Written by S3, read by the API and the worker.
  await s3.send(new PutObjectCommand({ Bucket: 'cross-bucket', Key: 'from-s3.txt', Body: 'written through S3', ContentType: 'text/plain' }));
  const throughApi = await apiObject('from-s3.txt');
  expect({ status: throughApi.status, body: await throughApi.text(), type: throughApi.headers.get('content-type') }).toEqual({
    status: 200,
    body: 'written through S3',
    type: 'text/plain',
  });
  expect(await (await fetch(`${worker.url}/from-s3.txt`)).text()).toBe('written through S3');

  // Uploaded through the API, read by S3 and the worker.
  const uploaded = await apiObject('from-api.txt', { method: 'PUT', body: 'uploaded through the API', headers: { 'Content-Type': 'text/markdown' } });
  expect(uploaded.status).toBe(200);
  const got = await s3.send(new GetObjectCommand({ Bucket: 'cross-bucket', Key: 'from-api.txt' }));
  expect({ body: await got.Body!.transformToString(), type: got.ContentType }).toEqual({ body: 'uploaded through the API', type: 'text/markdown' });
  const fromWorker = await fetch(`${worker.url}/from-api.txt`);
  expect({ body: await fromWorker.text(), type: fromWorker.headers.get('content-type') }).toEqual({ body: 'uploaded through the API', type: 'text/markdown' });

  // Written by the worker, listed by the API.
  const put = await fetch(`${worker.url}/docs/from-worker.txt`, { method: 'PUT', body: 'written by the worker', headers: { 'X-Custom-Auth-Key': AUTH_KEY_SECRET } });
  expect(put.status).toBe(200);
  const listed = (await (
    await fetch(`${api.baseUrl}/accounts/${ACCOUNT}/r2/buckets/cross-bucket/objects`, { headers: { Authorization: `Bearer ${TOKEN}` } })
  ).json()) as { result: { key: string }[] };
  expect(listed.result.map((o) => o.key)).toEqual(['docs/from-worker.txt', 'from-api.txt', 'from-s3.txt']);

  // The bucket is not empty for any face: the API's delete is refused.
  const refused = await fetch(`${api.baseUrl}/accounts/${ACCOUNT}/r2/buckets/cross-bucket`, { method: 'DELETE', headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(refused.status).toBe(409);
});
