// Temporary credentials issued through the management API (the official client's
// r2.temporaryCredentials.create) and used at the S3 endpoint with the AWS SDK (session token as
// x-amz-security-token, or in a presigned URL): scope to a bucket, prefixes and objects,
// read-only against read-write, expiry, tampering, an unknown parent key, another account.
import { GetObjectCommand, ListBucketsCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, token, type TestServer } from '../server/harness';
import { ACCESS_KEY_ID, s3Failure, SECRET, startEndpoint, type Endpoint } from './support';

const account_id = '023e105f4ecef8ad9ca31a8372d0c353';
const SANDBOX = '5a7805061c76ada191ed06f989cc3dac';
let api: TestServer;
let cf: Cloudflare;

beforeAll(async () => {
  api = await startServer({ s3AccessKeys: new Map([[ACCESS_KEY_ID, SECRET], ['OTHERKEY', 'a-key-the-endpoint-does-not-have']]) });
  cf = new Cloudflare({ baseURL: api.baseUrl, apiToken: token, apiEmail: null, apiKey: null, userServiceKey: null, maxRetries: 0 });
  for (const name of ['temp-docs', 'temp-other']) await cf.r2.buckets.create({ account_id, name });
  const bucket = await api.buckets.account(account_id).open('temp-docs');
  await bucket.put('docs/readme.txt', 'readme');
  await bucket.put('private/secret.txt', 'secret');
});
afterAll(async () => {
  await api?.stop();
});

type Permission = 'admin-read-write' | 'admin-read-only' | 'object-read-write' | 'object-read-only';

async function temporary(endpoint: Endpoint, permission: Permission, scope: { prefixes?: string[]; objects?: string[] } = {}, ttlSeconds = 900) {
  const issued = await cf.r2.temporaryCredentials.create({ account_id, bucket: 'temp-docs', parentAccessKeyId: ACCESS_KEY_ID, permission, ttlSeconds, ...scope });
  return {
    issued,
    client: endpoint.client({ accessKeyId: issued.accessKeyId!, secretAccessKey: issued.secretAccessKey!, sessionToken: issued.sessionToken! } as never),
  };
}

describe('temporary credentials at the S3 endpoint', () => {
  let endpoint: Endpoint;
  // The support closes endpoints after each test.
  beforeEach(async () => {
    endpoint = await startEndpoint({}, api.dataDir);
  });

  it('read-only credentials scoped to a prefix read and list inside it, nothing else', async () => {
    const { client } = await temporary(endpoint, 'object-read-only', { prefixes: ['docs/'] });
    const got = await client.send(new GetObjectCommand({ Bucket: 'temp-docs', Key: 'docs/readme.txt' }));
    expect(await got.Body!.transformToString()).toBe('readme');
    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'temp-docs', Prefix: 'docs/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['docs/readme.txt']);
    expect(await s3Failure(client.send(new GetObjectCommand({ Bucket: 'temp-docs', Key: 'private/secret.txt' })))).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(client.send(new ListObjectsV2Command({ Bucket: 'temp-docs' })))).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(client.send(new PutObjectCommand({ Bucket: 'temp-docs', Key: 'docs/new.txt', Body: 'x' })))).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(client.send(new GetObjectCommand({ Bucket: 'temp-other', Key: 'docs/readme.txt' })))).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(client.send(new ListBucketsCommand({})))).toMatchObject({ name: 'AccessDenied', status: 403 });
  });

  it('read-write credentials scoped to one object write it and nothing beside it', async () => {
    const { client } = await temporary(endpoint, 'object-read-write', { objects: ['uploads/one.txt'] });
    await client.send(new PutObjectCommand({ Bucket: 'temp-docs', Key: 'uploads/one.txt', Body: 'one' }));
    expect(await (await api.buckets.account(account_id).open('temp-docs')).get('uploads/one.txt').then((o) => o!.text())).toBe('one');
    expect(await s3Failure(client.send(new PutObjectCommand({ Bucket: 'temp-docs', Key: 'uploads/two.txt', Body: 'two' })))).toMatchObject({ name: 'AccessDenied' });
  });

  it('a presigned URL made with temporary credentials carries the token and works', async () => {
    const { client } = await temporary(endpoint, 'object-read-only');
    const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: 'temp-docs', Key: 'docs/readme.txt' }), { expiresIn: 300 });
    expect(url).toContain('X-Amz-Security-Token=');
    const response = await fetch(url);
    expect({ status: response.status, body: await response.text() }).toEqual({ status: 200, body: 'readme' });
  });

  it('expired, tampered and foreign tokens are refused', async () => {
    const { client: shortLived } = await temporary(endpoint, 'object-read-only', {}, 1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await s3Failure(shortLived.send(new GetObjectCommand({ Bucket: 'temp-docs', Key: 'docs/readme.txt' })))).toMatchObject({ name: 'ExpiredToken', status: 400 });

    const { issued } = await temporary(endpoint, 'admin-read-write');
    const [payload, seal] = issued.sessionToken!.split('.');
    const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), bucket: 'temp-other' })).toString('base64url');
    const tampered = endpoint.client({ accessKeyId: issued.accessKeyId!, secretAccessKey: issued.secretAccessKey!, sessionToken: `${widened}.${seal}` } as never);
    expect(await s3Failure(tampered.send(new GetObjectCommand({ Bucket: 'temp-other', Key: 'x' })))).toMatchObject({ name: 'InvalidToken', status: 400 });

    const wrongSecret = endpoint.client({ accessKeyId: issued.accessKeyId!, secretAccessKey: 'f'.repeat(64), sessionToken: issued.sessionToken! } as never);
    expect(await s3Failure(wrongSecret.send(new GetObjectCommand({ Bucket: 'temp-docs', Key: 'docs/readme.txt' })))).toMatchObject({ name: 'SignatureDoesNotMatch', status: 403 });

    const foreign = await cf.r2.temporaryCredentials.create({ account_id, bucket: 'temp-docs', parentAccessKeyId: 'OTHERKEY', permission: 'object-read-only', ttlSeconds: 60 });
    const unknownParent = endpoint.client({ accessKeyId: foreign.accessKeyId!, secretAccessKey: foreign.secretAccessKey!, sessionToken: foreign.sessionToken! } as never);
    expect(await s3Failure(unknownParent.send(new GetObjectCommand({ Bucket: 'temp-docs', Key: 'docs/readme.txt' })))).toMatchObject({ name: 'InvalidToken', status: 400 });
  });

  it("an endpoint serving another account refuses the credentials of this one", async () => {
    const sandbox = await startEndpoint({ account: SANDBOX }, api.dataDir);
    const { issued } = await temporary(sandbox, 'object-read-only');
    const client = sandbox.client({ accessKeyId: issued.accessKeyId!, secretAccessKey: issued.secretAccessKey!, sessionToken: issued.sessionToken! } as never);
    expect(await s3Failure(client.send(new GetObjectCommand({ Bucket: 'temp-docs', Key: 'docs/readme.txt' })))).toMatchObject({ name: 'AccessDenied', status: 403 });
  });
});

describe('CORS at the S3 endpoint, from the rules set through the API', () => {
  let endpoint: Endpoint;
  beforeAll(async () => {
    await cf.r2.buckets.create({ account_id, name: 'cors-site' });
    await (await api.buckets.account(account_id).open('cors-site')).put('index.html', '<p>hi</p>');
    await cf.r2.buckets.cors.update('cors-site', {
      account_id,
      rules: [{ allowed: { origins: ['https://app.example.com'], methods: ['GET', 'PUT'], headers: ['content-type'] }, exposeHeaders: ['ETag'], maxAgeSeconds: 600 }],
    });
  });
  beforeEach(async () => {
    endpoint = await startEndpoint({ publicRead: ['cors-site'] }, api.dataDir);
  });

  const preflight = (origin: string, method: string, headers?: string) =>
    fetch(`${endpoint.server.url}/cors-site/index.html`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': method, ...(headers ? { 'Access-Control-Request-Headers': headers } : {}) },
    });

  it('answers an allowed preflight with the rule, without credentials', async () => {
    const response = await preflight('https://app.example.com', 'PUT', 'content-type');
    expect(response.status).toBe(200);
    expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'GET, PUT',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '600',
      'access-control-expose-headers': 'ETag',
    });
  });

  it('refuses a preflight from another origin, for another method or header, and on a bucket without rules', async () => {
    for (const [origin, method, headers] of [['https://evil.example', 'GET'], ['https://app.example.com', 'DELETE'], ['https://app.example.com', 'PUT', 'x-secret']] as const) {
      const response = await preflight(origin, method, headers);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('<Code>AccessForbidden</Code>');
    }
    await cf.r2.buckets.cors.delete('cors-site', { account_id });
    expect((await preflight('https://app.example.com', 'GET')).status).toBe(403);
    await cf.r2.buckets.cors.update('cors-site', { account_id, rules: [{ allowed: { origins: ['https://*.example.com'], methods: ['GET'] } }] });
    expect((await preflight('https://docs.example.com', 'GET')).status).toBe(200);
  });

  it('adds the CORS headers to an answer for an allowed origin, and none for another', async () => {
    const allowed = await fetch(`${endpoint.server.url}/cors-site/index.html`, { headers: { Origin: 'https://shop.example.com' } });
    expect({ status: allowed.status, origin: allowed.headers.get('access-control-allow-origin'), body: await allowed.text() }).toEqual({
      status: 200,
      origin: 'https://shop.example.com',
      body: '<p>hi</p>',
    });
    const other = await fetch(`${endpoint.server.url}/cors-site/index.html`, { headers: { Origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
