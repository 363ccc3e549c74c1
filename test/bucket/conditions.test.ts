import { describe, expect } from 'vitest';
import type { Conditional, OpenBucket, StoredObject } from '../../src/bucket';
import { eachEngine, md5, streamOf, test } from './engines';

const UPLOADED = Date.UTC(2024, 4, 6, 10, 20, 30, 500); // 10:20:30.500
const at = (ms: number) => new Date(UPLOADED + ms);
const httpDate = (ms: number) => at(ms).toUTCString();
const ETAG = md5('stored');

eachEngine(({ open }) => {
  const withObject = async (): Promise<OpenBucket> => {
    const bucket = open({ clock: () => UPLOADED });
    await bucket.put('k', 'stored');
    return bucket;
  };

  /** Whether a get under the condition returned the body. */
  const passes = async (bucket: OpenBucket, onlyIf: Conditional | Headers) => {
    const read = await bucket.get('k', { onlyIf });
    expect(read).not.toBeNull();
    return 'body' in read!;
  };

  describe('as a Conditional object, on get', () => {
    test('etagMatches compares strongly; * matches any object', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, { etagMatches: ETAG })).toBe(true);
      expect(await passes(bucket, { etagMatches: '*' })).toBe(true);
      expect(await passes(bucket, { etagMatches: 'other' })).toBe(false);
    });

    test('etagDoesNotMatch passes when the etag differs', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, { etagDoesNotMatch: 'other' })).toBe(true);
      expect(await passes(bucket, { etagDoesNotMatch: ETAG })).toBe(false);
      expect(await passes(bucket, { etagDoesNotMatch: '*' })).toBe(false);
    });

    test('uploadedBefore and uploadedAfter compare strictly', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, { uploadedBefore: at(1) })).toBe(true);
      expect(await passes(bucket, { uploadedBefore: at(0) })).toBe(false);
      expect(await passes(bucket, { uploadedAfter: at(-1) })).toBe(true);
      expect(await passes(bucket, { uploadedAfter: at(0) })).toBe(false);
    });

    test('secondsGranularity floors both dates to seconds first', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, { uploadedAfter: at(-300) })).toBe(true);
      expect(await passes(bucket, { uploadedAfter: at(-300), secondsGranularity: true })).toBe(false);
      expect(await passes(bucket, { uploadedBefore: at(400) })).toBe(true);
      expect(await passes(bucket, { uploadedBefore: at(400), secondsGranularity: true })).toBe(false);
    });

    test('a passing etag condition makes the matching date condition irrelevant (RFC 7232)', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, { etagMatches: ETAG, uploadedBefore: at(-1000) })).toBe(true);
      expect(await passes(bucket, { etagMatches: 'other', uploadedBefore: at(1000) })).toBe(false);
      expect(await passes(bucket, { etagDoesNotMatch: 'other', uploadedAfter: at(1000) })).toBe(true);
      expect(await passes(bucket, { etagDoesNotMatch: ETAG, uploadedAfter: at(-1000) })).toBe(false);
      // The other pairing is not overridden.
      expect(await passes(bucket, { etagMatches: ETAG, uploadedAfter: at(1000) })).toBe(false);
    });

    test('a failed condition answers the metadata without a body', async () => {
      const bucket = await withObject();
      const read = (await bucket.get('k', { onlyIf: { etagMatches: 'other' } })) as StoredObject;
      expect(read).toMatchObject({ key: 'k', etag: ETAG, size: 6, httpMetadata: {}, customMetadata: {} });
      expect('body' in read).toBe(false);
      expect(read.range).toEqual({ offset: 0, length: 6 });
    });

    test('bad conditions are argument errors', async () => {
      const bucket = await withObject();
      await expect(bucket.get('k', { onlyIf: { etagMatches: `"${ETAG}"` } })).rejects.toThrow(
        `Conditional ETag should not be wrapped in quotes ("${ETAG}").`,
      );
      await expect(bucket.get('k', { onlyIf: { etagDoesNotMatch: 3 as never } })).rejects.toThrow(
        'onlyIf.etagDoesNotMatch must be a string, not a number.',
      );
      await expect(bucket.get('k', { onlyIf: { uploadedBefore: '2024-01-01' as never } })).rejects.toThrow(
        'onlyIf.uploadedBefore must be a valid Date.',
      );
      await expect(bucket.get('k', { onlyIf: { uploadedAfter: new Date('nope') } })).rejects.toThrow(TypeError);
      await expect(bucket.get('k', { onlyIf: { secondsGranularity: 'yes' as never } })).rejects.toThrow(TypeError);
      await expect(bucket.get('k', { onlyIf: 'etag' as never })).rejects.toThrow(
        'onlyIf must be a Conditional object or Headers, not a string.',
      );
    });
  });

  describe('as Headers, on get', () => {
    const headers = (init: Record<string, string>) => new Headers(init);

    test('If-Match takes a list of strong tags or *; weak tags never match it', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, headers({ 'If-Match': `"${ETAG}"` }))).toBe(true);
      expect(await passes(bucket, headers({ 'If-Match': `"a", "b" ,"${ETAG}"` }))).toBe(true);
      expect(await passes(bucket, headers({ 'If-Match': '*' }))).toBe(true);
      expect(await passes(bucket, headers({ 'If-Match': `W/"${ETAG}"` }))).toBe(false);
      expect(await passes(bucket, headers({ 'If-Match': '"a", "b"' }))).toBe(false);
    });

    test('If-None-Match compares weakly and takes *', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, headers({ 'If-None-Match': `W/"${ETAG}"` }))).toBe(false);
      expect(await passes(bucket, headers({ 'If-None-Match': `"x", "${ETAG}"` }))).toBe(false);
      expect(await passes(bucket, headers({ 'If-None-Match': '*' }))).toBe(false);
      expect(await passes(bucket, headers({ 'If-None-Match': '"x", W/"y"' }))).toBe(true);
    });

    test('If-Modified-Since and If-Unmodified-Since compare in whole seconds', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, headers({ 'If-Modified-Since': httpDate(-1000) }))).toBe(true);
      expect(await passes(bucket, headers({ 'If-Modified-Since': httpDate(0) }))).toBe(false);
      expect(await passes(bucket, headers({ 'If-Unmodified-Since': httpDate(1000) }))).toBe(true);
      // RFC 7232 3.4: modified at or before the date holds, so an echoed Last-Modified passes.
      expect(await passes(bucket, headers({ 'If-Unmodified-Since': httpDate(0) }))).toBe(true);
      expect(await passes(bucket, headers({ 'If-Unmodified-Since': httpDate(-1000) }))).toBe(false);
    });

    test('RFC 7232 precedence: If-None-Match decides over If-Modified-Since, If-Match over If-Unmodified-Since', async () => {
      const bucket = await withObject();
      expect(
        await passes(bucket, headers({ 'If-None-Match': '"x"', 'If-Modified-Since': httpDate(5000) })),
      ).toBe(true);
      expect(
        await passes(bucket, headers({ 'If-Match': `"${ETAG}"`, 'If-Unmodified-Since': httpDate(-5000) })),
      ).toBe(true);
    });

    test('an unparsable date is ignored and If-Range is not supported', async () => {
      const bucket = await withObject();
      expect(await passes(bucket, headers({ 'If-Modified-Since': 'not a date' }))).toBe(true);
      expect(await passes(bucket, headers({ 'If-Range': '"other"' }))).toBe(true);
    });

    test('a malformed tag list is a plain Error with the platform message', async () => {
      const bucket = await withObject();
      const malformed = [
        [{ 'If-Match': ETAG }, 'Invalid ETag in if-match header'],
        [{ 'If-None-Match': '"open' }, 'Invalid ETag in if-none-match header'],
        [{ 'If-Match': '"a" "b"' }, 'Invalid ETag in if-match header'],
      ] as const;
      for (const [given, message] of malformed) {
        const error = await bucket.get('k', { onlyIf: headers(given) }).catch((e: unknown) => e);
        expect(error).toEqual(new Error(message));
        expect(error).not.toBeInstanceOf(TypeError);
      }
    });
  });

  describe('on put', () => {
    test('a failed condition stores nothing and answers null', async () => {
      const bucket = await withObject();
      expect(await bucket.put('k', 'new', { onlyIf: { etagMatches: 'other' } })).toBeNull();
      expect(await (await bucket.get('k'))!.text()).toBe('stored');
      const replaced = await bucket.put('k', 'new', { onlyIf: { etagMatches: ETAG } });
      expect(replaced?.etag).toBe(md5('new'));
      expect(await (await bucket.get('k'))!.text()).toBe('new');
    });

    test('on a missing key etagMatches and uploadedAfter fail, etagDoesNotMatch and uploadedBefore pass', async () => {
      const bucket = open({ clock: () => UPLOADED });
      expect(await bucket.put('a', 'v', { onlyIf: { etagMatches: '*' } })).toBeNull();
      expect(await bucket.put('b', 'v', { onlyIf: { uploadedAfter: at(-1000) } })).toBeNull();
      expect(await bucket.head('a')).toBeNull();
      expect(await bucket.head('b')).toBeNull();
      expect(await bucket.put('c', 'v', { onlyIf: { etagDoesNotMatch: 'x' } })).not.toBeNull();
      expect(await bucket.put('d', 'v', { onlyIf: { uploadedBefore: at(1000) } })).not.toBeNull();
    });

    test('etagDoesNotMatch * creates only if absent, as does If-None-Match: *', async () => {
      const bucket = open();
      expect(await bucket.put('k', 'first', { onlyIf: { etagDoesNotMatch: '*' } })).not.toBeNull();
      expect(await bucket.put('k', 'second', { onlyIf: { etagDoesNotMatch: '*' } })).toBeNull();
      expect(await bucket.put('k', 'third', { onlyIf: new Headers({ 'If-None-Match': '*' }) })).toBeNull();
      expect(await bucket.put('h', 'first', { onlyIf: new Headers({ 'If-None-Match': '*' }) })).not.toBeNull();
      expect(await (await bucket.get('k'))!.text()).toBe('first');
    });

    test('a failed condition releases a stream value without reading it', async () => {
      const bucket = await withObject();
      const body = streamOf(['never', 'read']);
      expect(await bucket.put('k', body, { onlyIf: { etagMatches: 'other' } })).toBeNull();
      expect(body.cancelled).toBe(true);
    });
  });
});

describe('concurrent conditional writes on one key', () => {
  eachEngine(({ open, openTwo }) => {
    test('exactly one create-only-if-absent wins, and its bytes are stored', async () => {
      const bucket = open();
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, i) => bucket.put('k', `writer ${i}`, { onlyIf: { etagDoesNotMatch: '*' } })),
      );
      const winners = results.flatMap((result, i) => (result ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(await (await bucket.get('k'))!.text()).toBe(`writer ${winners[0]}`);
    });

    test('compare-and-swap increments from two instances lose no update', async () => {
      const buckets = openTwo();
      await buckets[0].put('counter', '0');
      const increment = async (bucket: OpenBucket) => {
        for (;;) {
          const current = (await bucket.get('counter'))!;
          const next = String(Number(await current.text()) + 1);
          if (await bucket.put('counter', next, { onlyIf: { etagMatches: current.etag } })) return;
        }
      };
      await Promise.all(Array.from({ length: 20 }, (_, i) => increment(buckets[i % 2]!)));
      expect(await (await buckets[1].get('counter'))!.text()).toBe('20');
    });
  });
});
