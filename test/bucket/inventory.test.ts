import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { StoredObjectBody } from '../../src/bucket';
import { eachEngine, expectBucketError, OUR_ENGINES, test } from './engines';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

eachEngine(({ open, openTwo }) => {
  let now = Date.UTC(2024, 0, 1);
  const bucketAt = () => open({ minimumPartSize: 4, clock: () => now });

  describe('listMultipartUploads', () => {
    test('shows active uploads by key byte order, then creation time, with their metadata', async () => {
      const bucket = bucketAt();
      now = Date.UTC(2024, 0, 1);
      const late = await bucket.createMultipartUpload('b');
      now -= 1000;
      const early = await bucket.createMultipartUpload('b', { customMetadata: { who: 'early' } });
      const emoji = await bucket.createMultipartUpload('\u{1F600}');
      const special = await bucket.createMultipartUpload('\uFFFD');
      const first = await bucket.createMultipartUpload('a/1', { httpMetadata: { contentType: 'text/plain' } });
      const listed = await bucket.listMultipartUploads();
      expect(listed.map((u) => [u.key, u.uploadId])).toEqual([
        ['a/1', first.uploadId],
        ['b', early.uploadId],
        ['b', late.uploadId],
        ['\uFFFD', special.uploadId],
        ['\u{1F600}', emoji.uploadId],
      ]);
      expect(listed[0]).toEqual({
        key: 'a/1',
        uploadId: first.uploadId,
        initiated: new Date(now),
        httpMetadata: { contentType: 'text/plain' },
        customMetadata: {},
      });
      expect(listed[1]!.customMetadata).toEqual({ who: 'early' });
      expect((await bucket.listMultipartUploads({ prefix: 'a/' })).map((u) => u.uploadId)).toEqual([first.uploadId]);
      expect(await bucket.listMultipartUploads({ prefix: 'zzz' })).toEqual([]);
    });

    test('leaves out completed, aborted and expired uploads', async () => {
      const bucket = bucketAt();
      now = Date.UTC(2024, 0, 1);
      const done = await bucket.createMultipartUpload('done');
      await done.complete([await done.uploadPart(1, 'x')]);
      await (await bucket.createMultipartUpload('aborted')).abort();
      const kept = await bucket.createMultipartUpload('kept');
      expect((await bucket.listMultipartUploads()).map((u) => u.key)).toEqual(['kept']);
      now += 8 * 24 * 60 * 60 * 1000;
      expect(await bucket.listMultipartUploads()).toEqual([]);
      await expectBucketError(
        kept.uploadPart(1, 'x'),
        10024,
        'uploadPart: The specified multipart upload does not exist. (10024)',
      );
    });

    test('is shared by buckets on the same storage', async () => {
      const [one, two] = openTwo();
      const upload = await one.createMultipartUpload('shared');
      expect((await two.listMultipartUploads()).map((u) => u.uploadId)).toEqual([upload.uploadId]);
    });

    test('refuses a prefix that is not a string', async () => {
      await expect(bucketAt().listMultipartUploads({ prefix: 3 as unknown as string })).rejects.toThrow(
        new TypeError('listMultipartUploads: the prefix must be a string, not a number.'),
      );
    });
  });

  describe('listParts', () => {
    test('shows the current parts by number with the etags complete expects', async () => {
      const bucket = bucketAt();
      const upload = await bucket.createMultipartUpload('big', { customMetadata: { a: '1' } });
      const three = await upload.uploadPart(3, 'ccc');
      await upload.uploadPart(1, 'old!');
      const one = await upload.uploadPart(1, 'aaaa');
      const { upload: found, parts } = await bucket.listParts('big', upload.uploadId);
      expect(found).toMatchObject({ key: 'big', uploadId: upload.uploadId, customMetadata: { a: '1' } });
      expect(parts).toEqual([
        { partNumber: 1, etag: one.etag, size: 4, md5: md5('aaaa') },
        { partNumber: 3, etag: three.etag, size: 3, md5: md5('ccc') },
      ]);
      const object = await upload.complete(parts.map(({ partNumber, etag }) => ({ partNumber, etag })));
      expect(object.size).toBe(7);
    });

    test('answers 10024 for an unknown, completed or aborted upload, or another key', async () => {
      const bucket = bucketAt();
      const message = 'listParts: The specified multipart upload does not exist. (10024)';
      await expectBucketError(bucket.listParts('k', 'nope'), 10024, message);
      const upload = await bucket.createMultipartUpload('k');
      await expectBucketError(bucket.listParts('other', upload.uploadId), 10024, message);
      await upload.abort();
      await expectBucketError(bucket.listParts('k', upload.uploadId), 10024, message);
      const done = await bucket.createMultipartUpload('k');
      await done.complete([await done.uploadPart(1, 'x')]);
      await expectBucketError(bucket.listParts('k', done.uploadId), 10024, message);
    });

    test('checks its arguments', async () => {
      const bucket = bucketAt();
      await expect(bucket.listParts(1 as unknown as string, 'u')).rejects.toThrow(TypeError);
      await expect(bucket.listParts('k', 2 as unknown as string)).rejects.toThrow(
        new TypeError('listParts: the upload id must be a string, not a number.'),
      );
      await expectBucketError(
        bucket.listParts('x'.repeat(1025), 'u'),
        10020,
        'listParts: The specified object name is not valid. (10020)',
      );
    });
  });

  describe('getPart', () => {
    test('reads an object part by part as it was uploaded; a single put is part 1', async () => {
      const bucket = bucketAt();
      const upload = await bucket.createMultipartUpload('m');
      await upload.complete([await upload.uploadPart(1, 'AAAA'), await upload.uploadPart(2, 'BBBB'), await upload.uploadPart(3, 'CC')]);
      const second = (await bucket.getPart('m', 2))!;
      expect(second.partsCount).toBe(3);
      expect(second.object.range).toEqual({ offset: 4, length: 4 });
      expect(await (second.object as StoredObjectBody).text()).toBe('BBBB');
      expect(await ((await bucket.getPart('m', 3))!.object as StoredObjectBody).text()).toBe('CC');
      await expectBucketError(bucket.getPart('m', 4), 10025, 'get: The object has 3 parts; part 4 does not exist. (10025)');
      await bucket.put('single', 'whole');
      const whole = (await bucket.getPart('single', 1))!;
      expect(whole.partsCount).toBeUndefined();
      expect(await (whole.object as StoredObjectBody).text()).toBe('whole');
      expect(await bucket.getPart('absent', 1)).toBeNull();
    });
  });

  describe('completeUpload', () => {
    test('under a condition on the object it replaces: a failed one changes nothing and keeps the upload open', async () => {
      const bucket = bucketAt();
      const existing = await bucket.put('k', 'existing');
      const upload = await bucket.createMultipartUpload('k');
      const part = await upload.uploadPart(1, 'new');
      expect(await bucket.completeUpload('k', upload.uploadId, [part], { onlyIf: { etagDoesNotMatch: '*' } })).toBeNull();
      expect((await bucket.head('k'))!.etag).toBe(existing.etag);
      expect((await bucket.listParts('k', upload.uploadId)).parts).toHaveLength(1);
      const made = (await bucket.completeUpload('k', upload.uploadId, [part], { onlyIf: { etagMatches: existing.etag } }))!;
      expect(await (await bucket.get('k'))!.text()).toBe('new');
      expect((await bucket.head('k'))!.etag).toBe(made.etag);
    });

    test('a repeated completion answers the object it made while that object is still under its key', async () => {
      const bucket = bucketAt();
      const upload = await bucket.createMultipartUpload('k');
      const parts = [await upload.uploadPart(1, 'AAAA'), await upload.uploadPart(2, 'B')];
      const made = await upload.complete(parts);
      const again = (await bucket.completeUpload('k', upload.uploadId, parts, { repeatable: true }))!;
      expect([again.etag, again.version]).toEqual([made.etag, made.version]);
      await expectBucketError(
        bucket.completeUpload('k', upload.uploadId, parts),
        10024,
        'completeMultipartUpload: The specified multipart upload does not exist. (10024)',
      );
      await bucket.put('k', 'replaced');
      await expectBucketError(
        bucket.completeUpload('k', upload.uploadId, parts, { repeatable: true }),
        10024,
        'completeMultipartUpload: The specified multipart upload does not exist. (10024)',
      );
    });
  });
}, OUR_ENGINES); // an extension beyond the binding (for the S3 endpoint): Miniflare has none
