import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { eachEngine, expectBucketError, md5, streamOf, test } from './engines';
import { declareStreamLength } from '../../src/bucket';

const hex = (buffer: ArrayBuffer | undefined) => (buffer ? Buffer.from(buffer).toString('hex') : undefined);

eachEngine(({ open }) => {
  describe('put', () => {
    test('answers the stored metadata in the platform format', async () => {
      const bucket = open({ clock: () => Date.UTC(2024, 0, 2, 3, 4, 5, 678) });
      const stored = await bucket.put('greeting', 'hello');
      expect(stored).toMatchObject({
        key: 'greeting',
        size: 5,
        etag: md5('hello'),
        httpEtag: `"${md5('hello')}"`,
        storageClass: 'Standard',
        httpMetadata: {},
        customMetadata: {},
      });
      expect(stored.version).toMatch(/^[0-9a-f]{32}$/);
      expect(stored.uploaded).toEqual(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)));
      expect(hex(stored.checksums.md5)).toBe(md5('hello'));
      expect(stored.checksums.toJSON()).toEqual({ md5: md5('hello') });
      // Present, as on the platform, but nothing was read.
      expect(stored).toHaveProperty('range', undefined);
    });

    test('stores every kind of value byte for byte', async () => {
      const bucket = open();
      const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
      const values: [string, unknown, number[]][] = [
        ['string', 'hé', [0x68, 0xc3, 0xa9]],
        ['ArrayBuffer', new Uint8Array([1, 2, 3]).buffer, [1, 2, 3]],
        ['view of part of a buffer', backing.subarray(2, 5), [1, 2, 3]],
        ['DataView', new DataView(backing.buffer, 2, 2), [1, 2]],
        ['Blob', new Blob([new Uint8Array([4, 5]), 'x']), [4, 5, 0x78]],
        ['ReadableStream', streamOf([new Uint8Array([1]), new Uint8Array([2, 3])]), [1, 2, 3]],
        ['null', null, []],
        ['undefined', undefined, []],
      ];
      for (const [key, value, bytes] of values) {
        const stored = await bucket.put(key, value as never);
        expect(stored.size, key).toBe(bytes.length);
        const read = await bucket.get(key);
        expect([...(await read!.bytes())], key).toEqual(bytes);
      }
    });

    test('a new upload of a key replaces it with a new version; equal bytes keep the etag', async () => {
      const bucket = open();
      const first = await bucket.put('k', 'same');
      const second = await bucket.put('k', 'same');
      expect(second.version).not.toBe(first.version);
      expect(second.etag).toBe(first.etag);
      await bucket.put('k', 'other');
      expect(await (await bucket.get('k'))!.text()).toBe('other');
      expect((await bucket.head('k'))!.etag).toBe(md5('other'));
    });

    test('stores a copy: changing the caller buffer or the result afterwards changes nothing', async () => {
      const bucket = open();
      const bytes = new Uint8Array([1, 2, 3]);
      const stored = await bucket.put('k', bytes, { customMetadata: { a: '1' } });
      bytes[0] = 7;
      stored.customMetadata!.a = 'changed';
      const read = await bucket.get('k');
      expect([...(await read!.bytes())]).toEqual([1, 2, 3]);
      expect(read!.customMetadata).toEqual({ a: '1' });
    });

    test('an erroring stream rejects the put and leaves the previous object', async () => {
      const bucket = open();
      await bucket.put('k', 'before');
      let sent = false;
      const failing = new ReadableStream({
        pull(controller) {
          if (sent) controller.error(new Error('connection reset'));
          else controller.enqueue(new Uint8Array(100_000));
          sent = true;
        },
      });
      declareStreamLength(failing, 200_000);
      await expect(bucket.put('k', failing)).rejects.toThrow('connection reset');
      expect(await (await bucket.get('k'))!.text()).toBe('before');
    });

    test('refuses values that are not bytes', async () => {
      const bucket = open();
      await expect(bucket.put('k', 42 as never)).rejects.toThrow(TypeError);
      await expect(bucket.put('k', { bytes: [1] } as never)).rejects.toThrow(
        'The value must be a ReadableStream, ArrayBuffer, ArrayBufferView, string, Blob or null, not an object.',
      );
      const locked = streamOf(['x']);
      locked.getReader();
      await expect(bucket.put('k', locked)).rejects.toThrow('This ReadableStream is currently locked to a reader.');
      const strings = streamOf([]).pipeThrough(new TransformStream({ start: (c) => c.enqueue('text') }));
      declareStreamLength(strings, 4);
      await expect(bucket.put('k', strings))
        .rejects.toThrow('Stream chunks must be ArrayBuffer or ArrayBufferView, not a string.');
      expect(await bucket.head('k')).toBeNull();
    });

    test('refuses a value larger than a single put may be (5 GiB - 5 MiB)', async () => {
      const bucket = open();
      const huge = Object.defineProperty(new Blob(['x']), 'size', { value: 5 * 1024 ** 3 - 5 * 1024 ** 2 + 1 });
      await expectBucketError(
        bucket.put('k', huge),
        100100,
        'put: Your proposed upload exceeds the maximum allowed object size. (100100)',
      );
      expect(await bucket.head('k')).toBeNull();
    });

    test('refuses options that are not an object, and storage classes other than Standard', async () => {
      const bucket = open();
      await expect(bucket.put('k', 'v', 'fast' as never)).rejects.toThrow('put options must be an object, not a string.');
      await expect(bucket.put('k', 'v', { storageClass: 'InfrequentAccess' })).rejects.toThrow(TypeError);
      expect((await bucket.put('k', 'v', { storageClass: 'Standard' })).storageClass).toBe('Standard');
    });
  });

  describe('HTTP and custom metadata', () => {
    test('httpMetadata as an object is stored and written back as headers', async () => {
      const bucket = open();
      const expiry = new Date('2030-01-02T03:04:05Z');
      const httpMetadata = {
        contentType: 'text/plain',
        contentLanguage: 'fr',
        contentDisposition: 'attachment',
        contentEncoding: 'identity',
        cacheControl: 'max-age=60',
        cacheExpiry: expiry,
      };
      expect((await bucket.put('k', 'v', { httpMetadata })).httpMetadata).toEqual(httpMetadata);
      const read = (await bucket.head('k'))!;
      expect(read.httpMetadata).toEqual(httpMetadata);
      const headers = new Headers();
      read.writeHttpMetadata(headers);
      expect(Object.fromEntries(headers)).toEqual({
        'content-type': 'text/plain',
        'content-language': 'fr',
        'content-disposition': 'attachment',
        'content-encoding': 'identity',
        'cache-control': 'max-age=60',
        expires: 'Wed, 02 Jan 2030 03:04:05 GMT',
      });
    });

    test('httpMetadata as request Headers takes the content headers and Expires', async () => {
      const bucket = open();
      const headers = new Headers({
        'Content-Type': 'image/png',
        'Cache-Control': 'no-store',
        Expires: 'Wed, 02 Jan 2030 03:04:05 GMT',
        'X-Other': 'ignored',
      });
      await bucket.put('k', 'v', { httpMetadata: headers });
      expect((await bucket.head('k'))!.httpMetadata).toEqual({
        contentType: 'image/png',
        cacheControl: 'no-store',
        cacheExpiry: new Date('2030-01-02T03:04:05Z'),
      });
    });

    test('httpMetadata given on a read overrides the stored fields in that result only', async () => {
      const bucket = open();
      await bucket.put('k', 'v', { httpMetadata: { contentType: 'text/plain', cacheControl: 'no-cache' } });
      const read = (await bucket.get('k', { httpMetadata: { contentType: 'application/json' } }))!;
      expect(read.httpMetadata).toEqual({ contentType: 'application/json', cacheControl: 'no-cache' });
      const headers = new Headers();
      read.writeHttpMetadata(headers);
      expect(headers.get('content-type')).toBe('application/json');
      expect((await read.blob()).type).toBe('application/json');
      expect((await bucket.head('k'))!.httpMetadata).toEqual({ contentType: 'text/plain', cacheControl: 'no-cache' });
    });

    test('custom metadata is kept up to 8,192 bytes of keys plus values', async () => {
      const bucket = open();
      const atLimit = { k: 'é'.repeat(4095) + 'x' }; // 1 + 8190 + 1 bytes
      expect((await bucket.put('k', 'v', { customMetadata: atLimit })).customMetadata).toEqual(atLimit);
      expect((await bucket.head('k'))!.customMetadata).toEqual(atLimit);
      await expectBucketError(
        bucket.put('k', 'v', { customMetadata: { k: 'é'.repeat(4096) } }),
        10012,
        'put: Your metadata headers exceed the maximum allowed metadata size. (10012)',
      );
    });

    test('bad metadata is refused before anything is stored', async () => {
      const bucket = open();
      await expect(bucket.put('k', 'v', { customMetadata: { n: 1 } as never })).rejects.toThrow(
        'customMetadata.n must be a string, not a number.',
      );
      await expect(bucket.put('k', 'v', { customMetadata: 'x' as never })).rejects.toThrow(TypeError);
      await expect(bucket.put('k', 'v', { httpMetadata: { contentType: 5 } as never })).rejects.toThrow(
        'httpMetadata.contentType must be a string, not a number.',
      );
      await expect(bucket.put('k', 'v', { httpMetadata: { cacheExpiry: 'tomorrow' } as never })).rejects.toThrow(
        'httpMetadata.cacheExpiry must be a valid Date.',
      );
      await expect(bucket.put('k', 'v', { httpMetadata: new Headers({ Expires: 'soon' }) })).rejects.toThrow(
        'httpMetadata: the Expires header is not a date (soon).',
      );
      expect(await bucket.head('k')).toBeNull();
    });
  });

  describe('integrity hashes', () => {
    const value = 'integrity';
    const digest = (algorithm: string) => createHash(algorithm).update(value).digest();

    test.each(['md5', 'sha1', 'sha256', 'sha384', 'sha512'] as const)(
      '%s as hex or binary is checked and stored',
      async (algorithm) => {
        const bucket = open();
        const expected = digest(algorithm);
        const asHex = await bucket.put('hex', value, { [algorithm]: expected.toString('hex').toUpperCase() });
        expect(asHex.checksums.toJSON()).toEqual({ md5: md5(value), [algorithm]: expected.toString('hex') });
        const asBinary = await bucket.put('binary', value, { [algorithm]: new Uint8Array(expected).buffer });
        expect(hex(asBinary.checksums[algorithm])).toBe(expected.toString('hex'));
        expect((await bucket.head('binary'))!.checksums.toJSON()[algorithm]).toBe(expected.toString('hex'));
      },
    );

    test('a mismatch rejects the put, names both hashes and stores nothing', async () => {
      const bucket = open();
      await bucket.put('k', 'previous');
      const wrong = '0'.repeat(64);
      const actual = digest('sha256').toString('hex');
      await expectBucketError(
        bucket.put('k', value, { sha256: wrong }),
        10037,
        `put: The SHA-256 checksum you specified did not match what we received.\nYou provided a SHA-256 checksum with value: ${wrong}\nActual SHA-256 was: ${actual} (10037)`,
      );
      expect(await (await bucket.get('k'))!.text()).toBe('previous');
    });

    test('malformed hashes are argument errors', async () => {
      const bucket = open();
      const md5Hex = md5(value);
      await expect(bucket.put('k', value, { md5: md5Hex, sha1: digest('sha1').toString('hex') })).rejects.toThrow(
        'You cannot specify multiple hashing algorithms.',
      );
      await expect(bucket.put('k', value, { md5: md5Hex.slice(1) })).rejects.toThrow('MD5 is 32 hex characters, not 31');
      await expect(bucket.put('k', value, { md5: 'z'.repeat(32) })).rejects.toThrow(
        "Provided MD5 wasn't a valid hex string",
      );
      await expect(bucket.put('k', value, { sha1: new ArrayBuffer(19) })).rejects.toThrow('SHA-1 is 20 bytes, not 19');
      await expect(bucket.put('k', value, { md5: 5 as never })).rejects.toThrow(TypeError);
      expect(await bucket.head('k')).toBeNull();
    });
  });

  describe('head and get', () => {
    test('a missing key is null, not an error', async () => {
      const bucket = open();
      expect(await bucket.head('missing')).toBeNull();
      expect(await bucket.get('missing')).toBeNull();
      expect(await bucket.get('missing', { onlyIf: { etagMatches: 'x' } })).toBeNull();
    });

    test('head answers metadata without a body or range', async () => {
      const bucket = open();
      const stored = await bucket.put('k', 'value', { customMetadata: { a: 'b' } });
      const head = (await bucket.head('k'))!;
      expect(head).toMatchObject({ key: 'k', size: 5, etag: stored.etag, version: stored.version });
      expect(head.customMetadata).toEqual({ a: 'b' });
      expect(head.httpMetadata).toEqual({});
      expect(head.uploaded).toEqual(stored.uploaded);
      expect('body' in head).toBe(false);
      expect(head.range).toEqual({ offset: 0, length: 5 });
    });

    test('get answers the body once, in every form, and reports the range served', async () => {
      const bucket = open();
      await bucket.put('k', '{"a":[1,2]}', { httpMetadata: { contentType: 'application/json' } });
      const forms = {
        text: async (o: NonNullable<Awaited<ReturnType<typeof bucket.get>>>) => o.text(),
        json: async (o: NonNullable<Awaited<ReturnType<typeof bucket.get>>>) => o.json(),
        arrayBuffer: async (o: NonNullable<Awaited<ReturnType<typeof bucket.get>>>) =>
          Buffer.from(await o.arrayBuffer()).toString(),
        bytes: async (o: NonNullable<Awaited<ReturnType<typeof bucket.get>>>) => Buffer.from(await o.bytes()).toString(),
        blob: async (o: NonNullable<Awaited<ReturnType<typeof bucket.get>>>) => {
          const blob = await o.blob();
          return `${blob.type} ${await blob.text()}`;
        },
        body: async (o: NonNullable<Awaited<ReturnType<typeof bucket.get>>>) => new Response(o.body).text(),
      };
      const answers: Record<string, unknown> = {};
      for (const [name, read] of Object.entries(forms)) {
        const object = (await bucket.get('k'))!;
        expect(object.range).toEqual({ offset: 0, length: 11 });
        expect(object.bodyUsed).toBe(false);
        answers[name] = await read(object);
        expect(object.bodyUsed, name).toBe(true);
        await expect(object.text(), name).rejects.toThrow(
          'Body has already been used. It can only be used once. Use tee() first if you need to read it twice.',
        );
      }
      expect(answers).toEqual({
        text: '{"a":[1,2]}',
        json: { a: [1, 2] },
        arrayBuffer: '{"a":[1,2]}',
        bytes: '{"a":[1,2]}',
        blob: 'application/json {"a":[1,2]}',
        body: '{"a":[1,2]}',
      });
    });

    test('an empty object reads as an empty body', async () => {
      const bucket = open();
      await bucket.put('empty', null);
      const read = (await bucket.get('empty'))!;
      expect(read.size).toBe(0);
      expect(read.range).toEqual({ offset: 0, length: 0 });
      expect(await read.text()).toBe('');
      expect(read.etag).toBe(md5(''));
    });

    test('a large body streams in several chunks and arrives intact', async () => {
      const bucket = open();
      const bytes = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 7) % 251);
      await bucket.put('large', bytes);
      const read = (await bucket.get('large'))!;
      const chunks: Uint8Array[] = [];
      for await (const chunk of read.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      expect(read.etag).toBe(md5(bytes));
    });

    test.each([
      ['small', 1000],
      ['large', 2.5 * 1024 * 1024],
    ])('a %s body is a byte stream: a BYOB reader reuses its own buffer, also after a default read', async (_, size) => {
      const bucket = open();
      const bytes = Buffer.alloc(size).map((_, i) => i % 241);
      await bucket.put('k', bytes);

      const readByob = async (reader: ReadableStreamBYOBReader, into: Buffer[]) => {
        for (let view = new Uint8Array(100_000); ; ) {
          const { done, value } = await reader.read(view);
          if (done) return Buffer.concat(into);
          into.push(Buffer.from(value));
          view = new Uint8Array(value.buffer);
        }
      };
      const byobOnly = (await bucket.get('k'))!.body.getReader({ mode: 'byob' });
      expect((await readByob(byobOnly, [])).equals(bytes)).toBe(true);

      const mixed = (await bucket.get('k'))!.body;
      const defaultReader = mixed.getReader();
      const first = Buffer.from((await defaultReader.read()).value!);
      defaultReader.releaseLock();
      expect((await readByob(mixed.getReader({ mode: 'byob' }), [first])).equals(bytes)).toBe(true);
    });

    test('cancelling a body leaves the object readable', async () => {
      const bucket = open();
      await bucket.put('large', new Uint8Array(2 * 1024 * 1024).fill(3));
      const read = (await bucket.get('large'))!;
      const reader = read.body.getReader();
      await reader.read();
      await reader.cancel();
      expect(read.bodyUsed).toBe(true);
      expect((await (await bucket.get('large'))!.bytes()).byteLength).toBe(2 * 1024 * 1024);
    });
  });

  describe('delete', () => {
    test('deletes one key or many; missing keys are ignored', async () => {
      const bucket = open();
      await Promise.all(['a', 'b', 'c', 'd'].map((key) => bucket.put(key, key)));
      await bucket.delete('a');
      await bucket.delete(['b', 'c', 'never-there', 'b']);
      expect(await bucket.head('a')).toBeNull();
      expect(await bucket.get('b')).toBeNull();
      expect(await bucket.head('c')).toBeNull();
      expect((await bucket.list()).objects.map((o) => o.key)).toEqual(['d']);
      await expect(bucket.delete([])).resolves.toBeUndefined();
    });

    test('refuses keys that are not strings', async () => {
      const bucket = open();
      await expect(bucket.delete(['a', 5 as never])).rejects.toThrow('delete: the key must be a string, not a number.');
    });
  });

  describe('keys', () => {
    test('are strings of at most 1024 bytes of UTF-8; the empty key is valid', async () => {
      const bucket = open();
      await bucket.put('', 'empty key');
      expect(await (await bucket.get(''))!.text()).toBe('empty key');
      const longest = 'k'.repeat(1024);
      expect((await bucket.put(longest, 'v')).key).toBe(longest);
      const tooLong = '€'.repeat(342); // 1026 bytes
      for (const [action, call] of [
        ['put', () => bucket.put(tooLong, 'v')],
        ['get', () => bucket.get(tooLong)],
        ['head', () => bucket.head(tooLong)],
        ['delete', () => bucket.delete(tooLong)],
        ['createMultipartUpload', () => bucket.createMultipartUpload(tooLong)],
      ] as const) {
        await expectBucketError(call(), 10020, `${action}: The specified object name is not valid. (10020)`);
      }
      await expect(bucket.head(7 as never)).rejects.toThrow('head: the key must be a string, not a number.');
      await expect(bucket.get(undefined as never)).rejects.toThrow(TypeError);
      await expect(bucket.put(null as never, 'v')).rejects.toThrow(TypeError);
    });

    test('path-like and unusual keys are plain names that never collide', async () => {
      const bucket = open();
      const keys = ['../x', '/etc/passwd', '..', '.', 'a/../b', 'a/b', 'a\\b', 'nul\u0000byte', 'CON', '😀/ü', ' ', 'x'.repeat(1024)];
      for (const key of keys) await bucket.put(key, `value of ${key}`);
      for (const key of keys) expect(await (await bucket.get(key))!.text()).toBe(`value of ${key}`);
      expect((await bucket.list()).objects.length).toBe(keys.length);
    });

    test('a lone surrogate is stored as U+FFFD, as UTF-8 keys require', async () => {
      const bucket = open();
      expect((await bucket.put('a\uD800b', 'v')).key).toBe('a\uFFFDb');
      expect(await (await bucket.get('a\uFFFDb'))!.text()).toBe('v');
    });
  });
});
