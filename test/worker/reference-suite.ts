// The HTTP suite of the reference worker, run unchanged against every runtime that serves it: our
// host and Miniflare (workerd), each at an old and a current compatibility date. Where runtimes
// may answer differently, the expectation comes from ./runtime-differences (the table in docs/buckets-and-workers.md).
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { differences, type Runtime } from './runtime-differences';

export const SECRET = 'correct horse battery staple';
export const ALLOWED = ['cat-pic.jpg', 'notes.txt', 'ranged.txt', 'empty', 'dir/ünï code.txt', 'with,comma', 'missing.txt', 'big.bin', 'streamed.txt'];

/** A reference worker being served: its base URL and the runtime behind it. */
export interface ReferenceTarget {
  url: string;
  runtime: Runtime;
}

/**
 * Defines the suite against the worker `target()` returns once the suite starts (its bucket
 * empty, `ALLOW_LIST` = ALLOWED, `AUTH_KEY_SECRET` = SECRET). Tests run in order and share the
 * bucket, as clients of one deployment would.
 */
export function describeReferenceWorker(name: string, target: () => ReferenceTarget | Promise<ReferenceTarget>): void {
  describe(name, () => {
    let served: ReferenceTarget;
    beforeAll(async () => {
      served = await target();
    });

    const url = (path: string) => `${served.url}/${path}`;
    const expected = () => differences[served.runtime];
    const auth = { 'X-Custom-Auth-Key': SECRET };
    const WRONG_KEYS = ['wrong', '', SECRET.slice(0, -1), `${SECRET}!`, SECRET.toUpperCase()];

    function put(path: string, body: string | Uint8Array, headers: Record<string, string> = {}) {
      return fetch(url(path), { method: 'PUT', body, headers: { ...auth, ...headers } });
    }

    async function expectText(response: Response, status: number, text: string) {
      expect(response.status).toBe(status);
      expect(await response.text()).toBe(text);
      expect(response.headers.get('content-type')).toBe('text/plain;charset=UTF-8');
    }

    const md5 = (text: string | Uint8Array) => createHash('md5').update(text).digest('hex');

  describe('authorization', () => {
    test('PUT needs the right X-Custom-Auth-Key: missing and wrong keys are refused and store nothing', async () => {
      for (const headers of [{}, ...WRONG_KEYS.map((key) => ({ 'X-Custom-Auth-Key': key }))]) {
        await expectText(await fetch(url('notes.txt'), { method: 'PUT', body: 'no', headers }), 403, 'Forbidden');
      }
      await expectText(await fetch(url('notes.txt')), 404, 'Object Not Found');
      await expectText(await put('notes.txt', 'yes'), 200, 'Put notes.txt successfully!');
      await expectText(await fetch(url('notes.txt')), 200, 'yes');
    });

    test('DELETE needs the right key too; a refused delete leaves the object', async () => {
      await put('cat-pic.jpg', 'meow');
      for (const headers of [{}, ...WRONG_KEYS.map((key) => ({ 'X-Custom-Auth-Key': key }))]) {
        await expectText(await fetch(url('cat-pic.jpg'), { method: 'DELETE', headers }), 403, 'Forbidden');
      }
      expect(await (await fetch(url('cat-pic.jpg'))).text()).toBe('meow');
      await expectText(await fetch(url('cat-pic.jpg'), { method: 'DELETE', headers: auth }), 200, 'Deleted!');
      await expectText(await fetch(url('cat-pic.jpg')), 404, 'Object Not Found');
      // Deleting what is not there is no error.
      await expectText(await fetch(url('cat-pic.jpg'), { method: 'DELETE', headers: auth }), 200, 'Deleted!');
    });

    test('GET and HEAD serve only keys of the allow list, whatever the headers', async () => {
      await expectText(await put('secret-plans.txt', 'hidden'), 200, 'Put secret-plans.txt successfully!');
      await expectText(await fetch(url('secret-plans.txt')), 403, 'Forbidden');
      await expectText(await fetch(url('secret-plans.txt'), { headers: auth }), 403, 'Forbidden');
      expect((await fetch(url('secret-plans.txt'), { method: 'HEAD' })).status).toBe(403);
      // A key of the list that is absent: 404.
      await expectText(await fetch(url('missing.txt')), 404, 'Object Not Found');
      const head = await fetch(url('missing.txt'), { method: 'HEAD' });
      expect(head.status).toBe(404);
      expect(await head.text()).toBe('');
    });

    test('the allow list matches whole keys after percent-decoding', async () => {
      await put('notes.txt', 'n');
      for (const path of ['notes.tx', 'notes.txt/', 'NOTES.TXT', '%6Eotes.txt']) {
        const response = await fetch(url(path));
        expect([path, response.status]).toEqual([path, path === '%6Eotes.txt' ? 200 : 403]);
      }
    });

    test('other methods: 405 with Allow, with or without the key', async () => {
      for (const method of ['POST', 'PATCH', 'OPTIONS']) {
        for (const headers of [{}, auth]) {
          const response = await fetch(url('notes.txt'), { method, headers, ...(method === 'OPTIONS' ? {} : { body: 'x' }) });
          expect(response.status).toBe(405);
          expect(response.headers.get('allow')).toBe('PUT, GET, DELETE');
          expect(await response.text()).toBe('Method Not Allowed');
        }
      }
    });
  });

  describe('objects and their headers', () => {
    test('PUT keeps the HTTP metadata of the request; GET answers it with etag, last-modified and length', async () => {
      const before = Math.floor(Date.now() / 1000) * 1000;
      const stored = await put('cat-pic.jpg', 'meow', {
        'Content-Type': 'image/jpeg',
        'Content-Language': 'en-GB',
        'Content-Disposition': 'inline; filename="cat.jpg"',
        'Cache-Control': 'max-age=60',
        Expires: 'Wed, 21 Oct 2037 07:28:00 GMT',
      });
      await expectText(stored, 200, 'Put cat-pic.jpg successfully!');
      expect(stored.headers.get('etag')).toBe(`"${md5('meow')}"`);

      const response = await fetch(url('cat-pic.jpg'));
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('meow');
      expect(Object.fromEntries([...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)))).toEqual({
        'content-type': 'image/jpeg',
        'content-language': 'en-GB',
        'content-disposition': 'inline; filename="cat.jpg"',
        'cache-control': 'max-age=60',
        expires: 'Wed, 21 Oct 2037 07:28:00 GMT',
        etag: `"${md5('meow')}"`,
        'last-modified': response.headers.get('last-modified'),
        'accept-ranges': 'bytes',
        'content-length': '4',
      });
      expect(Date.parse(response.headers.get('last-modified')!)).toBeGreaterThanOrEqual(before);
    });

    test('HEAD answers the same headers without a body', async () => {
      await put('cat-pic.jpg', 'purr', { 'Content-Type': 'image/jpeg' });
      const response = await fetch(url('cat-pic.jpg'), { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/jpeg');
      expect(response.headers.get('content-length')).toBe('4');
      expect(response.headers.get('etag')).toBe(`"${md5('purr')}"`);
      expect(await response.text()).toBe('');
    });

    test('the key is the percent-decoded path: unicode, spaces, slashes, commas', async () => {
      await expectText(await put('dir/%C3%BCn%C3%AF%20code.txt', 'unicode'), 200, 'Put dir/ünï code.txt successfully!');
      expect(await (await fetch(url('dir/ünï code.txt'))).text()).toBe('unicode');
      await expectText(await put('with%2Ccomma', 'comma'), 200, 'Put with,comma successfully!');
      expect(await (await fetch(url('with,comma'))).text()).toBe('comma');
    });

    test('an empty body stores an empty object', async () => {
      await expectText(await put('empty', ''), 200, 'Put empty successfully!');
      const response = await fetch(url('empty'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe('0');
      expect(response.headers.get('etag')).toBe(`"${md5('')}"`);
      expect(await response.text()).toBe('');
    });

    test('a PUT replaces the object and its metadata', async () => {
      await put('notes.txt', 'first', { 'Content-Type': 'text/markdown' });
      // Bytes, so that fetch adds no Content-Type of its own.
      await put('notes.txt', new TextEncoder().encode('second'));
      const response = await fetch(url('notes.txt'));
      expect(await response.text()).toBe('second');
      expect(response.headers.get('content-type')).toBeNull();
    });

    test('bad requests: malformed percent-encoding, a key over 1024 bytes, malformed conditional headers', async () => {
      await expectText(await put('bad%E0%A4%A', 'x'), 400, 'Bad Request: the path is not valid percent-encoding');
      await expectText(await fetch(url('bad%E0%A4%A')), 403, 'Forbidden');
      await expectText(await put('k'.repeat(1025), 'x'), 400, 'Bad Request: the key is not a valid object name (at most 1024 bytes of UTF-8)');
      expect((await put('k'.repeat(1024), 'x')).status).toBe(200);
      await put('notes.txt', 'n');
      await expectText(
        await fetch(url('notes.txt'), { headers: { 'If-Match': 'unquoted' } }),
        400,
        'Bad Request: Invalid ETag in if-match header',
      );
    });
  });

  describe('streamed bodies', () => {
    const CHUNK = 1024 * 1024;
    const CHUNKS = 8;
    const chunk = (index: number) => new Uint8Array(CHUNK).fill(index * 37 + 1);
    const streamOfChunks = () => {
      let index = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (index === CHUNKS) controller.close();
          else controller.enqueue(chunk(index++));
        },
      });
    };
    const sent = () => {
      const hash = createHash('md5');
      for (let index = 0; index < CHUNKS; index++) hash.update(chunk(index));
      return hash.digest('hex');
    };
    const streamedPut = (path: string, headers: Record<string, string>) =>
      fetch(url(path), { method: 'PUT', body: streamOfChunks(), headers: { ...auth, ...headers }, duplex: 'half' } as RequestInit);

    test('a large body streamed with its Content-Length is stored, served whole and ranged', async () => {
      const stored = await streamedPut('big.bin', { 'Content-Length': String(CHUNK * CHUNKS), 'Content-Type': 'application/octet-stream' });
      await expectText(stored, 200, 'Put big.bin successfully!');
      expect(stored.headers.get('etag')).toBe(`"${sent()}"`);
      const response = await fetch(url('big.bin'));
      expect([response.status, response.headers.get('content-length')]).toEqual([200, String(CHUNK * CHUNKS)]);
      expect(md5(new Uint8Array(await response.arrayBuffer()))).toBe(sent());
      const ranged = await fetch(url('big.bin'), { headers: { Range: `bytes=${5 * CHUNK - 2}-${5 * CHUNK + 1}` } });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes ${5 * CHUNK - 2}-${5 * CHUNK + 1}/${CHUNK * CHUNKS}`);
      expect([...new Uint8Array(await ranged.arrayBuffer())]).toEqual([...chunk(4).subarray(0, 2), ...chunk(5).subarray(0, 2)]);
    });

    test('a body streamed without a length (chunked) cannot be stored: 400, and nothing is stored', async () => {
      // A few small chunks: the whole body is sent before the answer, which comes without reading it.
      const body = new Blob(['a few ', 'small ', 'chunks']).stream();
      const chunked = await fetch(url('streamed.txt'), { method: 'PUT', body, headers: auth, duplex: 'half' } as RequestInit);
      await expectText(
        chunked,
        400,
        'Bad Request: Provided readable stream must have a known length (request/response body or readable half of FixedLengthStream)',
      );
      await expectText(await fetch(url('streamed.txt')), 404, 'Object Not Found');
    });
  });

  describe('conditional requests', () => {
    let etag: string;
    let lastModified: string;
    beforeAll(async () => {
      await put('ranged.txt', '0123456789', { 'Cache-Control': 'no-cache', 'Content-Type': 'text/plain' });
      const response = await fetch(url('ranged.txt'), { method: 'HEAD' });
      etag = response.headers.get('etag')!;
      lastModified = response.headers.get('last-modified')!;
    });

    const get = (headers: Record<string, string>, method = 'GET') => fetch(url('ranged.txt'), { method, headers });
    const LONG_AGO = 'Sat, 01 Jan 2000 00:00:00 GMT';
    const FAR_AHEAD = 'Fri, 01 Jan 2100 00:00:00 GMT';

    test('If-None-Match with the etag (strong or weak, alone or in a list, or *): 304 with validators only', async () => {
      for (const value of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const response = await get({ 'If-None-Match': value });
        expect([value, response.status]).toEqual([value, 304]);
        expect(response.headers.get('etag')).toBe(etag);
        expect(response.headers.get('last-modified')).toBe(lastModified);
        expect(response.headers.get('cache-control')).toBe('no-cache');
        expect(response.headers.get('content-type')).toBeNull();
        expect(await response.text()).toBe('');
      }
      expect((await get({ 'If-None-Match': '"other"' })).status).toBe(200);
    });

    test('If-Modified-Since: 304 unless changed after the date', async () => {
      expect((await get({ 'If-Modified-Since': lastModified })).status).toBe(304);
      expect((await get({ 'If-Modified-Since': FAR_AHEAD })).status).toBe(304);
      const changed = await get({ 'If-Modified-Since': LONG_AGO });
      expect(changed.status).toBe(200);
      expect(await changed.text()).toBe('0123456789');
      // Not a date: ignored.
      expect((await get({ 'If-Modified-Since': 'yesterday' })).status).toBe(200);
      // If-None-Match decides when both are given.
      expect((await get({ 'If-None-Match': '"other"', 'If-Modified-Since': FAR_AHEAD })).status).toBe(200);
    });

    test('If-Match and If-Unmodified-Since: 412 when they fail', async () => {
      await expectText(await get({ 'If-Match': '"other"' }), 412, 'Precondition Failed');
      await expectText(await get({ 'If-Match': `W/${etag}` }), 412, 'Precondition Failed');
      await expectText(await get({ 'If-Unmodified-Since': LONG_AGO }), 412, 'Precondition Failed');
      expect(await (await get({ 'If-Match': etag })).text()).toBe('0123456789');
      expect((await get({ 'If-Match': '*' })).status).toBe(200);
      expect((await get({ 'If-Unmodified-Since': FAR_AHEAD })).status).toBe(200);
    });

    test('with both kinds failing, 412 wins; with only the cache kind failing, 304', async () => {
      expect((await get({ 'If-Match': '"other"', 'If-None-Match': etag })).status).toBe(412);
      expect((await get({ 'If-Match': etag, 'If-None-Match': etag })).status).toBe(304);
      expect((await get({ 'If-Unmodified-Since': FAR_AHEAD, 'If-Modified-Since': FAR_AHEAD })).status).toBe(304);
      expect((await get({ 'If-Unmodified-Since': LONG_AGO, 'If-Modified-Since': FAR_AHEAD })).status).toBe(412);
    });

    test('HEAD is conditional too', async () => {
      expect((await get({ 'If-None-Match': etag }, 'HEAD')).status).toBe(304);
      const failed = await get({ 'If-Match': '"other"' }, 'HEAD');
      expect(failed.status).toBe(412);
      expect(await failed.text()).toBe('');
    });

    test('a conditional PUT: If-None-Match: * creates only when absent', async () => {
      await expectText(await put('ranged.txt', 'overwritten?', { 'If-None-Match': '*' }), 412, 'Precondition Failed');
      expect(await (await fetch(url('ranged.txt'))).text()).toBe('0123456789');
      await fetch(url('notes.txt'), { method: 'DELETE', headers: auth });
      await expectText(await put('notes.txt', 'created', { 'If-None-Match': '*' }), 200, 'Put notes.txt successfully!');
      await expectText(await put('notes.txt', 'updated', { 'If-Match': `"${md5('created')}"` }), 200, 'Put notes.txt successfully!');
      expect(await (await fetch(url('notes.txt'))).text()).toBe('updated');
    });
  });

  describe('range requests', () => {
    beforeAll(async () => {
      await put('ranged.txt', '0123456789', { 'Content-Type': 'text/plain' });
    });

    const ranged = (range: string, headers: Record<string, string> = {}, path = 'ranged.txt') =>
      fetch(url(path), { headers: { Range: range, ...headers } });

    test.each([
      ['bytes=2-5', '2345', 'bytes 2-5/10'],
      ['bytes=7-', '789', 'bytes 7-9/10'],
      ['bytes=-3', '789', 'bytes 7-9/10'],
      ['bytes=0-0', '0', 'bytes 0-0/10'],
      ['bytes=8-100', '89', 'bytes 8-9/10'],
    ])('%s: 206 with Content-Range', async (range, body, contentRange) => {
      const response = await ranged(range);
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(contentRange);
      expect(response.headers.get('content-length')).toBe(String(body.length));
      expect(response.headers.get('content-type')).toBe('text/plain');
      expect(response.headers.get('etag')).toBe(`"${md5('0123456789')}"`);
      expect(await response.text()).toBe(body);
    });

    /** 416 with the size, or (Miniflare, see runtime-differences) the whole object. */
    async function expectUnsatisfiable(response: Response, whole: string) {
      if (expected().unsatisfiableRange === 'refused') {
        expect(response.headers.get('content-range')).toBe(`bytes */${whole.length}`);
        await expectText(response, 416, 'Range Not Satisfiable');
      } else {
        expect([response.status, response.headers.get('content-range'), await response.text()]).toEqual([200, null, whole]);
      }
    }

    test.each(['bytes=10-', 'bytes=100-200', 'bytes=-0'])('%s: not satisfiable', async (range) => {
      await expectUnsatisfiable(await ranged(range), '0123456789');
    });

    test.each(['bytes=0-', 'bytes=-20', 'bytes=5-2', 'items=0-3', 'bytes=0-1,4-5', 'bytes=x-y'])(
      '%s: the whole object, 200 (a range covering it all, or one that is ignored)',
      async (range) => {
        const response = await ranged(range);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-range')).toBeNull();
        expect(await response.text()).toBe('0123456789');
      },
    );

    test('preconditions come before the range', async () => {
      const etag = `"${md5('0123456789')}"`;
      expect((await ranged('bytes=100-', { 'If-None-Match': etag })).status).toBe(304);
      expect((await ranged('bytes=0-1', { 'If-Match': '"other"' })).status).toBe(412);
      const passing = await ranged('bytes=0-1', { 'If-Match': etag });
      expect([passing.status, await passing.text()]).toEqual([206, '01']);
    });

    test('HEAD ignores Range; a missing key is 404 whatever the range', async () => {
      const head = await fetch(url('ranged.txt'), { method: 'HEAD', headers: { Range: 'bytes=0-1' } });
      expect([head.status, head.headers.get('content-length')]).toEqual([200, '10']);
      await expectText(await ranged('bytes=100-', {}, 'missing.txt'), 404, 'Object Not Found');
      await expectText(await ranged('bytes=0-1', {}, 'missing.txt'), 404, 'Object Not Found');
    });

    test('a range of an empty object cannot be satisfied', async () => {
      await put('empty', '');
      await expectUnsatisfiable(await ranged('bytes=0-', {}, 'empty'), '');
    });
  });
  });
}
