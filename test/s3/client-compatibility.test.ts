// What S3 clients beyond the AWS SDK rely on, found by running ceph s3-tests, rclone, s3cmd and Go
// clients against the endpoint: XML as XML defines it, part etags that are the parts' MD5s however
// the part was sent, re-sent parts, repeated and conditional completions, partNumber reads, paging
// that never repeats a page, and ListObjectVersions of a bucket without versions.
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, test } from 'vitest';
import { rawFetch, signedChunks, signedHeaders } from './raw-requests';
import { MIN_PART, s3Failure, startEndpoint, type Endpoint } from './support';

let endpoint: Endpoint;
let s3: S3Client;
beforeEach(async () => {
  endpoint = await startEndpoint();
  s3 = endpoint.client();
  await s3.send(new CreateBucketCommand({ Bucket }));
});

const Bucket = 'world';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const A = 'a'.repeat(MIN_PART);
const B = 'b'.repeat(MIN_PART);
const C = 'c'.repeat(MIN_PART);

/** The multipart etag: md5 of the parts' binary md5s, then `-<parts>`. */
function multipartEtag(parts: string[]): string {
  const outer = createHash('md5');
  for (const p of parts) outer.update(createHash('md5').update(p).digest());
  return `"${outer.digest('hex')}-${parts.length}"`;
}

const create = async (Key: string) => (await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId!;
const part = async (Key: string, UploadId: string, PartNumber: number, Body: string): Promise<CompletedPart> => ({
  PartNumber,
  ETag: (await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body }))).ETag!,
});
const complete = (Key: string, UploadId: string, Parts: CompletedPart[], extra: object = {}) =>
  s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts }, ...extra }));
const read = async (Key: string) => (await s3.send(new GetObjectCommand({ Bucket, Key }))).Body!.transformToString();
const send = (method: string, target: string, body?: string, headers?: Record<string, string>) =>
  rawFetch(endpoint.server.url, {
    method,
    target,
    ...(body === undefined ? {} : { body }),
    ...(headers ? { headers } : {}),
  });
const codeOf = (xml: string) => /<Code>([^<]*)<\/Code>/.exec(xml)?.[1];

describe('request documents are XML as XML defines it', () => {
  test('ETags written with character references (as Go encodes quotes) complete the upload', async () => {
    const id = await create('go');
    const p1 = await part('go', id, 1, A);
    const p2 = await part('go', id, 2, 'end');
    const asGo = (etag: string) => etag.replace(/"/g, '&#34;');
    const document =
      '<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      `<Part><PartNumber>1</PartNumber><ETag>${asGo(p1.ETag!)}</ETag></Part>` +
      `<Part><PartNumber>2</PartNumber><ETag>${asGo(p2.ETag!)}</ETag></Part>` +
      '</CompleteMultipartUpload>';
    const { response, text } = await send('POST', `/${Bucket}/go?uploadId=${encodeURIComponent(id)}`, document);
    expect(response.status).toBe(200);
    expect(text).toContain(`<ETag>${multipartEtag([A, 'end']).replace(/"/g, '&quot;')}</ETag>`);
    expect(await read('go')).toBe(A + 'end');
  });

  test("DeleteObjects decodes references and CDATA in keys: it&#39;s deletes it's", async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: "it's", Body: 'x' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'A&', Body: 'y' }));
    const document =
      "<Delete><Object><Key>it&#39;s</Key></Object><Object><Key><![CDATA[A&]]></Key></Object></Delete>";
    const { response, text } = await send('POST', `/${Bucket}?delete`, document);
    expect(response.status).toBe(200);
    expect(text).toContain('<Key>it&apos;s</Key>');
    const left = await s3.send(new ListObjectsV2Command({ Bucket }));
    expect(left.KeyCount).toBe(0);
  });

  test.each([
    ['an entity XML does not define', '<Delete><Object><Key>&nbsp;</Key></Object></Delete>'],
    ['a reference to no character', '<Delete><Object><Key>&#0;</Key></Object></Delete>'],
    ['mismatched tags', '<Delete><Object><Key>a</Object></Key></Delete>'],
    ['text after the root', '<Delete><Object><Key>a</Key></Object></Delete>trailing'],
  ])('%s is MalformedXML', async (_, document) => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'a', Body: 'x' }));
    const { response, text } = await send('POST', `/${Bucket}?delete`, document);
    expect(response.status).toBe(400);
    expect(codeOf(text)).toBe('MalformedXML');
    expect(await read('a')).toBe('x');
  });
});

describe('part etags are the MD5 of the part, however it was sent, and completion takes them', () => {
  test('plain, with Content-MD5, with a checksum header, unsigned, and aws-chunked', async () => {
    const id = await create('ways');
    const target = (n: number) => `/${Bucket}/ways?partNumber=${n}&uploadId=${encodeURIComponent(id)}`;
    const plain = await send('PUT', target(1), A);
    const withMd5 = await send('PUT', target(2), B, {
      'content-md5': createHash('md5').update(B).digest('base64'),
    });
    const viaSdk = await s3.send(
      new UploadPartCommand({ Bucket, Key: 'ways', UploadId: id, PartNumber: 3, Body: C, ChecksumAlgorithm: 'SHA256' }),
    );
    const unsigned = await rawFetch(endpoint.server.url, {
      method: 'PUT',
      target: target(4),
      body: A,
      payloadHash: 'UNSIGNED-PAYLOAD',
    });
    const chunks = [B.slice(0, 5), B.slice(5)];
    const signed = signedHeaders(endpoint.server.url, {
      method: 'PUT',
      target: target(5),
      payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      headers: { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': String(B.length) },
    });
    const chunked = await fetch(signed.url, {
      method: 'PUT',
      headers: signed.headers,
      body: signedChunks(chunks, signed.signature, signed.amzDate),
    });
    const etags = [
      plain.response.headers.get('etag'),
      withMd5.response.headers.get('etag'),
      viaSdk.ETag,
      unsigned.response.headers.get('etag'),
      chunked.headers.get('etag'),
    ];
    expect(etags).toEqual([A, B, C, A, B].map((body) => `"${md5(body)}"`));
    const done = await complete(
      'ways',
      id,
      etags.map((ETag, index) => ({ PartNumber: index + 1, ETag: ETag! })),
    );
    expect(done.ETag).toBe(multipartEtag([A, B, C, A, B]));
    expect(await read('ways')).toBe(A + B + C + A + B);
  });

  test('a part sent again with the same bytes keeps its etag: either answer completes', async () => {
    const id = await create('again');
    const first = await part('again', id, 1, A);
    const second = await part('again', id, 1, A);
    expect(second.ETag).toBe(first.ETag);
    const last = await part('again', id, 2, 'end');
    await complete('again', id, [first, last]);
    expect(await read('again')).toBe(A + 'end');
  });

  test('a part named twice in a row counts once, with the etag named last (the last upload wins)', async () => {
    const id = await create('twice');
    const old = await part('twice', id, 1, B);
    const current = await part('twice', id, 1, A);
    const done = await complete('twice', id, [old, current]);
    expect(done.ETag).toBe(multipartEtag([A]));
    expect(await read('twice')).toBe(A);
  });

  test('a part sent again with other bytes outdates the first etag', async () => {
    const id = await create('changed');
    const old = await part('changed', id, 1, A);
    await part('changed', id, 1, B);
    expect(await s3Failure(complete('changed', id, [old]))).toMatchObject({ name: 'InvalidPart', status: 400 });
  });
});

describe('CompleteMultipartUpload', () => {
  test('repeated after success answers the same object; with other parts it is NoSuchUpload', async () => {
    const id = await create('retry');
    const parts = [await part('retry', id, 1, A), await part('retry', id, 2, 'end')];
    const first = await complete('retry', id, parts);
    const again = await complete('retry', id, parts);
    expect(again).toMatchObject({ ETag: first.ETag, Key: 'retry', Bucket });
    expect(await s3Failure(complete('retry', id, parts.slice(0, 1)))).toMatchObject({
      name: 'NoSuchUpload',
      status: 404,
    });
  });

  test('If-None-Match: * refuses to replace an object (412) and leaves the upload open', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'taken', Body: 'first' }));
    const id = await create('taken');
    const parts = [await part('taken', id, 1, A)];
    expect(await s3Failure(complete('taken', id, parts, { IfNoneMatch: '*' }))).toMatchObject({
      name: 'PreconditionFailed',
      status: 412,
    });
    expect(await read('taken')).toBe('first');
    const current = md5('first');
    expect(await s3Failure(complete('taken', id, parts, { IfMatch: `"${md5('other')}"` }))).toMatchObject({
      name: 'PreconditionFailed',
    });
    await complete('taken', id, parts, { IfMatch: `"${current}"` });
    expect(await read('taken')).toBe(A);
  });

  test('If-None-Match: * completes where no object is', async () => {
    const id = await create('fresh');
    await complete('fresh', id, [await part('fresh', id, 1, 'only')], { IfNoneMatch: '*' });
    expect(await read('fresh')).toBe('only');
  });
});

describe('checksums kept with the object', () => {
  test('a SHA-256 named on PutObject comes back on HEAD and GET with x-amz-checksum-mode ENABLED only', async () => {
    const sha256 = createHash('sha256').update('body').digest('base64');
    const put = await s3.send(
      new PutObjectCommand({ Bucket, Key: 'sum', Body: 'body', ChecksumAlgorithm: 'SHA256', ChecksumSHA256: sha256 }),
    );
    expect(put.ChecksumSHA256).toBe(sha256);
    expect((await s3.send(new HeadObjectCommand({ Bucket, Key: 'sum' }))).ChecksumSHA256).toBeUndefined();
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'sum', ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumSHA256).toBe(sha256);
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'sum', ChecksumMode: 'ENABLED' }));
    expect(got.ChecksumSHA256).toBe(sha256);
    expect(await got.Body!.transformToString()).toBe('body');
  });

  test("a SHA-256 that is not the body's, or not 32 bytes, is BadDigest and stores nothing", async () => {
    const other = createHash('sha256').update('other').digest('base64');
    for (const ChecksumSHA256 of [other, 'bad']) {
      const { response, text } = await send('PUT', `/${Bucket}/bad-sum`, 'body', { 'x-amz-checksum-sha256': ChecksumSHA256 });
      expect([response.status, codeOf(text)]).toEqual([400, 'BadDigest']);
    }
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket, Key: 'bad-sum' })))).toMatchObject({ status: 404 });
  });
});

describe('DeleteBucket', () => {
  test('a bucket holding only uploads in progress is deleted, as S3 does; one with objects is not', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'pending' }));
    await s3.send(new CreateMultipartUploadCommand({ Bucket: 'pending', Key: 'half' }));
    await s3.send(new PutObjectCommand({ Bucket: 'pending', Key: 'whole', Body: 'x' }));
    expect(await s3Failure(s3.send(new DeleteBucketCommand({ Bucket: 'pending' })))).toMatchObject({
      name: 'BucketNotEmpty',
      status: 409,
    });
    await s3.send(new DeleteObjectCommand({ Bucket: 'pending', Key: 'whole' }));
    await s3.send(new DeleteBucketCommand({ Bucket: 'pending' }));
    expect((await s3.send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toEqual([Bucket]);
  });
});

describe('partNumber reads', () => {
  test('GET and HEAD of each part of a multipart object, with its parts count', async () => {
    const id = await create('parts');
    const done = await complete('parts', id, [
      await part('parts', id, 1, A),
      await part('parts', id, 2, B),
      await part('parts', id, 3, 'end'),
    ]);
    for (const [PartNumber, body] of [
      [1, A],
      [2, B],
      [3, 'end'],
    ] as const) {
      const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'parts', PartNumber }));
      expect(got).toMatchObject({ PartsCount: 3, ETag: done.ETag, ContentLength: body.length });
      expect(await got.Body!.transformToString()).toBe(body);
      const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'parts', PartNumber }));
      expect(head).toMatchObject({ PartsCount: 3, ETag: done.ETag, ContentLength: body.length });
    }
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'parts', PartNumber: 4 })))).toMatchObject({
      name: 'InvalidPart',
      status: 400,
    });
  });

  test('an object stored by a single put is part 1, whole; part 2 is InvalidPart', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'single', Body: 'body' }));
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'single', PartNumber: 1 }));
    expect(got.PartsCount).toBeUndefined();
    expect(got.ETag).toBe(`"${md5('body')}"`);
    expect(await got.Body!.transformToString()).toBe('body');
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'single', PartNumber: 2 })))).toMatchObject({
      name: 'InvalidPart',
    });
  });

  test('a missing key is NoSuchKey; partNumber with Range, or out of 1..10000, is refused', async () => {
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'none', PartNumber: 1 })))).toMatchObject({
      name: 'NoSuchKey',
      status: 404,
    });
    await s3.send(new PutObjectCommand({ Bucket, Key: 'single', Body: 'body' }));
    const both = await send('GET', `/${Bucket}/single?partNumber=1`, undefined, { range: 'bytes=0-1' });
    expect([both.response.status, codeOf(both.text)]).toEqual([400, 'InvalidRequest']);
    const zero = await send('GET', `/${Bucket}/single?partNumber=0`);
    expect([zero.response.status, codeOf(zero.text)]).toEqual([400, 'InvalidArgument']);
  });
});

describe('listings', () => {
  test('version 1 with a delimiter pages one entry at a time without repeating a page', async () => {
    for (const Key of ['asdf', 'boo/bar', 'boo/baz/xyzzy', 'cquux/thud', 'cquux/bla']) {
      await s3.send(new PutObjectCommand({ Bucket, Key, Body: 'x' }));
    }
    const pages: [string[], string[], boolean, string | undefined][] = [];
    let Marker: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await s3.send(new ListObjectsCommand({ Bucket, Delimiter: '/', MaxKeys: 1, ...(Marker ? { Marker } : {}) }));
      pages.push([
        (page.Contents ?? []).map((o) => o.Key!),
        (page.CommonPrefixes ?? []).map((p) => p.Prefix!),
        page.IsTruncated!,
        page.NextMarker,
      ]);
      if (!page.IsTruncated) break;
      Marker = page.NextMarker;
    }
    expect(pages).toEqual([
      [['asdf'], [], true, 'asdf'],
      [[], ['boo/'], true, 'boo/'],
      [[], ['cquux/'], false, undefined],
    ]);
    const inside = await s3.send(new ListObjectsCommand({ Bucket, Delimiter: '/', Prefix: 'boo/', Marker: 'boo/bar' }));
    expect((inside.CommonPrefixes ?? []).map((p) => p.Prefix)).toEqual(['boo/baz/']);
  });

  test('version 1 answers the prefix as given, even a control character under encoding-type=url', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'foo/bar', Body: 'x' }));
    const { text } = await send('GET', `/${Bucket}?prefix=%0A&encoding-type=url`);
    expect(text).toContain('<Prefix>\n</Prefix>');
    expect(text).not.toContain('<Contents>');
  });

  test('an empty continuation token lists from the start and is echoed', async () => {
    for (const Key of ['bar', 'baz', 'foo']) await s3.send(new PutObjectCommand({ Bucket, Key, Body: 'x' }));
    const page = await s3.send(new ListObjectsV2Command({ Bucket, ContinuationToken: '' }));
    expect(page.ContinuationToken).toBe('');
    expect(page.Contents!.map((o) => o.Key)).toEqual(['bar', 'baz', 'foo']);
  });

  test('ListBuckets pages with max-buckets and a continuation token, and filters by prefix', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'world-2' }));
    await s3.send(new CreateBucketCommand({ Bucket: 'other' }));
    const first = await s3.send(new ListBucketsCommand({ MaxBuckets: 2 }));
    expect(first.Buckets!.map((b) => b.Name)).toEqual(['other', 'world']);
    const second = await s3.send(new ListBucketsCommand({ MaxBuckets: 2, ContinuationToken: first.ContinuationToken! }));
    expect(second.Buckets!.map((b) => b.Name)).toEqual(['world-2']);
    expect(second.ContinuationToken).toBeUndefined();
    const all = await s3.send(new ListBucketsCommand({}));
    expect(all.ContinuationToken).toBeUndefined();
    expect(all.Buckets).toHaveLength(3);
    const prefixed = await s3.send(new ListBucketsCommand({ Prefix: 'world' }));
    expect(prefixed.Buckets!.map((b) => b.Name)).toEqual(['world', 'world-2']);
  });

  test('ListObjectVersions of a bucket without versions: every object once, version null, latest', async () => {
    for (const Key of ['a', 'b/c', 'b/d']) await s3.send(new PutObjectCommand({ Bucket, Key, Body: Key }));
    const listed = await s3.send(new ListObjectVersionsCommand({ Bucket }));
    expect(listed.Versions!.map((v) => [v.Key, v.VersionId, v.IsLatest, v.ETag])).toEqual([
      ['a', 'null', true, `"${md5('a')}"`],
      ['b/c', 'null', true, `"${md5('b/c')}"`],
      ['b/d', 'null', true, `"${md5('b/d')}"`],
    ]);
    const paged = await s3.send(new ListObjectVersionsCommand({ Bucket, MaxKeys: 1, Delimiter: '/', KeyMarker: 'a' }));
    expect(paged.CommonPrefixes!.map((p) => p.Prefix)).toEqual(['b/']);
    expect(paged.IsTruncated).toBe(false);
    const deleted = await s3.send(
      new DeleteObjectsCommand({
        Bucket,
        Delete: { Objects: listed.Versions!.map((v) => ({ Key: v.Key!, VersionId: v.VersionId! })) },
      }),
    );
    expect(deleted.Deleted!.map((d) => [d.Key, d.VersionId])).toEqual([
      ['a', 'null'],
      ['b/c', 'null'],
      ['b/d', 'null'],
    ]);
    expect((await s3.send(new ListObjectsV2Command({ Bucket }))).KeyCount).toBe(0);
  });

  test('versionId null reads the object; another version id is InvalidArgument', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'v', Body: 'body' }));
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'v', VersionId: 'null' }));
    expect(await got.Body!.transformToString()).toBe('body');
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'v', VersionId: 'abc' })))).toMatchObject({
      name: 'InvalidArgument',
      status: 400,
    });
  });
});
