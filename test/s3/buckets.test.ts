// Buckets and listings through the AWS SDK v3.
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetBucketLocationCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { beforeEach, describe, expect, test } from 'vitest';
import { s3Failure, startEndpoint, type Endpoint } from './support';

let endpoint: Endpoint;
let s3: S3Client;
beforeEach(async () => {
  endpoint = await startEndpoint();
  s3 = endpoint.client();
});

describe('the bucket catalogue', () => {
  test('create, list, head, locate and delete buckets, under the catalogue rules', async () => {
    expect((await s3.send(new ListBucketsCommand({}))).Buckets ?? []).toEqual([]);
    await s3.send(new CreateBucketCommand({ Bucket: 'beta' }));
    await s3.send(
      new CreateBucketCommand({ Bucket: 'alpha', CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } }),
    );
    const listed = await s3.send(new ListBucketsCommand({}));
    expect(listed.Buckets!.map((b) => b.Name)).toEqual(['alpha', 'beta']);
    expect(Math.abs(listed.Buckets![0]!.CreationDate!.getTime() - Date.now())).toBeLessThan(5000);
    expect((await endpoint.catalogue.list()).map((b) => b.name)).toEqual(['alpha', 'beta']);
    expect((await s3.send(new HeadBucketCommand({ Bucket: 'alpha' }))).$metadata.httpStatusCode).toBe(200);
    expect((await s3.send(new GetBucketLocationCommand({ Bucket: 'alpha' }))).LocationConstraint).toBe('auto');
    expect(await s3Failure(s3.send(new CreateBucketCommand({ Bucket: 'alpha' })))).toMatchObject({
      name: 'BucketAlreadyOwnedByYou',
      status: 409,
    });
    expect(await s3Failure(s3.send(new CreateBucketCommand({ Bucket: 'Bad_Name' })))).toMatchObject({
      name: 'InvalidBucketName',
      status: 400,
    });
    await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'k', Body: 'v' }));
    expect(await s3Failure(s3.send(new DeleteBucketCommand({ Bucket: 'alpha' })))).toMatchObject({
      name: 'BucketNotEmpty',
      status: 409,
      message:
        'The bucket you tried to delete is not empty: alpha still holds objects or multipart uploads in progress.',
    });
    expect((await s3.send(new DeleteBucketCommand({ Bucket: 'beta' }))).$metadata.httpStatusCode).toBe(204);
    expect(await s3Failure(s3.send(new HeadBucketCommand({ Bucket: 'beta' })))).toMatchObject({
      name: 'NotFound',
      status: 404,
    });
    expect(await s3Failure(s3.send(new DeleteBucketCommand({ Bucket: 'beta' })))).toMatchObject({
      name: 'NoSuchBucket',
      status: 404,
    });
    expect((await endpoint.catalogue.list()).map((b) => b.name)).toEqual(['alpha']);
  });
});

describe('buckets kept open by the endpoint', () => {
  test('a bucket another process deletes is NoSuchBucket; created again, it is the new, empty one', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'kept' }));
    await s3.send(new PutObjectCommand({ Bucket: 'kept', Key: 'old', Body: 'x' }));
    await s3.send(new DeleteObjectCommand({ Bucket: 'kept', Key: 'old' }));
    // endpoint.catalogue is a second catalogue on the same data directory, as another process has.
    await endpoint.catalogue.delete('kept');
    expect(await s3Failure(s3.send(new HeadBucketCommand({ Bucket: 'kept' })))).toMatchObject({ status: 404 });
    expect(await s3Failure(s3.send(new PutObjectCommand({ Bucket: 'kept', Key: 'k', Body: 'y' })))).toMatchObject({
      name: 'NoSuchBucket',
    });
    await endpoint.catalogue.create('kept');
    const other = await endpoint.catalogue.open('kept');
    await other.put('from-binding', 'z');
    await s3.send(new PutObjectCommand({ Bucket: 'kept', Key: 'from-s3', Body: 'w' }));
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'kept' }));
    expect(listed.Contents!.map((o) => o.Key)).toEqual(['from-binding', 'from-s3']);
    expect(await (await other.get('from-s3'))!.text()).toBe('w');
  });

  // Reads and small writes use the bucket as last found and check it only when the outcome could
  // depend on it (nothing found, a write refused): the answers are those of a check every time.
  test('reads of a bucket another process deletes are NoSuchBucket; created again, they read the new one', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'kept' }));
    await s3.send(new PutObjectCommand({ Bucket: 'kept', Key: 'old', Body: 'x' }));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: 'kept', Key: 'old' }))).Body!.transformToString()).toBe('x');
    await s3.send(new DeleteObjectCommand({ Bucket: 'kept', Key: 'old' }));
    await endpoint.catalogue.delete('kept');
    const gone = { name: 'NoSuchBucket', status: 404, message: 'The specified bucket does not exist: kept.' };
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'kept', Key: 'old' })))).toEqual(gone);
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'kept', Key: 'old', IfMatch: '"abc"' })))).toEqual(gone);
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: 'kept', Key: 'old' })))).toMatchObject({ status: 404 });

    await endpoint.catalogue.create('kept');
    const other = await endpoint.catalogue.open('kept');
    await other.put('new', 'made elsewhere');
    const read = await s3.send(new GetObjectCommand({ Bucket: 'kept', Key: 'new' }));
    expect(await read.Body!.transformToString()).toBe('made elsewhere');
    expect((await s3.send(new HeadObjectCommand({ Bucket: 'kept', Key: 'new' }))).ContentLength).toBe(14);
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'kept', Key: 'old' })))).toMatchObject({
      name: 'NoSuchKey',
      status: 404,
    });
    // Deleted and created again between two writes: the second goes into the new bucket.
    await s3.send(new PutObjectCommand({ Bucket: 'kept', Key: 'first', Body: '1' }));
    await other.delete(['new', 'first']);
    await endpoint.catalogue.delete('kept');
    await endpoint.catalogue.create('kept');
    await s3.send(new PutObjectCommand({ Bucket: 'kept', Key: 'second', Body: '2' }));
    const again = await endpoint.catalogue.open('kept');
    expect((await again.list()).objects.map((o) => o.key)).toEqual(['second']);
  });
});

describe('ListObjectsV2', () => {
  const keys = ['a.txt', 'dir/1', 'dir/2', 'dir/sub/3', 'e\u00e9', 'z/'];
  beforeEach(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'files' }));
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: 'files', Key, Body: Key }));
  });
  const list = (extra: Partial<ConstructorParameters<typeof ListObjectsV2Command>[0]> = {}) =>
    s3.send(new ListObjectsV2Command({ Bucket: 'files', ...extra }));

  test('lists every key in byte order with sizes and etags', async () => {
    const page = await list();
    expect(page.Contents!.map((o) => [o.Key, o.Size])).toEqual(keys.map((k) => [k, Buffer.byteLength(k)]));
    expect(page.Contents![0]!.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(page).toMatchObject({ KeyCount: 6, IsTruncated: false, MaxKeys: 1000, Name: 'files' });
  });

  test('prefix and delimiter group keys into common prefixes', async () => {
    const top = await list({ Delimiter: '/' });
    expect(top.Contents!.map((o) => o.Key)).toEqual(['a.txt', 'e\u00e9']);
    expect(top.CommonPrefixes!.map((p) => p.Prefix)).toEqual(['dir/', 'z/']);
    const inDir = await list({ Prefix: 'dir/', Delimiter: '/' });
    expect(inDir.Contents!.map((o) => o.Key)).toEqual(['dir/1', 'dir/2']);
    expect(inDir.CommonPrefixes!.map((p) => p.Prefix)).toEqual(['dir/sub/']);
    expect((await list({ Prefix: 'nothing' })).KeyCount).toBe(0);
  });

  test('max-keys and continuation tokens page through everything once', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await list({ MaxKeys: 2, ...(token ? { ContinuationToken: token } : {}) });
      pages++;
      seen.push(...(page.Contents ?? []).map((o) => o.Key!), ...(page.CommonPrefixes ?? []).map((p) => p.Prefix!));
      expect(page.KeyCount).toBeLessThanOrEqual(2);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    expect(seen).toEqual(keys);
    expect(pages).toBe(3);
  });

  test('start-after skips keys up to and including it', async () => {
    expect((await list({ StartAfter: 'dir/2' })).Contents!.map((o) => o.Key)).toEqual(['dir/sub/3', 'e\u00e9', 'z/']);
  });

  test('encoding-type=url encodes keys XML cannot carry', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'files', Key: 'ctl\u0001char', Body: 'x' }));
    const page = await list({ EncodingType: 'url', Prefix: 'ctl' });
    // The caller decodes them (the AWS CLI does; the SDK leaves it to its user).
    expect(page.EncodingType).toBe('url');
    expect(page.Contents!.map((o) => decodeURIComponent(o.Key!))).toEqual(['ctl\u0001char']);
    expect(page.Contents!.map((o) => o.Key)).toEqual(['ctl%01char']);
  });

  test('max-keys 0 answers an empty page; bad max-keys is InvalidArgument', async () => {
    expect(await list({ MaxKeys: 0 })).toMatchObject({ KeyCount: 0, IsTruncated: false });
    expect(await s3Failure(list({ MaxKeys: -1 }))).toMatchObject({ name: 'InvalidArgument', status: 400 });
  });

  test('an unknown continuation token yields an empty page, as the binding does', async () => {
    expect(await list({ ContinuationToken: 'bm90LWEtdG9rZW4' })).toMatchObject({ KeyCount: 0, IsTruncated: false });
  });
});

describe('ListObjects (version 1)', () => {
  const keys = ['a', 'dir/1', 'dir/2', 'dir/sub/3', 'm', 'z/1'];
  beforeEach(async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'version-one' }));
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: 'version-one', Key, Body: Key }));
  });

  test('pages with marker / NextMarker, resuming after a whole delimited group', async () => {
    const seen: string[] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await s3.send(
        new ListObjectsCommand({
          Bucket: 'version-one',
          Delimiter: '/',
          MaxKeys: 2,
          ...(marker ? { Marker: marker } : {}),
        }),
      );
      seen.push(...(page.Contents ?? []).map((o) => o.Key!), ...(page.CommonPrefixes ?? []).map((p) => p.Prefix!));
      if (!page.IsTruncated) break;
      marker = page.NextMarker;
    }
    expect(seen.sort()).toEqual(['a', 'dir/', 'm', 'z/']);
    const after = await s3.send(new ListObjectsCommand({ Bucket: 'version-one', Marker: 'dir/1' }));
    expect(after.Contents!.map((o) => o.Key)).toEqual(['dir/2', 'dir/sub/3', 'm', 'z/1']);
    const inside = await s3.send(new ListObjectsCommand({ Bucket: 'version-one', Prefix: 'dir/', Delimiter: '/' }));
    expect(inside.Contents!.map((o) => o.Key)).toEqual(['dir/1', 'dir/2']);
    expect(inside.CommonPrefixes!.map((p) => p.Prefix)).toEqual(['dir/sub/']);
  });
});
