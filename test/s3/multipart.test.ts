// Multipart uploads through the AWS SDK v3, with the platform's part-size rules (minimum part
// size configured small: MIN_PART bytes).
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, test } from 'vitest';
import { MIN_PART, s3Failure, startEndpoint, type Endpoint } from './support';

let endpoint: Endpoint;
let s3: S3Client;
beforeEach(async () => {
  endpoint = await startEndpoint();
  s3 = endpoint.client();
  await s3.send(new CreateBucketCommand({ Bucket: 'big' }));
});

const Bucket = 'big';
const create = async (Key: string, extra: object = {}) =>
  (await s3.send(new CreateMultipartUploadCommand({ Bucket, Key, ...extra }))).UploadId!;
const part = async (Key: string, UploadId: string, PartNumber: number, Body: string): Promise<CompletedPart> => ({
  PartNumber,
  ETag: (await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body }))).ETag!,
});
const complete = (Key: string, UploadId: string, Parts: CompletedPart[]) =>
  s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts } }));
const read = async (Key: string) => (await s3.send(new GetObjectCommand({ Bucket, Key }))).Body!.transformToString();

/** The multipart etag: md5 of the parts' binary md5s, then `-<parts>`. */
function multipartEtag(parts: string[]): string {
  const outer = createHash('md5');
  for (const p of parts) outer.update(createHash('md5').update(p).digest());
  return `"${outer.digest('hex')}-${parts.length}"`;
}

const A = 'a'.repeat(MIN_PART);
const B = 'b'.repeat(MIN_PART);

describe('a whole upload', () => {
  test('create, upload parts, list them, complete: one object with metadata from creation', async () => {
    const id = await create('movie', { ContentType: 'video/mp4', Metadata: { take: '3' } });
    const p2 = await part('movie', id, 2, B);
    const p1 = await part('movie', id, 1, A);
    const p3 = await part('movie', id, 3, 'end');
    const listed = await s3.send(new ListPartsCommand({ Bucket, Key: 'movie', UploadId: id }));
    expect(listed.Parts!.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([
      [1, p1.ETag, MIN_PART],
      [2, p2.ETag, MIN_PART],
      [3, p3.ETag, 3],
    ]);
    expect(listed).toMatchObject({ IsTruncated: false, UploadId: id, Key: 'movie' });
    const done = await complete('movie', id, [p1, p2, p3]);
    expect(done).toMatchObject({ Bucket, Key: 'movie', ETag: multipartEtag([A, B, 'end']) });
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'movie' }));
    expect(got).toMatchObject({ ContentType: 'video/mp4', Metadata: { take: '3' }, ContentLength: 2 * MIN_PART + 3 });
    expect(await got.Body!.transformToString()).toBe(A + B + 'end');
  });

  test('ListParts pages with max-parts and part-number-marker', async () => {
    const id = await create('k');
    for (const n of [1, 2, 3, 4, 5]) await part('k', id, n, A);
    const first = await s3.send(new ListPartsCommand({ Bucket, Key: 'k', UploadId: id, MaxParts: 2 }));
    expect(first.Parts!.map((p) => p.PartNumber)).toEqual([1, 2]);
    expect(first).toMatchObject({ IsTruncated: true, NextPartNumberMarker: '2' });
    const rest = await s3.send(new ListPartsCommand({ Bucket, Key: 'k', UploadId: id, PartNumberMarker: '2' }));
    expect(rest.Parts!.map((p) => p.PartNumber)).toEqual([3, 4, 5]);
    expect(rest.IsTruncated).toBe(false);
  });

  test('ListMultipartUploads shows uploads in progress, with prefix, delimiter and markers', async () => {
    const ids = { a: await create('logs/a'), b1: await create('logs/b'), c: await create('pics/c') };
    const b2 = await create('logs/b');
    const all = await s3.send(new ListMultipartUploadsCommand({ Bucket }));
    expect(all.Uploads!.map((u) => [u.Key, u.UploadId])).toEqual([
      ['logs/a', ids.a],
      ['logs/b', ids.b1],
      ['logs/b', b2],
      ['pics/c', ids.c],
    ]);
    const grouped = await s3.send(new ListMultipartUploadsCommand({ Bucket, Delimiter: '/' }));
    expect(grouped.CommonPrefixes!.map((p) => p.Prefix)).toEqual(['logs/', 'pics/']);
    expect(grouped.Uploads ?? []).toEqual([]);
    const page = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: 'logs/', MaxUploads: 2 }));
    expect(page.Uploads!.map((u) => u.UploadId)).toEqual([ids.a, ids.b1]);
    expect(page).toMatchObject({ IsTruncated: true, NextKeyMarker: 'logs/b', NextUploadIdMarker: ids.b1 });
    const next = await s3.send(
      new ListMultipartUploadsCommand({
        Bucket,
        Prefix: 'logs/',
        KeyMarker: page.NextKeyMarker,
        UploadIdMarker: page.NextUploadIdMarker,
      }),
    );
    expect(next.Uploads!.map((u) => u.UploadId)).toEqual([b2]);
    await complete('logs/a', ids.a, [await part('logs/a', ids.a, 1, 'x')]);
    await s3.send(new AbortMultipartUploadCommand({ Bucket, Key: 'pics/c', UploadId: ids.c }));
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket }))).Uploads!.map((u) => u.Key)).toEqual([
      'logs/b',
      'logs/b',
    ]);
  });

  test('UploadPartCopy copies a whole object or a byte range as a part', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'source', Body: `${A}${B}` }));
    const id = await create('assembled');
    const copied = await s3.send(
      new UploadPartCopyCommand({
        Bucket,
        Key: 'assembled',
        UploadId: id,
        PartNumber: 1,
        CopySource: 'big/source',
        CopySourceRange: `bytes=${MIN_PART}-${2 * MIN_PART - 1}`,
      }),
    );
    expect(copied.CopyPartResult!.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    await s3.send(new PutObjectCommand({ Bucket, Key: 'tail', Body: 'end' }));
    const whole = await s3.send(
      new UploadPartCopyCommand({ Bucket, Key: 'assembled', UploadId: id, PartNumber: 2, CopySource: 'big/tail' }),
    );
    await complete('assembled', id, [
      { PartNumber: 1, ETag: copied.CopyPartResult!.ETag! },
      { PartNumber: 2, ETag: whole.CopyPartResult!.ETag! },
    ]);
    expect(await read('assembled')).toBe(`${B}end`);
    expect(
      await s3Failure(
        s3.send(
          new UploadPartCopyCommand({
            Bucket,
            Key: 'assembled',
            UploadId: id,
            PartNumber: 1,
            CopySource: 'big/source',
            CopySourceRange: 'bytes=0-99999',
          }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidRange', status: 416 });
  });

  test('an upload created through the binding completes through S3, and the other way round', async () => {
    const bucket = await endpoint.catalogue.open(Bucket);
    const viaBinding = await bucket.createMultipartUpload('from-binding');
    const p1 = await viaBinding.uploadPart(1, A);
    const p2 = await part('from-binding', viaBinding.uploadId, 2, 'tail');
    await complete('from-binding', viaBinding.uploadId, [{ PartNumber: 1, ETag: `"${p1.etag}"` }, p2]);
    expect(await (await bucket.get('from-binding'))!.text()).toBe(`${A}tail`);

    const id = await create('from-s3');
    const q1 = await part('from-s3', id, 1, B);
    const resumed = bucket.resumeMultipartUpload('from-s3', id);
    const q2 = await resumed.uploadPart(2, 'end');
    const object = await resumed.complete([{ partNumber: 1, etag: q1.ETag!.replace(/"/g, '') }, q2]);
    expect(object.etag).toBe(multipartEtag([B, 'end']).replace(/"/g, ''));
    expect(await read('from-s3')).toBe(`${B}end`);
  });
});

describe('refusals', () => {
  test('a non-final part below the minimum size is EntityTooSmall', async () => {
    const id = await create('small');
    const parts = [await part('small', id, 1, 'tiny'), await part('small', id, 2, 'x')];
    expect(await s3Failure(complete('small', id, parts))).toMatchObject({ name: 'EntityTooSmall', status: 400 });
  });

  test('an unknown or outdated part etag is InvalidPart; parts out of order InvalidPartOrder', async () => {
    const id = await create('k');
    const p1 = await part('k', id, 1, A);
    const p2 = await part('k', id, 2, 'end');
    expect(await s3Failure(complete('k', id, [p1, { PartNumber: 2, ETag: '"0123"' }]))).toMatchObject({
      name: 'InvalidPart',
      status: 400,
    });
    expect(await s3Failure(complete('k', id, [p1, { PartNumber: 3, ETag: p2.ETag! }]))).toMatchObject({
      name: 'InvalidPart',
    });
    // Part 1 sent again with other bytes: its first etag is outdated.
    await part('k', id, 1, B);
    expect(await s3Failure(complete('k', id, [p1, p2]))).toMatchObject({ name: 'InvalidPart' });
    expect(await s3Failure(complete('k', id, [p2, p1]))).toMatchObject({ name: 'InvalidPartOrder', status: 400 });
  });

  test('parts of unequal size (the platform rule) are InvalidPart', async () => {
    const id = await create('k');
    const parts = [await part('k', id, 1, A), await part('k', id, 2, A + 'extra'), await part('k', id, 3, 'x')];
    expect(await s3Failure(complete('k', id, parts))).toMatchObject({ name: 'InvalidPart', status: 400 });
  });

  test('an unknown, aborted or completed upload is NoSuchUpload (404)', async () => {
    expect(await s3Failure(part('k', 'no-such-id', 1, 'x'))).toMatchObject({ name: 'NoSuchUpload', status: 404 });
    expect(await s3Failure(s3.send(new ListPartsCommand({ Bucket, Key: 'k', UploadId: 'no-such-id' })))).toMatchObject({
      name: 'NoSuchUpload',
    });
    expect(await s3Failure(complete('k', 'no-such-id', [{ PartNumber: 1, ETag: '"x"' }]))).toMatchObject({
      name: 'NoSuchUpload',
    });
    expect(
      await s3Failure(s3.send(new AbortMultipartUploadCommand({ Bucket, Key: 'k', UploadId: 'no-such-id' }))),
    ).toMatchObject({
      name: 'NoSuchUpload',
      status: 404,
    });
    const id = await create('k');
    await s3.send(new AbortMultipartUploadCommand({ Bucket, Key: 'k', UploadId: id }));
    expect(await s3Failure(part('k', id, 1, 'x'))).toMatchObject({ name: 'NoSuchUpload' });
    const done = await create('k');
    await complete('k', done, [await part('k', done, 1, 'x')]);
    expect(await s3Failure(part('k', done, 2, 'x'))).toMatchObject({ name: 'NoSuchUpload' });
  });

  test.each([0, 10_001])('part number %i is InvalidArgument', async (n) => {
    const id = await create('k');
    expect(await s3Failure(part('k', id, n, 'x'))).toMatchObject({ name: 'InvalidArgument', status: 400 });
  });
});
