// Customer-provided keys (SSE-C) through the binding, on our three engines: `ssecKey` on put, get,
// createMultipartUpload and uploadPart as the platform's typings declare it (a hex string or an
// ArrayBuffer), `ssecKeyMd5` on the objects, every refusal with its error. What is at rest is
// checked by the S3 tests (test/s3/customer-keys.test.ts), which read the disk and the database.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { OpenBucket, Range } from '../../src/bucket';
import { eachEngine, expectBucketError, md5, OUR_ENGINES, streamOf, test } from './engines';

const MIN = 16;
const hexKey = 'b9ff919a784c7a48bf2a084056bdb94b69259b7ba59e042ade0d8734579ab5e3';
/** The same key as an ArrayBuffer (of its own: not a view on a pooled buffer). */
const bufferKey = () => new Uint8Array(Buffer.from(hexKey, 'hex')).buffer;
/** The key's MD5 in base64, as the platform's `ssecKeyMd5` shows it (workerd's own test value). */
const KEY_MD5 = 'WGR5pEm07DroP3hYRAh8Yw==';
const otherKey = 'a'.repeat(64);

const MISSING = 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.';
const MISMATCH = 'The provided encryption parameters did not match the ones used originally.';
const NOT_ENCRYPTED = 'The encryption parameters are not applicable to this object.';
const UPLOAD_MISSING =
  'The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.';
const UPLOAD_NOT_ENCRYPTED = 'The multipart upload initiate did not request encryption: the encryption parameters are not applicable to its parts.';

async function bytesOf(object: unknown): Promise<Buffer> {
  return Buffer.from(await (object as { arrayBuffer(): Promise<ArrayBuffer> }).arrayBuffer());
}

eachEngine(({ open }) => {
  const bucketOf = (): OpenBucket => open({ minimumPartSize: MIN });

  describe('an object put with a key', () => {
    test('reads back with the key, as hex or as an ArrayBuffer, and shows the key MD5 everywhere', async () => {
      const bucket = bucketOf();
      const data = randomBytes(70_000);
      const put = await bucket.put('secret', data, { ssecKey: hexKey, httpMetadata: { contentType: 'image/png' }, customMetadata: { a: 'b' } });
      expect(put).toMatchObject({ key: 'secret', size: 70_000, ssecKeyMd5: KEY_MD5 });
      expect(KEY_MD5).toBe(createHash('md5').update(Buffer.from(hexKey, 'hex')).digest('base64'));
      const viaHex = await bucket.get('secret', { ssecKey: hexKey });
      expect((await bytesOf(viaHex)).equals(data)).toBe(true);
      const viaBuffer = await bucket.get('secret', { ssecKey: bufferKey() });
      expect((await bytesOf(viaBuffer)).equals(data)).toBe(true);
      expect(viaBuffer).toMatchObject({ etag: put.etag, ssecKeyMd5: KEY_MD5, httpMetadata: { contentType: 'image/png' }, customMetadata: { a: 'b' } });
      // head needs no key, as its typings take none: metadata is not encrypted.
      expect(await bucket.head('secret')).toMatchObject({ size: 70_000, etag: put.etag, ssecKeyMd5: KEY_MD5 });
      const listed = await bucket.list();
      expect(listed.objects.map((object) => [object.key, object.ssecKeyMd5])).toEqual([['secret', KEY_MD5]]);
    });

    test('has an etag that is not the MD5 of its bytes, and keeps no hash of them', async () => {
      const bucket = bucketOf();
      const sha256 = createHash('sha256').update('plain words').digest('hex');
      const put = await bucket.put('secret', 'plain words', { ssecKey: hexKey, sha256 });
      expect(put.etag).toMatch(/^[0-9a-f]{32}$/);
      expect(put.etag).not.toBe(md5('plain words'));
      expect(put.checksums.toJSON()).toEqual({});
      expect((await bucket.head('secret'))!.checksums.toJSON()).toEqual({});
      // The hash named is still checked against the bytes.
      await expectBucketError(
        bucket.put('other', 'plain words', { ssecKey: hexKey, md5: md5('other words') }),
        10037,
        expect.stringContaining('The MD5 checksum you specified did not match what we received.'),
      );
      expect(await bucket.head('other')).toBeNull();
    });

    test('is refused to a read without the key, with another key, and a key is refused for a plain object', async () => {
      const bucket = bucketOf();
      await bucket.put('secret', 'hidden', { ssecKey: hexKey });
      await bucket.put('plain', 'open');
      await expectBucketError(bucket.get('secret'), 10029, `get: ${MISSING} (10029)`);
      await expectBucketError(bucket.get('secret', { ssecKey: otherKey }), 10029, `get: ${MISMATCH} (10029)`);
      await expectBucketError(bucket.get('plain', { ssecKey: hexKey }), 10029, `get: ${NOT_ENCRYPTED} (10029)`);
      // A missing key is still null, whatever key is named.
      expect(await bucket.get('nothing', { ssecKey: hexKey })).toBeNull();
      expect(await (await bucket.get('plain'))!.text()).toBe('open');
    });

    test('is checked before conditions, which then apply as to any object', async () => {
      const bucket = bucketOf();
      const put = await bucket.put('secret', 'hidden', { ssecKey: hexKey });
      await expectBucketError(bucket.get('secret', { onlyIf: { etagDoesNotMatch: put.etag } }), 10029, `get: ${MISSING} (10029)`);
      const failed = await bucket.get('secret', { ssecKey: hexKey, onlyIf: { etagDoesNotMatch: put.etag } });
      expect(failed && 'body' in failed).toBe(false);
      const held = await bucket.get('secret', { ssecKey: hexKey, onlyIf: { etagMatches: put.etag } });
      expect(await bytesOf(held)).toEqual(Buffer.from('hidden'));
    });

    test('serves any range, decrypted from where it starts', async () => {
      const bucket = bucketOf();
      const data = randomBytes(100_003);
      await bucket.put('secret', streamOf([data.subarray(0, 777), data.subarray(777)]), { ssecKey: hexKey });
      const cases: [Range, number, number][] = [
        [{ offset: 0, length: 1 }, 0, 1],
        [{ offset: 15, length: 2 }, 15, 2],
        [{ offset: 16, length: 16 }, 16, 16],
        [{ offset: 33_331, length: 50_000 }, 33_331, 50_000],
        [{ offset: 99_999 }, 99_999, 4],
        [{ suffix: 17 }, 99_986, 17],
      ];
      for (const [range, offset, length] of cases) {
        const read = await bucket.get('secret', { ssecKey: hexKey, range });
        expect((await bytesOf(read)).equals(data.subarray(offset, offset + length))).toBe(true);
      }
    });

    test.each([
      ['an upper-case hex string', 'B9FF919A784C7A48BF2A084056BDB94B69259B7BA59E042ADE0D8734579AB5E3', 'SSE-C Key has invalid format'],
      ['a string that is not hex', 'z'.repeat(64), 'SSE-C Key has invalid format'],
      ['an empty string', '', 'SSE-C Key has invalid format'],
      ['31 bytes of hex', 'ab'.repeat(31), 'SSE-C Key must be 32 bytes in length'],
      ['an ArrayBuffer of 31 bytes', new ArrayBuffer(31), 'SSE-C Key must be 32 bytes in length'],
    ])('a key given as %s is refused with the platform\'s Error, and nothing is stored', async (_name, ssecKey, message) => {
      const bucket = bucketOf();
      const error = await bucket.put('secret', 'x', { ssecKey }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(message);
      expect(await bucket.head('secret')).toBeNull();
      await expect(bucket.get('secret', { ssecKey })).rejects.toThrow(message);
    });

    test('a key that is neither a string nor an ArrayBuffer is a TypeError', async () => {
      const bucket = bucketOf();
      await expect(bucket.put('secret', 'x', { ssecKey: 42 as never })).rejects.toThrow(TypeError);
    });
  });

  describe('a multipart upload created with a key', () => {
    const parts = [randomBytes(MIN + 5), randomBytes(MIN + 5), randomBytes(9)];

    test('stores every part under the key and reads back across the parts', async () => {
      const bucket = bucketOf();
      const upload = await bucket.createMultipartUpload('multi', { ssecKey: hexKey });
      const uploaded = [];
      for (const [index, part] of parts.entries()) uploaded.push(await upload.uploadPart(index + 1, part, { ssecKey: index === 1 ? bufferKey() : hexKey }));
      const done = await upload.complete(uploaded);
      expect(done).toMatchObject({ size: 51, ssecKeyMd5: KEY_MD5, etag: expect.stringMatching(/^[0-9a-f]{32}-3$/) });
      const whole = Buffer.concat(parts);
      expect((await bytesOf(await bucket.get('multi', { ssecKey: hexKey }))).equals(whole)).toBe(true);
      for (const [offset, length] of [[20, 2], [21, 1], [15, 30], [42, 9]] as const) {
        const read = await bucket.get('multi', { ssecKey: hexKey, range: { offset, length } });
        expect((await bytesOf(read)).equals(whole.subarray(offset, offset + length))).toBe(true);
      }
      const second = await bucket.getPart('multi', 2, { ssecKey: hexKey });
      expect(second?.partsCount).toBe(3);
      expect((await bytesOf(second!.object)).equals(parts[1]!)).toBe(true);
      await expectBucketError(bucket.get('multi'), 10029, `get: ${MISSING} (10029)`);
      await expectBucketError(bucket.getPart('multi', 1, { ssecKey: otherKey }), 10029, `get: ${MISMATCH} (10029)`);
    });

    test('refuses a part without the key or with another, before storing anything', async () => {
      const bucket = bucketOf();
      const upload = await bucket.createMultipartUpload('multi', { ssecKey: hexKey });
      await expectBucketError(upload.uploadPart(1, parts[0]!), 10029, `uploadPart: ${UPLOAD_MISSING} (10029)`);
      await expectBucketError(upload.uploadPart(1, parts[0]!, { ssecKey: otherKey }), 10029, `uploadPart: ${MISMATCH} (10029)`);
      const resumed = bucket.resumeMultipartUpload('multi', upload.uploadId);
      const first = await resumed.uploadPart(1, parts[0]!, { ssecKey: hexKey });
      expect((await bucket.listParts('multi', upload.uploadId)).parts.map((part) => part.etag)).toEqual([first.etag]);
    });

    test('a part sent again with the same bytes and key keeps its etag; other bytes give another', async () => {
      const bucket = bucketOf();
      const upload = await bucket.createMultipartUpload('multi', { ssecKey: hexKey });
      const first = await upload.uploadPart(1, parts[0]!, { ssecKey: hexKey });
      const again = await upload.uploadPart(1, parts[0]!, { ssecKey: hexKey });
      const other = await upload.uploadPart(1, parts[1]!, { ssecKey: hexKey });
      expect(again.etag).toBe(first.etag);
      expect(other.etag).not.toBe(first.etag);
      expect(first.etag).not.toBe(md5(parts[0]!));
    });

    test('an upload created without a key refuses a part with one', async () => {
      const bucket = bucketOf();
      const upload = await bucket.createMultipartUpload('plain');
      await expectBucketError(upload.uploadPart(1, parts[0]!, { ssecKey: hexKey }), 10029, `uploadPart: ${UPLOAD_NOT_ENCRYPTED} (10029)`);
    });

    test('lists in progress with its key MD5', async () => {
      const bucket = bucketOf();
      const upload = await bucket.createMultipartUpload('multi', { ssecKey: hexKey });
      expect(await bucket.listMultipartUploads()).toEqual([expect.objectContaining({ uploadId: upload.uploadId, ssecKeyMd5: KEY_MD5 })]);
    });
  });
}, OUR_ENGINES);
