// The bucket family driven by the official client library (npm `cloudflare`), unchanged: buckets,
// their settings, objects, temporary credentials, and the user and account look-ups tools make
// first, with the real service's refusals (bad names, a second bucket of one name, a bucket that
// is not empty, unknown buckets and keys, malformed CORS and lifecycle rules, another account).
// Retries are off: the client would retry 409s.
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_ACCOUNT_ID } from '../../src/bucket';
import { ids, startServer, type TestServer } from './harness';
import { all, officialClient, refusal, type SentRequest } from './official-client';

const account_id = ids.account;
const SANDBOX = '5a7805061c76ada191ed06f989cc3dac';
const scopedToken = 'token-for-the-sandbox-account-only';

let server: TestServer;
let cf: Cloudflare;
let sent: SentRequest[];

beforeAll(async () => {
  server = await startServer({
    s3AccessKeys: new Map([['PARENTKEY', 'parent-secret-0123456789']]),
    tokens: [{ token: scopedToken, email: 'user@example.com', scope: { accounts: new Set([SANDBOX]), zones: null } }],
  });
  ({ cf, sent } = officialClient(server));
});
afterAll(async () => {
  await server?.stop();
});

const lastSent = () => sent.at(-1)!;

describe('buckets', () => {
  it('creates, gets, lists, edits and deletes buckets', async () => {
    const created = await cf.r2.buckets.create({ account_id, name: 'sdk-photos', locationHint: 'weur', storageClass: 'Standard' });
    expect(created).toMatchObject({ name: 'sdk-photos', location: 'weur', storage_class: 'Standard', jurisdiction: 'default' });
    expect(created.creation_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(lastSent()).toMatchObject({ method: 'POST' });
    expect(lastSent().url.pathname).toBe(`/client/v4/accounts/${account_id}/r2/buckets`);
    // The same bucket, in the data directory's catalogue: a worker or the S3 endpoint sees it.
    expect((await server.buckets.account(HOME_ACCOUNT_ID).get('sdk-photos')).location).toBe('weur');

    expect(await cf.r2.buckets.get('sdk-photos', { account_id })).toEqual(created);
    for (const name of ['sdk-logs-a', 'sdk-logs-b', 'sdk-logs-c']) await cf.r2.buckets.create({ account_id, name });
    const first = await cf.r2.buckets.list({ account_id, name_contains: 'logs', per_page: 2 });
    expect(first.buckets?.map((b) => b.name)).toEqual(['sdk-logs-a', 'sdk-logs-b']);
    const infoCursor = ((await server.fetch(`/accounts/${account_id}/r2/buckets?name_contains=logs&per_page=2`, { headers: { Authorization: `Bearer ${'test-token-with-access-to-everything'}` } }).then((r) => r.json())) as { result_info: { cursor: string } }).result_info.cursor;
    const second = await cf.r2.buckets.list({ account_id, name_contains: 'logs', per_page: 2, cursor: infoCursor });
    expect(second.buckets?.map((b) => b.name)).toEqual(['sdk-logs-c']);
    const descending = await cf.r2.buckets.list({ account_id, name_contains: 'sdk-', direction: 'desc', order: 'name' });
    expect(descending.buckets?.map((b) => b.name)).toEqual(['sdk-photos', 'sdk-logs-c', 'sdk-logs-b', 'sdk-logs-a']);

    const edited = await cf.r2.buckets.edit('sdk-photos', { account_id, storage_class: 'InfrequentAccess' });
    expect(edited.storage_class).toBe('InfrequentAccess');
    expect(lastSent().headers.get('cf-r2-storage-class')).toBe('InfrequentAccess');

    await cf.r2.buckets.delete('sdk-logs-c', { account_id });
    expect(await refusal(cf.r2.buckets.get('sdk-logs-c', { account_id }))).toMatchObject({ status: 404, codes: [10006] });
  });

  it('keeps jurisdictions apart: an EU bucket is found only with the EU header', async () => {
    await cf.r2.buckets.create({ account_id, name: 'sdk-eu-data', 'cf-r2-jurisdiction': 'eu' });
    expect((await cf.r2.buckets.get('sdk-eu-data', { account_id, 'cf-r2-jurisdiction': 'eu' })).jurisdiction).toBe('eu');
    expect(await refusal(cf.r2.buckets.get('sdk-eu-data', { account_id }))).toMatchObject({ status: 404, codes: [10006] });
    const eu = await cf.r2.buckets.list({ account_id, 'cf-r2-jurisdiction': 'eu' });
    expect(eu.buckets?.map((b) => b.name)).toEqual(['sdk-eu-data']);
  });

  it('refuses bad names, a second bucket of one name, and unknown buckets with the real service codes', async () => {
    expect(await refusal(cf.r2.buckets.create({ account_id, name: 'Bad_Name' }))).toMatchObject({ status: 400, codes: [10005] });
    expect(await refusal(cf.r2.buckets.create({ account_id, name: 'ab' }))).toMatchObject({ status: 400, codes: [10005] });
    expect(await refusal(cf.r2.buckets.get('Bad_Name', { account_id }))).toMatchObject({ status: 400, codes: [10005] });
    await cf.r2.buckets.create({ account_id, name: 'sdk-twice' });
    expect(await refusal(cf.r2.buckets.create({ account_id, name: 'sdk-twice' }))).toMatchObject({ status: 409, codes: [10004], name: 'ConflictError' });
    expect(await refusal(cf.r2.buckets.delete('sdk-missing', { account_id }))).toMatchObject({ status: 404, codes: [10006] });
    expect(await refusal(cf.r2.buckets.create({ account_id, name: 'x-y-z', locationHint: 'mars' as never }))).toMatchObject({ status: 400, codes: [10021] });
  });

  it('keeps bucket names per account, and a token of another account gets 403', async () => {
    await cf.r2.buckets.create({ account_id: SANDBOX, name: 'sdk-twice' });
    expect((await cf.r2.buckets.list({ account_id: SANDBOX })).buckets?.map((b) => b.name)).toEqual(['sdk-twice']);
    const scoped = new Cloudflare({ baseURL: server.baseUrl, apiToken: scopedToken, apiEmail: null, apiKey: null, userServiceKey: null, maxRetries: 0 });
    expect((await scoped.r2.buckets.list({ account_id: SANDBOX })).buckets?.map((b) => b.name)).toEqual(['sdk-twice']);
    expect(await refusal(scoped.r2.buckets.list({ account_id }))).toMatchObject({ status: 403, codes: [9109] });
    expect(await refusal(scoped.r2.buckets.objects.upload('k', 'v', { account_id, bucket_name: 'sdk-twice' }))).toMatchObject({ status: 403, codes: [9109] });
    expect(await refusal(cf.r2.buckets.list({ account_id: 'ffffffffffffffffffffffffffffffff' }))).toMatchObject({ status: 404, codes: [7003, 7000] });
  });
});

describe('CORS and lifecycle', () => {
  beforeAll(async () => {
    await cf.r2.buckets.create({ account_id, name: 'sdk-settings' });
  });

  it('sets, reads and deletes CORS rules; no rules answers 404 (10059)', async () => {
    expect(await refusal(cf.r2.buckets.cors.get('sdk-settings', { account_id }))).toMatchObject({ status: 404, codes: [10059] });
    const rules = [{ id: 'app', allowed: { origins: ['https://app.example.com'], methods: ['GET' as const, 'PUT' as const], headers: ['content-type'] }, exposeHeaders: ['ETag'], maxAgeSeconds: 3600 }];
    await cf.r2.buckets.cors.update('sdk-settings', { account_id, rules });
    expect(lastSent().method).toBe('PUT');
    expect(await cf.r2.buckets.cors.get('sdk-settings', { account_id })).toEqual({ rules });
    await cf.r2.buckets.cors.delete('sdk-settings', { account_id });
    expect(await refusal(cf.r2.buckets.cors.get('sdk-settings', { account_id }))).toMatchObject({ status: 404, codes: [10059] });
  });

  it('refuses malformed CORS rules, naming the rule', async () => {
    const noOrigin = await refusal(cf.r2.buckets.cors.update('sdk-settings', { account_id, rules: [{ allowed: { origins: [], methods: ['GET'] } }] }));
    expect(noOrigin).toMatchObject({ status: 400, codes: [10021] });
    const badMethod = await refusal(cf.r2.buckets.cors.update('sdk-settings', { account_id, rules: [{ allowed: { origins: ['*'], methods: ['PATCH' as never] } }] }));
    expect(badMethod).toMatchObject({ status: 400, codes: [10021] });
    const response = await server.fetch(`/accounts/${account_id}/r2/buckets/sdk-settings/cors`, {
      method: 'PUT',
      headers: { Authorization: 'Bearer test-token-with-access-to-everything', 'Content-Type': 'application/json' },
      body: JSON.stringify({ rules: [{ allowed: { origins: ['https://*.*.example.com'], methods: ['GET'] }, maxAgeSeconds: -1 }] }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('maxAgeSeconds');
  });

  it('a new bucket has the platform default abort rule; rules are replaced and checked', async () => {
    expect(await cf.r2.buckets.lifecycle.get('sdk-settings', { account_id })).toEqual({
      rules: [{ id: 'Default Multipart Abort Rule', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 604800 } } }],
    });
    const rules = [
      { id: 'abort-fast', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age' as const, maxAge: 86400 } } },
      { id: 'expire-logs', enabled: true, conditions: { prefix: 'logs/' }, deleteObjectsTransition: { condition: { type: 'Date' as const, date: '2027-01-01T00:00:00Z' } } },
    ];
    await cf.r2.buckets.lifecycle.update('sdk-settings', { account_id, rules });
    expect(await cf.r2.buckets.lifecycle.get('sdk-settings', { account_id })).toEqual({ rules });
    // The catalogue gives the runtime these rules: uploads now abort after a day.
    expect(await server.buckets.account(account_id).lifecycle('sdk-settings')).toEqual(rules);

    const duplicate = await refusal(cf.r2.buckets.lifecycle.update('sdk-settings', { account_id, rules: [rules[0]!, rules[0]!] }));
    expect(duplicate).toMatchObject({ status: 400, codes: [10021] });
    const idle = await refusal(cf.r2.buckets.lifecycle.update('sdk-settings', { account_id, rules: [{ id: 'idle', enabled: true, conditions: { prefix: '' } }] }));
    expect(idle).toMatchObject({ status: 400, codes: [10021] });
    const badAge = await refusal(
      cf.r2.buckets.lifecycle.update('sdk-settings', { account_id, rules: [{ id: 'x', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 0 } } }] }),
    );
    expect(badAge).toMatchObject({ status: 400, codes: [10021] });
    expect(await cf.r2.buckets.lifecycle.get('sdk-settings', { account_id })).toEqual({ rules });
  });
});

describe('objects', () => {
  beforeAll(async () => {
    await cf.r2.buckets.create({ account_id, name: 'sdk-objects' });
  });
  const bucket = { account_id, bucket_name: 'sdk-objects' };

  it('uploads, lists, downloads and deletes objects, keys with slashes and odd characters included', async () => {
    const uploaded = await cf.r2.buckets.objects.upload('docs/read me.txt', 'hello', bucket, { headers: { 'Content-Type': 'text/plain' } });
    expect(uploaded).toMatchObject({ key: 'docs/read me.txt', size: '5', etag: '5d41402abc4b2a76b9719d911017c592', storage_class: 'Standard' });
    expect(lastSent().url.pathname).toBe(`/client/v4/accounts/${account_id}/r2/buckets/sdk-objects/objects/docs%2Fread%20me.txt`);
    await cf.r2.buckets.objects.upload('docs/b.bin', new Uint8Array([0, 1, 2, 255]), bucket);
    await cf.r2.buckets.objects.upload('empty', '', bucket);
    await cf.r2.buckets.objects.upload('top.txt', 'x', bucket);

    const everything = await all(cf.r2.buckets.objects.list('sdk-objects', { account_id, per_page: 2 }));
    expect(everything.map((o) => [o.key, o.size])).toEqual([['docs/b.bin', 4], ['docs/read me.txt', 5], ['empty', 0], ['top.txt', 1]]);
    expect(everything[1]).toMatchObject({ http_metadata: { contentType: 'text/plain' }, custom_metadata: {}, storage_class: 'Standard' });
    const grouped = await cf.r2.buckets.objects.list('sdk-objects', { account_id, delimiter: '/' });
    expect(grouped.result.map((o) => o.key)).toEqual(['empty', 'top.txt']);
    expect((grouped.result_info as { delimited?: string[] }).delimited).toEqual(['docs/']);

    const response = await cf.r2.buckets.objects.get('docs/read me.txt', bucket);
    expect(await response.text()).toBe('hello');
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('etag')).toBe('"5d41402abc4b2a76b9719d911017c592"');
    const binary = await cf.r2.buckets.objects.get('docs/b.bin', bucket);
    expect([...new Uint8Array(await binary.arrayBuffer())]).toEqual([0, 1, 2, 255]);
    const empty = await cf.r2.buckets.objects.get('empty', bucket);
    expect(await empty.text()).toBe('');
    const unchanged = await server.fetch(`/accounts/${account_id}/r2/buckets/sdk-objects/objects/top.txt`, {
      headers: { Authorization: 'Bearer test-token-with-access-to-everything', 'If-None-Match': '"9dd4e461268c8034f5c8564e155c67a6"' },
    });
    expect(unchanged.status).toBe(304);

    expect(await cf.r2.buckets.objects.delete('docs/read me.txt', bucket)).toEqual({ key: 'docs/read me.txt' });
    expect(await refusal(cf.r2.buckets.objects.get('docs/read me.txt', bucket))).toMatchObject({ status: 404, codes: [10007] });
  });

  it('refuses unknown buckets and keys, and a bucket that still holds objects', async () => {
    expect(await refusal(cf.r2.buckets.objects.upload('k', 'v', { account_id, bucket_name: 'sdk-nowhere' }))).toMatchObject({ status: 404, codes: [10006] });
    expect(await refusal(cf.r2.buckets.objects.get('missing', bucket))).toMatchObject({ status: 404, codes: [10007] });
    expect(await refusal(cf.r2.buckets.objects.upload('k'.repeat(1025), 'v', bucket))).toMatchObject({ status: 400, codes: [10020] });
    expect(await refusal(cf.r2.buckets.delete('sdk-objects', { account_id }))).toMatchObject({ status: 409, codes: [10008] });
    for (const key of ['docs/b.bin', 'empty', 'top.txt']) await cf.r2.buckets.objects.delete(key, bucket);
    await cf.r2.buckets.delete('sdk-objects', { account_id });
  });
});

describe('temporary credentials', () => {
  it('issues credentials for a bucket of the account from a known parent key, refuses an unknown one', async () => {
    await cf.r2.buckets.create({ account_id, name: 'sdk-temporary' });
    const credentials = await cf.r2.temporaryCredentials.create({
      account_id,
      bucket: 'sdk-temporary',
      parentAccessKeyId: 'PARENTKEY',
      permission: 'object-read-only',
      ttlSeconds: 900,
      prefixes: ['docs/'],
    });
    expect(credentials.accessKeyId).toMatch(/^TMP[0-9A-F]{24}$/);
    expect(credentials.secretAccessKey).toMatch(/^[0-9a-f]{64}$/);
    expect(credentials.sessionToken).toContain('.');
    expect(await refusal(cf.r2.temporaryCredentials.create({ account_id, bucket: 'sdk-temporary', parentAccessKeyId: 'NOSUCHKEY', permission: 'object-read-only', ttlSeconds: 60 }))).toMatchObject({ status: 400, codes: [10021] });
    expect(await refusal(cf.r2.temporaryCredentials.create({ account_id, bucket: 'sdk-nowhere', parentAccessKeyId: 'PARENTKEY', permission: 'object-read-only', ttlSeconds: 60 }))).toMatchObject({ status: 404, codes: [10006] });
    expect(await refusal(cf.r2.temporaryCredentials.create({ account_id, bucket: 'sdk-temporary', parentAccessKeyId: 'PARENTKEY', permission: 'object-read-only', ttlSeconds: 604801 }))).toMatchObject({ status: 400, codes: [10021] });
  });
});

describe('the user and the accounts', () => {
  it('verifies the token, names the user, lists the accounts and memberships', async () => {
    const verified = await cf.user.tokens.verify();
    expect(verified).toMatchObject({ status: 'active' });
    expect(verified.id).toMatch(/^[0-9a-f]{32}$/);
    expect((await cf.user.tokens.verify()).id).toBe(verified.id);
    expect(await cf.user.get()).toMatchObject({ id: '7c5dae5552338874e5053f2534d2767a', email: 'user@example.com' });
    const accounts = await all(cf.accounts.list());
    expect(accounts.map((a) => a.name)).toEqual(['Example Corp', 'Sandbox Labs']);
    expect(await cf.accounts.get({ account_id })).toMatchObject({ id: account_id, name: 'Example Corp', type: 'enterprise' });
    const memberships = await all(cf.memberships.list());
    expect(memberships.map((m) => [m.account?.id, m.status])).toEqual([[account_id, 'accepted'], [SANDBOX, 'pending']]);
  });

  it('answers for the credentials used: a scoped token sees its account only', async () => {
    const scoped = new Cloudflare({ baseURL: server.baseUrl, apiToken: scopedToken, apiEmail: null, apiKey: null, userServiceKey: null, maxRetries: 0 });
    expect((await all(scoped.accounts.list())).map((a) => a.id)).toEqual([SANDBOX]);
    expect(await refusal(scoped.accounts.get({ account_id }))).toMatchObject({ status: 403, codes: [9109] });
    expect((await all(scoped.memberships.list())).map((m) => m.account?.id)).toEqual([SANDBOX]);
    const { cf: withKey } = officialClient(server, { credentials: 'key' });
    expect(await refusal(withKey.user.tokens.verify())).toMatchObject({ status: 400, codes: [1000] });
    expect(await withKey.user.get()).toMatchObject({ email: 'user@example.com' });
  });
});
