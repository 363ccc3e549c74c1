// A deployed version in workerd sees its bindings: vars and JSON as given, secrets, and its
// buckets through the platform's bucket service, the same buckets the catalogue (the API, S3,
// `npm run worker`) holds.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, deployed, moduleVersion, startHarness, type Harness } from './harness';

const WORKER = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const key = url.pathname.slice(1);
    switch (request.method) {
      case 'PUT': {
        const stored = await env.FILES.put(key, request.body, { httpMetadata: request.headers, customMetadata: { by: 'worker' } });
        return Response.json({ etag: stored.etag, size: stored.size, custom: stored.customMetadata });
      }
      case 'DELETE':
        await env.FILES.delete(key);
        return new Response('deleted');
    }
    if (url.pathname === '/env') return Response.json({ greeting: env.GREETING, config: env.CONFIG, secret: env.TOKEN, cf: request.cf, ip: request.headers.get('cf-connecting-ip'), url: request.url });
    if (url.pathname === '/list') {
      const page = await env.FILES.list({ prefix: url.searchParams.get('prefix') ?? undefined, include: ['customMetadata'] });
      return Response.json({ keys: page.objects.map((o) => o.key), custom: page.objects.map((o) => o.customMetadata), http: page.objects.map((o) => o.httpMetadata) });
    }
    if (url.pathname === '/multipart') {
      const upload = await env.FILES.createMultipartUpload('assembled.bin', { httpMetadata: { contentType: 'application/x-test' } });
      const first = await upload.uploadPart(1, new Uint8Array(5 * 1024 * 1024).fill(97));
      const second = await upload.uploadPart(2, 'tail');
      const object = await upload.complete([first, second]);
      const read = await env.FILES.get('assembled.bin', { range: { suffix: 4 } });
      return Response.json({ etag: object.etag, size: object.size, tail: await read.text(), range: read.range });
    }
    if (url.pathname === '/conditional') {
      const head = await env.FILES.head('notes.txt');
      const unchanged = await env.FILES.get('notes.txt', { onlyIf: { etagDoesNotMatch: head.etag } });
      const created = await env.FILES.put('notes.txt', 'again', { onlyIf: { etagDoesNotMatch: '*' } });
      const headers = await env.FILES.get('notes.txt', { onlyIf: new Headers({ 'if-none-match': 'W/"nope", "' + head.etag + '"' }) });
      return Response.json({ bodyless: !('body' in unchanged) || unchanged.body === undefined, created, headersBodyless: !('body' in headers) || headers.body === undefined });
    }
    if (url.pathname === '/ssec') {
      const key = 'a'.repeat(64);
      const stored = await env.FILES.put('secret.bin', 'encrypted at rest', { ssecKey: key });
      const without = await env.FILES.get('secret.bin').then(() => 'read', (error) => error.message);
      const withKey = await env.FILES.get('secret.bin', { ssecKey: key });
      const upload = await env.FILES.createMultipartUpload('secret-parts.bin', { ssecKey: key });
      const part = await upload.uploadPart(1, 'one part', { ssecKey: key });
      await upload.complete([part]);
      const parts = await env.FILES.get('secret-parts.bin', { ssecKey: key });
      return Response.json({ md5: stored.ssecKeyMd5, without, text: await withKey.text(), readMd5: withKey.ssecKeyMd5, parts: await parts.text() });
    }
    if (url.pathname === '/errors') {
      const caught = [];
      for (const attempt of [() => env.FILES.put('x'.repeat(1025), 'long'), () => env.FILES.list({ limit: 5000 }), () => env.FILES.get('notes.txt', { range: { offset: 10_000 } })]) {
        try { await attempt(); caught.push('no error'); } catch (error) { caught.push(String(error.message)); }
      }
      return Response.json(caught);
    }
    const object = await env.FILES.get(key);
    if (object === null) return new Response('missing', { status: 404 });
    const headers = new Headers();
    object.writeHttpMetadata(headers);
    headers.set('etag', object.httpEtag);
    return new Response(object.body, { headers });
  },
};
`;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
  await harness.catalogue.create('files');
  await harness.runtime.apply(
    deployed({
      files: moduleVersion(WORKER, [
        { type: 'plain_text', name: 'GREETING', text: 'héllo "world"\n' },
        { type: 'json', name: 'CONFIG', json: { limits: [1, 2], nested: { ok: true } } },
        { type: 'secret_text', name: 'TOKEN', text: 's3cr3t-value' },
        { type: 'r2_bucket', name: 'FILES', bucket_name: 'files' },
      ]),
    }),
  );
}, 60_000);

afterAll(() => harness?.close());

const call = (path: string, init?: RequestInit) => fetch(`${harness.url}/${ACCOUNT}/files${path}`, init);

describe('a deployed version', () => {
  it('sees its vars, JSON, secrets, request.cf and the client address', async () => {
    const response = await call('/env');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      greeting: 'héllo "world"\n',
      config: { limits: [1, 2], nested: { ok: true } },
      secret: 's3cr3t-value',
      cf: { country: 'NL' },
      ip: '203.0.113.7',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/env$/),
    });
  });

  it('writes and reads the catalogue\'s bucket through its binding, both ways', async () => {
    const put = await call('/notes.txt', { method: 'PUT', body: 'hello bucket', headers: { 'content-type': 'text/plain' } });
    expect(await put.json()).toEqual({ etag: createHash('md5').update('hello bucket').digest('hex'), size: 12, custom: { by: 'worker' } });
    const bucket = await harness.catalogue.open('files');
    const stored = await bucket.get('notes.txt');
    expect(await stored!.text()).toBe('hello bucket');
    expect(stored!.httpMetadata).toEqual({ contentType: 'text/plain' });
    await bucket.put('from-catalogue.txt', 'written outside', { httpMetadata: { contentType: 'text/x-outside', cacheExpiry: new Date('2030-01-02T03:04:05Z') } });
    const read = await call('/from-catalogue.txt');
    expect([read.status, await read.text(), read.headers.get('content-type'), read.headers.get('expires')]).toEqual([200, 'written outside', 'text/x-outside', 'Wed, 02 Jan 2030 03:04:05 GMT']);
    expect((await call('/nothing-here')).status).toBe(404);
    const list = (await (await call('/list')).json()) as { keys: string[]; custom: unknown[]; http: unknown[] };
    expect(list.keys).toEqual(['from-catalogue.txt', 'notes.txt']);
    // Only what `include` asked for.
    expect(list.custom).toEqual([{}, { by: 'worker' }]);
    expect(list.http).toEqual([null, null]);
    expect(await (await call('/notes.txt', { method: 'DELETE' })).text()).toBe('deleted');
    expect(await bucket.head('notes.txt')).toBeNull();
    await bucket.close();
  });

  it('streams a large object both ways', async () => {
    const big = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => i % 251);
    const put = await call('/big.bin', { method: 'PUT', body: big, headers: { 'content-length': String(big.length) } });
    expect(((await put.json()) as { size: number }).size).toBe(big.length);
    const read = new Uint8Array(await (await call('/big.bin')).arrayBuffer());
    expect(read.length).toBe(big.length);
    expect(Buffer.compare(read, big)).toBe(0);
  });

  it('runs multipart uploads, ranges and conditions through the binding', async () => {
    const answer = await call('/multipart');
    expect(answer.status, decodeURIComponent(answer.headers.get('x-run-error') ?? '')).toBe(200);
    const multipart = (await answer.json()) as { etag: string; size: number; tail: string; range: unknown };
    expect(multipart).toEqual({ etag: expect.stringMatching(/^[0-9a-f]{32}-2$/), size: 5 * 1024 * 1024 + 4, tail: 'tail', range: { offset: 5 * 1024 * 1024, length: 4 } });
    await call('/notes.txt', { method: 'PUT', body: 'first' });
    expect(await (await call('/conditional')).json()).toEqual({ bodyless: true, created: null, headersBodyless: true });
  });

  it('stores and reads with a customer key (SSE-C) through the binding, and refuses a read without it', async () => {
    const answer = await call('/ssec');
    expect(answer.status, decodeURIComponent(answer.headers.get('x-run-error') ?? '')).toBe(200);
    const md5 = createHash('md5').update(Buffer.from('a'.repeat(64), 'hex')).digest('base64');
    const found = (await answer.json()) as Record<string, string>;
    expect(found).toMatchObject({ md5, text: 'encrypted at rest', readMd5: md5, parts: 'one part' });
    expect(found.without).toMatch(/^get: .*\(10029\)$/);
    // Read without the key outside the binding too: refused.
    const bucket = await harness.catalogue.open('files');
    await expect(bucket.get('secret.bin')).rejects.toThrow(/10029/);
    await bucket.close();
  });

  it('gets the binding\'s errors as the platform words them', async () => {
    const errors = (await (await call('/errors')).json()) as string[];
    expect(errors[0]).toMatch(/^put: .*\(10020\)$/);
    expect(errors[1]).toMatch(/MaxKeys|limit/i);
    expect(errors[2]).toBe('get: The requested range is not satisfiable (10039)');
  });
});
