// Object operations through the AWS SDK v3: what S3 clients send, what they get back.
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { beforeEach, describe, expect, test } from 'vitest';
import { s3Failure, startEndpoint, type Endpoint } from './support';

let endpoint: Endpoint;
let s3: S3Client;
beforeEach(async () => {
  endpoint = await startEndpoint();
  s3 = endpoint.client();
  await s3.send(new CreateBucketCommand({ Bucket: 'photos' }));
});

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const put = (Key: string, Body: string, extra: Partial<ConstructorParameters<typeof PutObjectCommand>[0]> = {}) =>
  s3.send(new PutObjectCommand({ Bucket: 'photos', Key, Body, ...extra }));
const text = async (Key: string, extra: Partial<ConstructorParameters<typeof GetObjectCommand>[0]> = {}) => {
  const got = await s3.send(new GetObjectCommand({ Bucket: 'photos', Key, ...extra }));
  return { got, body: await got.Body!.transformToString() };
};

describe('PutObject and GetObject', () => {
  test('store bytes with HTTP and custom metadata, read back with the md5 etag', async () => {
    const stored = await put('cats/tabby.txt', 'meow', {
      ContentType: 'text/plain',
      ContentLanguage: 'en',
      ContentDisposition: 'inline',
      CacheControl: 'max-age=60',
      Expires: new Date('2030-01-01T00:00:00Z'),
      Metadata: { owner: 'ana', note: 'crème brûlée' },
    });
    expect(stored.ETag).toBe(`"${md5('meow')}"`);
    const { got, body } = await text('cats/tabby.txt');
    expect(body).toBe('meow');
    expect(got).toMatchObject({
      ETag: `"${md5('meow')}"`,
      ContentType: 'text/plain',
      ContentLanguage: 'en',
      ContentDisposition: 'inline',
      CacheControl: 'max-age=60',
      ContentLength: 4,
      AcceptRanges: 'bytes',
    });
    expect(got.ExpiresString).toBe('Tue, 01 Jan 2030 00:00:00 GMT');
    // Sent as UTF-8 bytes; answered, as S3 does, as an RFC 2047 encoded word.
    expect(got.Metadata).toEqual({
      owner: 'ana',
      note: `=?UTF-8?B?${Buffer.from('crème brûlée').toString('base64')}?=`,
    });
    const viaBinding = await (await endpoint.catalogue.open('photos')).head('cats/tabby.txt');
    expect(viaBinding!.customMetadata).toEqual({ owner: 'ana', note: 'crème brûlée' });
    expect(Math.abs(got.LastModified!.getTime() - Date.now())).toBeLessThan(5000);
  });

  test('keys with spaces, plus signs, unicode, dots and double slashes round-trip', async () => {
    for (const key of ['a b+c', 'ü/ñ/😀', 'x/./y/../z', 'double//slash', '%41 literal', "tilde~*'()!"]) {
      await put(key, key);
      expect((await text(key)).body).toBe(key);
    }
  });

  test('streams of unknown framing are sent aws-chunked with a trailing checksum, and stored intact', async () => {
    const seen: Record<string, string>[] = [];
    const client = endpoint.client();
    client.middlewareStack.add(
      (next) => async (args) => {
        seen.push({ ...(args.request as { headers: Record<string, string> }).headers });
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    const chunks = Array.from({ length: 50 }, (_, i) => Buffer.alloc(10_000, i));
    const result = await client.send(
      new PutObjectCommand({ Bucket: 'photos', Key: 'streamed', Body: Readable.from(chunks), ContentLength: 500_000 }),
    );
    expect(seen[0]!['content-encoding']).toBe('aws-chunked');
    expect(seen[0]!['x-amz-trailer']).toBe('x-amz-checksum-crc32');
    const whole = Buffer.concat(chunks);
    expect(result.ETag).toBe(`"${createHash('md5').update(whole).digest('hex')}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'photos', Key: 'streamed' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(whole)).toBe(true);
    // aws-chunked was how the bytes travelled, not how they are encoded.
    expect(got.ContentEncoding).toBeUndefined();
  });

  test('an object stored without a content type reads as application/octet-stream', async () => {
    await put('raw', 'x', { ContentType: undefined });
    expect((await s3.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'raw' }))).ContentType).toBe(
      'application/octet-stream',
    );
  });

  test('a missing key is NoSuchKey (404); a missing bucket NoSuchBucket (404)', async () => {
    expect(await s3Failure(text('nothing'))).toMatchObject({ name: 'NoSuchKey', status: 404 });
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'nobucket', Key: 'k' })))).toMatchObject({
      name: 'NoSuchBucket',
      status: 404,
      message: 'The specified bucket does not exist: nobucket.',
    });
    expect(await s3Failure(put('k', 'v', { Bucket: 'nobucket' }))).toMatchObject({ name: 'NoSuchBucket', status: 404 });
  });

  test('response-* parameters override the headers of one read', async () => {
    await put('doc', 'hi', { ContentType: 'text/plain' });
    const { got } = await text('doc', {
      ResponseContentType: 'application/json',
      ResponseContentDisposition: 'attachment; filename="doc.json"',
      ResponseCacheControl: 'no-store',
      ResponseContentLanguage: 'fr',
      ResponseExpires: new Date('2031-02-03T04:05:06Z'),
    });
    expect(got).toMatchObject({
      ContentType: 'application/json',
      ContentDisposition: 'attachment; filename="doc.json"',
      CacheControl: 'no-store',
      ContentLanguage: 'fr',
    });
    expect(got.ExpiresString).toBe('Mon, 03 Feb 2031 04:05:06 GMT');
    expect((await s3.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'doc' }))).ContentType).toBe('text/plain');
  });
});

describe('ranges', () => {
  beforeEach(() => put('digits', '0123456789'));

  test.each([
    ['bytes=2-5', '2345', 'bytes 2-5/10'],
    ['bytes=7-', '789', 'bytes 7-9/10'],
    ['bytes=-3', '789', 'bytes 7-9/10'],
    ['bytes=8-100', '89', 'bytes 8-9/10'],
    ['bytes=0-', '0123456789', 'bytes 0-9/10'],
  ])('%s serves %s with 206 and Content-Range %s', async (Range, expected, contentRange) => {
    const { got, body } = await text('digits', { Range });
    expect(body).toBe(expected);
    expect(got.$metadata.httpStatusCode).toBe(206);
    expect(got.ContentRange).toBe(contentRange);
    expect(got.ContentLength).toBe(expected.length);
  });

  test.each(['bytes=10-', 'bytes=50-60', 'bytes=-0'])('%s is InvalidRange (416)', async (Range) => {
    expect(await s3Failure(text('digits', { Range }))).toMatchObject({ name: 'InvalidRange', status: 416 });
  });

  test.each(['bytes=5-2', 'items=1-2', 'bytes=1-2,4-5', 'bytes=x-'])(
    'a malformed Range (%s) is ignored: the whole object, 200',
    async (Range) => {
      const { got, body } = await text('digits', { Range });
      expect(body).toBe('0123456789');
      expect(got.$metadata.httpStatusCode).toBe(200);
    },
  );
});

describe('conditional reads', () => {
  let etag: string;
  let modified: Date;
  beforeEach(async () => {
    etag = (await put('c', 'conditional')).ETag!;
    modified = (await s3.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'c' }))).LastModified!;
  });
  const later = () => new Date(modified.getTime() + 60_000);
  const earlier = () => new Date(modified.getTime() - 60_000);

  test('If-Match / If-None-Match with the etag, quoted or not', async () => {
    expect((await text('c', { IfMatch: etag })).body).toBe('conditional');
    expect((await text('c', { IfMatch: etag.replace(/"/g, '') })).body).toBe('conditional');
    expect(await s3Failure(text('c', { IfMatch: '"other"' }))).toMatchObject({
      name: 'PreconditionFailed',
      status: 412,
    });
    expect(await s3Failure(text('c', { IfNoneMatch: etag }))).toMatchObject({ status: 304 });
    expect((await text('c', { IfNoneMatch: '"other"' })).body).toBe('conditional');
  });

  test('If-Modified-Since / If-Unmodified-Since with seconds precision', async () => {
    expect(await s3Failure(text('c', { IfModifiedSince: modified }))).toMatchObject({ status: 304 });
    expect((await text('c', { IfModifiedSince: earlier() })).body).toBe('conditional');
    expect((await text('c', { IfUnmodifiedSince: modified })).body).toBe('conditional');
    expect(await s3Failure(text('c', { IfUnmodifiedSince: earlier() }))).toMatchObject({
      name: 'PreconditionFailed',
      status: 412,
    });
    // A passing If-Match decides over a failing If-Unmodified-Since (RFC 7232 section 6).
    expect((await text('c', { IfMatch: etag, IfUnmodifiedSince: earlier() })).body).toBe('conditional');
    // A present If-None-Match decides instead of If-Modified-Since.
    expect((await text('c', { IfNoneMatch: '"other"', IfModifiedSince: later() })).body).toBe('conditional');
    expect(await s3Failure(text('c', { IfModifiedSince: later() }))).toMatchObject({ status: 304 });
  });

  test('an If-Match that is not an entity-tag list is InvalidArgument', async () => {
    expect(await s3Failure(text('c', { IfMatch: '"unclosed' }))).toMatchObject({
      name: 'InvalidArgument',
      status: 400,
      message: 'Invalid ETag in if-match header',
    });
  });

  test('HeadObject answers the same conditions without a body', async () => {
    const head = (extra: object) => s3.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'c', ...extra }));
    expect((await head({ IfMatch: etag })).ContentLength).toBe(11);
    expect(await s3Failure(head({ IfMatch: '"nope"' }))).toMatchObject({ status: 412 });
    expect(await s3Failure(head({ IfNoneMatch: etag }))).toMatchObject({ status: 304 });
  });
});

describe('conditional and checked writes', () => {
  test('If-None-Match: * creates only when absent', async () => {
    await put('once', 'first', { IfNoneMatch: '*' });
    expect(await s3Failure(put('once', 'second', { IfNoneMatch: '*' }))).toMatchObject({
      name: 'PreconditionFailed',
      status: 412,
      message: 'At least one of the pre-conditions you specified did not hold: If-None-Match.',
    });
    expect((await text('once')).body).toBe('first');
  });

  test('If-Match replaces only the expected version', async () => {
    const { ETag } = await put('v', 'one');
    await put('v', 'two', { IfMatch: ETag });
    expect(await s3Failure(put('v', 'three', { IfMatch: ETag }))).toMatchObject({ status: 412 });
    expect((await text('v')).body).toBe('two');
  });

  test('Content-MD5 and x-amz-checksum-* are verified; a mismatch is BadDigest and stores nothing', async () => {
    const good = createHash('md5').update('payload').digest('base64');
    const bad = createHash('md5').update('other').digest('base64');
    await put('md5', 'payload', { ContentMD5: good });
    expect(await s3Failure(put('md5-bad', 'payload', { ContentMD5: bad }))).toMatchObject({
      name: 'BadDigest',
      status: 400,
      message: 'The Content-MD5 you specified did not match the calculated checksum.',
    });
    const sha256 = createHash('sha256').update('payload').digest('base64');
    const stored = await put('sha', 'payload', { ChecksumSHA256: sha256 });
    expect(stored.ChecksumSHA256).toBe(sha256);
    expect(
      await s3Failure(put('sha-bad', 'payload', { ChecksumSHA256: createHash('sha256').update('x').digest('base64') })),
    ).toMatchObject({
      name: 'BadDigest',
      status: 400,
    });
    for (const [algorithm, field] of [
      ['CRC32', 'ChecksumCRC32'],
      ['CRC32C', 'ChecksumCRC32C'],
      ['SHA1', 'ChecksumSHA1'],
      ['CRC64NVME', 'ChecksumCRC64NVME'],
    ] as const) {
      const stored = await put(`algo-${algorithm}`, 'checksummed', { ChecksumAlgorithm: algorithm });
      expect(stored[field], algorithm).toMatch(/^[A-Za-z0-9+/]+=*$/);
    }
    expect(await s3Failure(put('crc-bad', 'payload', { ChecksumCRC32: 'AAAAAA==' }))).toMatchObject({
      name: 'BadDigest',
    });
    const missing = await s3Failure(text('md5-bad'));
    expect(missing.name).toBe('NoSuchKey');
    expect((await s3Failure(text('sha-bad'))).name).toBe('NoSuchKey');
    expect((await s3Failure(text('crc-bad'))).name).toBe('NoSuchKey');
  });

  test('Content-MD5 that is not the base64 of 16 bytes is InvalidDigest', async () => {
    expect(await s3Failure(put('k', 'v', { ContentMD5: 'not-md5' }))).toMatchObject({
      name: 'InvalidDigest',
      status: 400,
    });
  });
});

describe('CopyObject', () => {
  beforeEach(() => put('src/a.txt', 'original', { ContentType: 'text/plain', Metadata: { tag: 'one' } }));

  test('copies bytes and metadata (COPY), or takes new metadata (REPLACE)', async () => {
    const copied = await s3.send(
      new CopyObjectCommand({ Bucket: 'photos', Key: 'dst/a.txt', CopySource: 'photos/src/a.txt' }),
    );
    expect(copied.CopyObjectResult!.ETag).toBe(`"${md5('original')}"`);
    const { got, body } = await text('dst/a.txt');
    expect(body).toBe('original');
    expect(got).toMatchObject({ ContentType: 'text/plain', Metadata: { tag: 'one' } });
    await s3.send(
      new CopyObjectCommand({
        Bucket: 'photos',
        Key: 'src/a.txt',
        CopySource: '/photos/src%2Fa.txt',
        MetadataDirective: 'REPLACE',
        ContentType: 'text/markdown',
        Metadata: { tag: 'two' },
      }),
    );
    expect((await text('src/a.txt')).got).toMatchObject({ ContentType: 'text/markdown', Metadata: { tag: 'two' } });
  });

  test('between buckets, with source conditions', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'backup' }));
    await s3.send(
      new CopyObjectCommand({
        Bucket: 'backup',
        Key: 'a',
        CopySource: 'photos/src/a.txt',
        CopySourceIfMatch: `"${md5('original')}"`,
      }),
    );
    const got = await s3.send(new GetObjectCommand({ Bucket: 'backup', Key: 'a' }));
    expect(await got.Body!.transformToString()).toBe('original');
    expect(
      await s3Failure(
        s3.send(
          new CopyObjectCommand({
            Bucket: 'backup',
            Key: 'b',
            CopySource: 'photos/src/a.txt',
            CopySourceIfNoneMatch: `"${md5('original')}"`,
          }),
        ),
      ),
    ).toMatchObject({ name: 'PreconditionFailed', status: 412 });
  });

  test('refuses a copy onto itself without new metadata, a missing source, a bad directive', async () => {
    expect(
      await s3Failure(
        s3.send(new CopyObjectCommand({ Bucket: 'photos', Key: 'src/a.txt', CopySource: 'photos/src/a.txt' })),
      ),
    ).toMatchObject({
      name: 'InvalidRequest',
      status: 400,
    });
    expect(
      await s3Failure(s3.send(new CopyObjectCommand({ Bucket: 'photos', Key: 'x', CopySource: 'photos/none' }))),
    ).toMatchObject({
      name: 'NoSuchKey',
      status: 404,
    });
    expect(
      await s3Failure(s3.send(new CopyObjectCommand({ Bucket: 'photos', Key: 'x', CopySource: 'photos' }))),
    ).toMatchObject({
      name: 'InvalidArgument',
      status: 400,
    });
    expect(
      await s3Failure(
        s3.send(
          new CopyObjectCommand({
            Bucket: 'photos',
            Key: 'x',
            CopySource: 'photos/src/a.txt',
            MetadataDirective: 'MOVE' as 'COPY',
          }),
        ),
      ),
    ).toMatchObject({ name: 'InvalidArgument', status: 400 });
  });
});

describe('DeleteObject and DeleteObjects', () => {
  test('delete one key (missing keys too), then many with a report', async () => {
    await put('a', '1');
    await put('b', '2');
    await put('c', '3');
    expect((await s3.send(new DeleteObjectCommand({ Bucket: 'photos', Key: 'a' }))).$metadata.httpStatusCode).toBe(204);
    expect((await s3.send(new DeleteObjectCommand({ Bucket: 'photos', Key: 'a' }))).$metadata.httpStatusCode).toBe(204);
    const result = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'photos',
        Delete: { Objects: [{ Key: 'b' }, { Key: 'c' }, { Key: 'missing' }, { Key: 'k'.repeat(1025) }] },
      }),
    );
    expect(result.Deleted!.map((d) => d.Key)).toEqual(['b', 'c', 'missing']);
    expect(result.Errors).toEqual([
      { Key: 'k'.repeat(1025), Code: 'KeyTooLongError', Message: 'Your key is too long: at most 1024 bytes of UTF-8.' },
    ]);
    expect((await s3Failure(text('b'))).name).toBe('NoSuchKey');
    const quiet = await s3.send(
      new DeleteObjectsCommand({ Bucket: 'photos', Delete: { Objects: [{ Key: 'x' }], Quiet: true } }),
    );
    expect(quiet.Deleted).toBeUndefined();
  });
});

describe('bad inputs', () => {
  test('metadata the binding stored that HTTP headers cannot carry as is is answered encoded, not refused', async () => {
    const bucket = await endpoint.catalogue.open('photos');
    await bucket.put('unicode', 'x', {
      httpMetadata: { contentDisposition: 'attachment; filename="😀.txt"' },
      customMetadata: { line: 'one\ntwo', 'not a header name': 'x', é: 'y' },
    });
    const { got } = await text('unicode');
    expect(got.ContentDisposition).toBe(
      `=?UTF-8?B?${Buffer.from('attachment; filename="😀.txt"').toString('base64')}?=`,
    );
    expect(got.Metadata).toEqual({ line: `=?UTF-8?B?${Buffer.from('one\ntwo').toString('base64')}?=` });
    expect(got.MissingMeta).toBe(2);
  });

  test('a key longer than 1024 bytes is KeyTooLongError', async () => {
    expect(await s3Failure(put('é'.repeat(513), 'v'))).toMatchObject({ name: 'KeyTooLongError', status: 400 });
  });

  test('custom metadata over 8,192 bytes is MetadataTooLarge and nothing is stored', async () => {
    const Metadata = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`m${i}`, 'x'.repeat(1000)]));
    expect(await s3Failure(put('meta', 'v', { Metadata }))).toMatchObject({ name: 'MetadataTooLarge', status: 400 });
    expect((await s3Failure(text('meta'))).name).toBe('NoSuchKey');
  });

  test('an Expires header that is not a date is InvalidArgument', async () => {
    const client = endpoint.client();
    client.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { headers: Record<string, string> }).headers.expires = 'someday';
        return next(args);
      },
      { step: 'build' },
    );
    expect(await s3Failure(client.send(new PutObjectCommand({ Bucket: 'photos', Key: 'e', Body: 'v' })))).toMatchObject(
      {
        name: 'InvalidArgument',
        status: 400,
        message: 'httpMetadata: the Expires header is not a date (someday).',
      },
    );
  });
});
