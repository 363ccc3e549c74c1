import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect } from 'vitest';
import { bytesInMemory, FixedLengthStream, type MultipartUpload, type OpenBucket, type UploadedPart } from '../../src/bucket';
import { eachEngine, expectBucketError, OUR_ENGINES, test } from './engines';

const MIN = 8; // the minimum part size these tests configure
const DAY = 24 * 60 * 60 * 1000;

/** The platform's multipart etag: md5 of the parts' binary md5s, then `-<parts>`. */
function multipartEtag(parts: string[]): string {
  const outer = createHash('md5');
  for (const part of parts) outer.update(createHash('md5').update(part).digest());
  return `${outer.digest('hex')}-${parts.length}`;
}

eachEngine(({ open, openTwo }) => {
  let now = Date.UTC(2024, 0, 1);
  const bucketAt = () => open({ minimumPartSize: MIN, clock: () => now });

  const upload = async (bucket: OpenBucket, key = 'big') => bucket.createMultipartUpload(key, {
    httpMetadata: { contentType: 'text/plain' },
    customMetadata: { origin: 'parts' },
  });

  describe('a completed upload', () => {
    test('is assembled in part-number order with the platform etag, metadata from creation and no checksums', async () => {
      const bucket = bucketAt();
      const mp = await upload(bucket);
      expect(mp.key).toBe('big');
      expect(mp.uploadId).toMatch(/^[\w-]{20,}$/);
      const second = await mp.uploadPart(2, 'BBBBBBBB');
      const last = await mp.uploadPart(3, 'CC');
      const first = await mp.uploadPart(1, new TextEncoder().encode('AAAAAAAA'));
      expect(first).toEqual({ partNumber: 1, etag: expect.stringMatching(/^[0-9a-f]{32}$/) });
      const object = await mp.complete([last, first, second]);
      expect(object).toMatchObject({
        key: 'big',
        size: 18,
        etag: multipartEtag(['AAAAAAAA', 'BBBBBBBB', 'CC']),
        httpEtag: `"${multipartEtag(['AAAAAAAA', 'BBBBBBBB', 'CC'])}"`,
        httpMetadata: { contentType: 'text/plain' },
        customMetadata: { origin: 'parts' },
      });
      expect(object.checksums.toJSON()).toEqual({});
      expect(object.checksums.md5).toBeUndefined();
      expect(await (await bucket.get('big'))!.text()).toBe('AAAAAAAABBBBBBBBCC');
      expect((await bucket.list()).objects.map((o) => o.key)).toEqual(['big']);
    });

    test('may skip part numbers and read across part boundaries', async () => {
      const bucket = bucketAt();
      const mp = await upload(bucket);
      const parts = await Promise.all([mp.uploadPart(1, '11111111'), mp.uploadPart(5, '55555555'), mp.uploadPart(10_000, '0')]);
      await mp.complete(parts);
      const read = (await bucket.get('big', { range: { offset: 6, length: 5 } }))!;
      expect(await read.text()).toBe('11555');
      expect(await (await bucket.get('big', { range: { suffix: 3 } }))!.text()).toBe('550');
    });

    test('with a single part of any size', async () => {
      const bucket = bucketAt();
      const mp = await upload(bucket);
      const object = await mp.complete([await mp.uploadPart(1, 'x')]);
      expect(object.etag).toBe(multipartEtag(['x']));
    });

    test('replaces an existing object, which stays readable until then', async () => {
      const bucket = bucketAt();
      await bucket.put('big', 'old');
      const mp = await upload(bucket);
      const part = await mp.uploadPart(1, 'new');
      expect(await (await bucket.get('big'))!.text()).toBe('old');
      await mp.complete([part]);
      expect(await (await bucket.get('big'))!.text()).toBe('new');
    });

    test('a large upload takes parts of every value type and reads back across them', async () => {
      const bucket = bucketAt();
      const mp = await upload(bucket);
      const chunk = new Uint8Array(600_000).fill(1);
      const stream = new Blob([chunk]).stream().pipeThrough(new FixedLengthStream(chunk.byteLength));
      const parts = [
        await mp.uploadPart(1, stream),
        await mp.uploadPart(2, new Blob([chunk])),
        await mp.uploadPart(3, chunk.buffer),
        await mp.uploadPart(4, 'tail'),
      ];
      const object = await mp.complete(parts);
      expect(object.size).toBe(1_800_004);
      const bytes = await (await bucket.get('big'))!.bytes();
      expect(bytes.byteLength).toBe(1_800_004);
      expect(Buffer.from(bytes.subarray(1_799_998)).toString('latin1')).toBe('\x01\x01tail');
      expect(bytes.subarray(0, 1_800_000).every((byte) => byte === 1)).toBe(true);
    });
  });

  describe('parts', () => {
    test('uploading a part number again replaces it with a new etag; the old etag is refused', async () => {
      const bucket = bucketAt();
      const mp = await upload(bucket);
      const old = await mp.uploadPart(1, 'first version');
      const replaced = await mp.uploadPart(1, 'second version');
      expect(replaced.etag).not.toBe(old.etag);
      await expectBucketError(
        mp.complete([old]),
        10025,
        'completeMultipartUpload: One or more of the specified parts could not be found. Part 1 was not uploaded or its etag is outdated. (10025)',
      );
      await mp.complete([replaced]);
      expect(await (await bucket.get('big'))!.text()).toBe('second version');
    });

    test('a part that was never uploaded is refused (10025)', async () => {
      const mp = await upload(bucketAt());
      const part = await mp.uploadPart(1, 'xxxxxxxx');
      await expectBucketError(mp.complete([part, { partNumber: 2, etag: part.etag }]), 10025, expect.stringContaining('Part 2'));
    });

    test('a part number listed twice is refused (10001)', async () => {
      const mp = await upload(bucketAt());
      const part = await mp.uploadPart(1, 'xxxxxxxx');
      await expectBucketError(
        mp.complete([part, part]),
        10001,
        'completeMultipartUpload: Part number 1 is listed more than once. (10001)',
      );
    });

    test('a non-final part below the minimum size is refused (10011)', async () => {
      const mp = await upload(bucketAt());
      const parts = [await mp.uploadPart(1, 'short'), await mp.uploadPart(2, 'x')];
      await expectBucketError(
        mp.complete(parts),
        10011,
        `completeMultipartUpload: Your proposed upload is smaller than the minimum allowed object size. Part 1 has 5 bytes; every part but the last needs at least ${MIN}. (10011)`,
      );
    });

    test('non-final parts of unequal sizes, or a last part larger than the others, are refused (10048)', async () => {
      const mp = await upload(bucketAt());
      const parts = [
        await mp.uploadPart(1, '12345678'),
        await mp.uploadPart(2, '123456789'),
        await mp.uploadPart(3, '1'),
      ];
      await expectBucketError(
        mp.complete(parts),
        10048,
        'completeMultipartUpload: There was a problem with the multipart upload. All parts but the last must have the same size: part 2 has 9 bytes, part 1 has 8. (10048)',
      );
      await expectBucketError(
        mp.complete([parts[0]!, parts[1]!]),
        10048,
        'completeMultipartUpload: There was a problem with the multipart upload. The last part may not be larger than the others: part 2 has 9 bytes, the others 8. (10048)',
      );
      await expectBucketError(mp.complete([]), 10048, expect.stringContaining('At least one part is required.'));
    });

    test('part numbers run from 1 to 10000', async () => {
      const mp = await upload(bucketAt());
      for (const bad of [0, 10_001, 1.5, '1']) {
        await expect(mp.uploadPart(bad as number, 'x')).rejects.toThrow(
          new TypeError(`Part number must be between 1 and 10000 (inclusive). Actual value was: ${bad}`),
        );
        await expect(mp.complete([{ partNumber: bad as number, etag: 'e' }])).rejects.toThrow(TypeError);
      }
    });

    test('bad part values and part lists are argument errors', async () => {
      const mp = await upload(bucketAt());
      await expect(mp.uploadPart(1, null as never)).rejects.toThrow('A part value is required, not null.');
      await expect(mp.uploadPart(1, 5 as never)).rejects.toThrow(TypeError);
      await expect(mp.complete('parts' as never)).rejects.toThrow('complete expects an array of uploaded parts, not a string.');
      await expect(mp.complete([{ partNumber: 1, etag: 5 } as never])).rejects.toThrow(
        "An uploaded part's etag must be a string, not a number.",
      );
      await expect(mp.complete([null as never])).rejects.toThrow(TypeError);
    });
  });

  describe('upload states', () => {
    test('an upload in progress is invisible to head, get and list; put and delete of the key leave it alone', async () => {
      const bucket = bucketAt();
      const mp = await upload(bucket);
      const part = await mp.uploadPart(1, 'parts');
      expect(await bucket.head('big')).toBeNull();
      expect(await bucket.get('big')).toBeNull();
      expect((await bucket.list()).objects).toEqual([]);
      await bucket.put('big', 'plain');
      await bucket.delete('big');
      await mp.complete([part]);
      expect(await (await bucket.get('big'))!.text()).toBe('parts');
    });

    test('abort discards the upload; it may be repeated; parts and completion then fail (10024)', async () => {
      const mp = await upload(bucketAt());
      const part = await mp.uploadPart(1, 'xxxxxxxx');
      await mp.abort();
      await expect(mp.abort()).resolves.toBeUndefined();
      await expectBucketError(
        mp.uploadPart(2, 'x'),
        10024,
        'uploadPart: The specified multipart upload does not exist. (10024)',
      );
      await expectBucketError(
        mp.complete([part]),
        10024,
        'completeMultipartUpload: The specified multipart upload does not exist. (10024)',
      );
    });

    test('after completion, abort does nothing and the object stays; completing again fails (10024)', async () => {
      const bucket = bucketAt();
      const mp = await upload(bucket);
      const part = await mp.uploadPart(1, 'done');
      await mp.complete([part]);
      await mp.abort();
      expect(await (await bucket.get('big'))!.text()).toBe('done');
      await expectBucketError(mp.complete([part]), 10024, expect.stringContaining('(10024)'));
    });

    test('an unknown upload id, or one of another key, fails on the first call', async () => {
      const bucket = bucketAt();
      const real = await upload(bucket, 'one');
      const unknown = bucket.resumeMultipartUpload('one', 'not-an-upload');
      const otherKey = bucket.resumeMultipartUpload('two', real.uploadId);
      for (const handle of [unknown, otherKey]) {
        await expectBucketError(handle.uploadPart(1, 'x'), 10024, 'uploadPart: The specified multipart upload does not exist. (10024)');
        await expectBucketError(
          handle.complete([{ partNumber: 1, etag: 'e' }]),
          10001,
          'completeMultipartUpload: The upload id is not known for this key; use the id that createMultipartUpload returned for it. (10001)',
        );
        await expectBucketError(handle.abort(), 10001, expect.stringContaining('abortMultipartUpload: The upload id is not known'));
      }
    });

    test('resume returns a handle at once, without checks, that continues the upload', async () => {
      const [first, second] = openTwo({ minimumPartSize: MIN });
      const mp = await upload(first);
      const part1 = await mp.uploadPart(1, 'AAAAAAAA');
      const resumed: MultipartUpload = second.resumeMultipartUpload('big', mp.uploadId);
      expect(resumed).toMatchObject({ key: 'big', uploadId: mp.uploadId });
      const part2: UploadedPart = await resumed.uploadPart(2, 'BB');
      await resumed.complete([part1, part2]);
      expect(await (await first.get('big'))!.text()).toBe('AAAAAAAABB');
      expect(() => second.resumeMultipartUpload('big', 7 as never)).toThrow(TypeError);
    });

    test('is aborted automatically 7 days after creation', async () => {
      const bucket = bucketAt();
      now = Date.UTC(2024, 0, 1);
      const mp = await upload(bucket);
      const part = await mp.uploadPart(1, 'early');
      now += 7 * DAY - 1;
      const late = await mp.uploadPart(2, 'late');
      now += 1;
      await expectBucketError(mp.uploadPart(3, 'x'), 10024, expect.stringContaining('(10024)'));
      await expectBucketError(mp.complete([part, late]), 10024, expect.stringContaining('(10024)'));
      await expect(mp.abort()).resolves.toBeUndefined();
      expect(await bucket.head('big')).toBeNull();
    });
  });

  describe('creation', () => {
    test('checks the key and metadata', async () => {
      const bucket = bucketAt();
      await expectBucketError(
        bucket.createMultipartUpload('k', { customMetadata: { big: 'x'.repeat(8200) } }),
        10012,
        'createMultipartUpload: Your metadata headers exceed the maximum allowed metadata size. (10012)',
      );
      await expect(bucket.createMultipartUpload('k', { httpMetadata: 'text/plain' as never })).rejects.toThrow(TypeError);
      await expect(bucket.createMultipartUpload(1 as never)).rejects.toThrow(TypeError);
      const tooLong = bucket.resumeMultipartUpload('k'.repeat(1025), 'id');
      await expectBucketError(tooLong.uploadPart(1, 'x'), 10020, 'uploadPart: The specified object name is not valid. (10020)');
    });

    test('takes httpMetadata as Headers', async () => {
      const bucket = bucketAt();
      const mp = await bucket.createMultipartUpload('k', { httpMetadata: new Headers({ 'Content-Type': 'image/gif' }) });
      const object = await mp.complete([await mp.uploadPart(1, 'GIF89a')]);
      expect(object.httpMetadata).toEqual({ contentType: 'image/gif' });
    });
  });
  describe('S3 checksums, kept for the S3 endpoint', () => {
    const sha256 = (text: string) => createHash('sha256').update(text).digest();
    const claim = (text: string) => ({ algorithm: 'sha256' as const, value: () => sha256(text).toString('base64') });

    test('an upload keeps its algorithm and each part its checksum; completion makes the composite, kept with the object', async () => {
      const [writer, reader] = openTwo({ minimumPartSize: MIN, clock: () => now });
      const created = await writer.createUpload('sums', { checksum: { algorithm: 'sha256', type: 'COMPOSITE' } });
      const texts = ['a'.repeat(MIN), 'b'.repeat(MIN), 'last'];
      await writer.uploadPartWith('sums', created.uploadId, 1, 'replaced'.repeat(2), claim('replaced'));
      const parts: UploadedPart[] = [];
      for (const [index, text] of texts.entries()) {
        parts.push(await writer.uploadPartWith('sums', created.uploadId, index + 1, text, claim(text)));
      }
      expect((await reader.listMultipartUploads()).map((u) => u.checksum)).toEqual([{ algorithm: 'sha256', type: 'COMPOSITE' }]);
      expect((await reader.listParts('sums', created.uploadId)).parts.map((p) => p.checksum)).toEqual(
        texts.map((text) => ({ algorithm: 'sha256', value: sha256(text).toString('base64') })),
      );
      const composite = `${createHash('sha256').update(Buffer.concat(texts.map(sha256))).digest('base64')}-3`;
      // A COMPOSITE upload's completion names each part's checksum, as S3 requires.
      const partChecksums = new Map(texts.map((text, index) => [index + 1, { sha256: sha256(text).toString('base64') }]));
      const object = (await writer.completeUpload('sums', created.uploadId, parts, { checksums: { sha256: composite }, partChecksums }))!;
      expect(writer.checksumOf(object)).toEqual({
        algorithm: 'sha256',
        type: 'COMPOSITE',
        value: composite,
        parts: texts.map((text) => sha256(text).toString('base64')),
      });
      // The binding never shows it.
      expect(JSON.stringify(object.checksums)).toBe('{}');
      const read = (await reader.head('sums'))!;
      expect(reader.checksumOf(read)?.value).toBe(composite);
      expect((await reader.getPart('sums', 2))!.checksum).toEqual({ algorithm: 'sha256', type: 'COMPOSITE', value: sha256('b'.repeat(MIN)).toString('base64') });
    });

    test('a part sent without a checksum to an upload with an algorithm gets one computed; the binding\'s answer stays bare', async () => {
      const bucket = bucketAt();
      const created = await bucket.createUpload('sums', { checksum: { algorithm: 'crc32', type: 'FULL_OBJECT' } });
      const viaBinding = await bucket.resumeMultipartUpload('sums', created.uploadId).uploadPart(1, 'x'.repeat(MIN));
      expect(Object.keys(viaBinding).sort()).toEqual(['etag', 'partNumber']);
      const viaOwner = await bucket.uploadPartWith('sums', created.uploadId, 2, 'tail');
      const crc = (text: string) => {
        const out = Buffer.alloc(4);
        out.writeUInt32BE(crc32(text));
        return out.toString('base64');
      };
      expect(viaOwner.checksum).toEqual({ algorithm: 'crc32', value: crc('tail') });
      expect((await bucket.listParts('sums', created.uploadId)).parts.map((p) => p.checksum?.value)).toEqual([crc('x'.repeat(MIN)), crc('tail')]);
      const object = (await bucket.completeUpload('sums', created.uploadId, [viaBinding, viaOwner]))!;
      expect(bucket.checksumOf(object)?.value).toBe(crc(`${'x'.repeat(MIN)}tail`));
    });

    test('a part checksum of another algorithm than the upload\'s is refused before anything is stored', async () => {
      const bucket = bucketAt();
      const created = await bucket.createUpload('sums', { checksum: { algorithm: 'sha256', type: 'COMPOSITE' } });
      await expect(
        bucket.uploadPartWith('sums', created.uploadId, 1, 'only', { algorithm: 'sha1', value: () => createHash('sha1').update('only').digest('base64') }),
      ).rejects.toMatchObject({ name: 'ChecksumRuleError', reason: 'mismatch' });
      expect((await bucket.listParts('sums', created.uploadId)).parts).toHaveLength(0);
    });

    test('a completion naming another whole-object checksum fails (10037) and leaves the upload open', async () => {
      const bucket = bucketAt();
      const created = await bucket.createUpload('sums', { checksum: { algorithm: 'sha256', type: 'COMPOSITE' } });
      const part = await bucket.uploadPartWith('sums', created.uploadId, 1, 'only', claim('only'));
      await expectBucketError(
        bucket.completeUpload('sums', created.uploadId, [part], { checksums: { sha256: 'AAAA-1' } }),
        10037,
        expect.stringContaining('did not match the one calculated from the parts') as never,
      );
      expect((await bucket.listParts('sums', created.uploadId)).parts).toHaveLength(1);
    });

    test('a put keeps the checksum it is given, read once the body is in', async () => {
      const [writer, reader] = openTwo({ minimumPartSize: MIN, clock: () => now });
      let read = false;
      const stored = (await writer.putWith('one', bytesInMemory(Buffer.from('body')), {
        checksum: { algorithm: 'crc32', value: () => ((read = true), 'qS5YVg==') },
      }))!;
      expect(read).toBe(true);
      expect(writer.checksumOf(stored)).toEqual({ algorithm: 'crc32', type: 'FULL_OBJECT', value: 'qS5YVg==' });
      expect(reader.checksumOf((await reader.head('one'))!)).toEqual({ algorithm: 'crc32', type: 'FULL_OBJECT', value: 'qS5YVg==' });
      expect(reader.checksumOf((await reader.get('one'))!)?.value).toBe('qS5YVg==');
    });
  });
}, OUR_ENGINES); // parts of a few bytes and a settable clock: runtime options Miniflare lacks (docs/buckets-and-workers.md, allowed differences)
