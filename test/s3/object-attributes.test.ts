// GetObjectAttributes (`?attributes`) and the checksums copies get, with the AWS SDK and raw
// signed requests for what the SDK will not send (unknown attribute names, bad paging headers).
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectAttributesCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type ObjectAttributes,
  type S3Client,
} from '@aws-sdk/client-s3';
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { beforeEach, describe, expect, test } from 'vitest';
import { rawFetch } from './raw-requests';
import { ACCESS_KEY_ID, MIN_PART, s3Failure, SECRET, startEndpoint, type Endpoint } from './support';

let endpoint: Endpoint;
let s3: S3Client;
const Bucket = 'attrs';
beforeEach(async () => {
  endpoint = await startEndpoint();
  s3 = endpoint.client();
  await s3.send(new CreateBucketCommand({ Bucket }));
});

const ALL: ObjectAttributes[] = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'];
const parts = [Buffer.alloc(MIN_PART, 'A'), Buffer.alloc(MIN_PART, 'B'), Buffer.alloc(MIN_PART, 'C'), Buffer.from('tail')];
const whole = Buffer.concat(parts);
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();
const crc32Of = (data: Buffer) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data));
  return out.toString('base64');
};
const multipartEtag = (pieces: Buffer[]) =>
  `${createHash('md5').update(Buffer.concat(pieces.map((p) => createHash('md5').update(p).digest()))).digest('hex')}-${pieces.length}`;

const attributes = (Key: string, extra: Partial<ConstructorParameters<typeof GetObjectAttributesCommand>[0]> = {}) =>
  s3.send(new GetObjectAttributesCommand({ Bucket, Key, ObjectAttributes: ALL, ...extra }));

/** A multipart upload of `parts`, with SHA-256 part checksums when asked, completed. */
async function multipart(Key: string, withChecksum: boolean) {
  const { UploadId } = await s3.send(
    new CreateMultipartUploadCommand({ Bucket, Key, ...(withChecksum ? { ChecksumAlgorithm: 'SHA256' } : {}) }),
  );
  const done = [];
  for (const [index, Body] of parts.entries()) {
    const answer = await s3.send(
      new UploadPartCommand({
        Bucket,
        Key,
        UploadId,
        PartNumber: index + 1,
        Body,
        ...(withChecksum ? { ChecksumAlgorithm: 'SHA256' as const } : {}),
      }),
    );
    done.push({ PartNumber: index + 1, ETag: answer.ETag!, ...(withChecksum ? { ChecksumSHA256: answer.ChecksumSHA256! } : {}) });
  }
  return s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } }));
}

const send = (target: string, headers: Record<string, string>) => rawFetch(endpoint.server.url, { method: 'GET', target, headers });

describe('GetObjectAttributes', () => {
  test('a single put: its etag without quotes, size, storage class and checksum; no parts', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'one', Body: whole, ChecksumAlgorithm: 'SHA256' }));
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'one' }));
    const got = await attributes('one');
    expect(got.ETag).toBe(md5(whole));
    expect(`"${got.ETag}"`).toBe(put.ETag);
    expect(got.ObjectSize).toBe(whole.length);
    expect(got.StorageClass).toBe('STANDARD');
    expect(got.Checksum).toEqual({ ChecksumSHA256: sha256(whole).toString('base64'), ChecksumType: 'FULL_OBJECT' });
    expect(got.ObjectParts).toBeUndefined();
    expect(got.LastModified).toEqual(head.LastModified);
    expect(got.VersionId).toBeUndefined();
  });

  test('only the attributes asked for are answered; an object without checksum has no Checksum', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'plain', Body: 'foo' }));
    // The raw request sends no checksum: the SDK would add a CRC32 of its own.
    await rawFetch(endpoint.server.url, { method: 'PUT', target: `/${Bucket}/bare`, body: 'foo' });
    const sized = await s3.send(new GetObjectAttributesCommand({ Bucket, Key: 'bare', ObjectAttributes: ['ObjectSize'] }));
    expect(sized.ObjectSize).toBe(3);
    expect(sized.ETag).toBeUndefined();
    expect(sized.StorageClass).toBeUndefined();
    const bare = await attributes('bare');
    expect(bare.Checksum).toBeUndefined();
    expect(bare.ETag).toBe(md5(Buffer.from('foo')));
  });

  test('a multipart object with part checksums: composite checksum, parts with sizes and checksums', async () => {
    const done = await multipart('mp', true);
    const got = await attributes('mp');
    expect(got.ETag).toBe(multipartEtag(parts));
    expect(`"${got.ETag}"`).toBe(done.ETag);
    expect(got.ObjectSize).toBe(whole.length);
    const composite = `${sha256(Buffer.concat(parts.map(sha256))).toString('base64')}-${parts.length}`;
    expect(got.Checksum).toEqual({ ChecksumSHA256: composite, ChecksumType: 'COMPOSITE' });
    expect(got.ObjectParts).toEqual({
      TotalPartsCount: 4,
      PartNumberMarker: '0',
      NextPartNumberMarker: '4',
      MaxParts: 1000,
      IsTruncated: false,
      Parts: parts.map((part, index) => ({ PartNumber: index + 1, Size: part.length, ChecksumSHA256: sha256(part).toString('base64') })),
    });
  });

  test('parts are paged with x-amz-max-parts and x-amz-part-number-marker', async () => {
    await multipart('paged', false);
    const first = await attributes('paged', { MaxParts: 1, PartNumberMarker: '2' });
    expect(first.ObjectParts).toEqual({
      TotalPartsCount: 4,
      PartNumberMarker: '2',
      NextPartNumberMarker: '3',
      MaxParts: 1,
      IsTruncated: true,
      Parts: [{ PartNumber: 3, Size: MIN_PART }],
    });
    const rest = await attributes('paged', { MaxParts: 10, PartNumberMarker: '3' });
    expect(rest.ObjectParts!.IsTruncated).toBe(false);
    expect(rest.ObjectParts!.Parts).toEqual([{ PartNumber: 4, Size: 4 }]);
    const past = await attributes('paged', { PartNumberMarker: '4' });
    expect(past.ObjectParts!.Parts).toBeUndefined();
    expect(past.ObjectParts!.TotalPartsCount).toBe(4);
    expect(past.ObjectParts!.IsTruncated).toBe(false);
    // More than 1000 is answered as 1000, as S3 caps it.
    expect((await attributes('paged', { MaxParts: 5000 })).ObjectParts!.MaxParts).toBe(1000);
  });

  test('a missing key is NoSuchKey (404); a missing bucket NoSuchBucket', async () => {
    expect(await s3Failure(attributes('nothing'))).toMatchObject({ name: 'NoSuchKey', status: 404 });
    expect(
      await s3Failure(s3.send(new GetObjectAttributesCommand({ Bucket: 'no-such', Key: 'k', ObjectAttributes: ALL }))),
    ).toMatchObject({ name: 'NoSuchBucket', status: 404 });
  });

  test('conditions as GetObject: If-Match failing is 412, If-None-Match matching is 304', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'cond', Body: 'x' }));
    const target = `/${Bucket}/cond?attributes`;
    const base = { 'x-amz-object-attributes': 'ETag' };
    const failed = await send(target, { ...base, 'if-match': '"0123"' });
    expect(failed.response.status).toBe(412);
    expect(failed.text).toContain('<Code>PreconditionFailed</Code>');
    const unchanged = await send(target, { ...base, 'if-none-match': put.ETag! });
    expect(unchanged.response.status).toBe(304);
    const held = await send(target, { ...base, 'if-match': put.ETag! });
    expect(held.response.status).toBe(200);
    expect(held.text).toContain(`<ETag>${md5(Buffer.from('x'))}</ETag>`);
    const since = await send(target, { ...base, 'if-modified-since': new Date(Date.now() + 3600_000).toUTCString() });
    expect(since.response.status).toBe(304);
  });

  test('version null is this object; another version id is InvalidArgument', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'v', Body: 'x' }));
    expect((await attributes('v', { VersionId: 'null' })).ObjectSize).toBe(1);
    expect(await s3Failure(attributes('v', { VersionId: '3HL4kqtJlcpXroDTDmJ' }))).toMatchObject({
      name: 'InvalidArgument',
      status: 400,
    });
  });

  test('bad requests answer S3 XML errors naming what is wrong', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'bad', Body: 'x' }));
    const target = `/${Bucket}/bad?attributes`;
    const refused = async (headers: Record<string, string>) => {
      const { response, text } = await send(target, headers);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/xml');
      expect(text).toContain('<Code>InvalidArgument</Code>');
      return /<Message>(.*)<\/Message>/.exec(text)![1]!;
    };
    expect(await refused({})).toContain('x-amz-object-attributes must name one or more of ETag, Checksum, ObjectParts');
    expect(await refused({ 'x-amz-object-attributes': 'ETag,Colour' })).toContain('Invalid attribute name specified: Colour');
    expect(await refused({ 'x-amz-object-attributes': 'etag' })).toContain('Invalid attribute name specified: etag');
    expect(await refused({ 'x-amz-object-attributes': 'ETag', 'x-amz-max-parts': 'ten' })).toContain(
      'x-amz-max-parts must be a whole number, not &quot;ten&quot;',
    );
    expect(await refused({ 'x-amz-object-attributes': 'ETag', 'x-amz-max-parts': '-1' })).toContain('x-amz-max-parts must be a whole number');
    expect(await refused({ 'x-amz-object-attributes': 'ETag', 'x-amz-part-number-marker': '10001' })).toContain(
      'x-amz-part-number-marker must be at most 10000',
    );
    // Several headers, or spaces after commas, are one list.
    const listed = await send(target, { 'x-amz-object-attributes': 'ETag, ObjectSize' });
    expect(listed.response.status).toBe(200);
    expect(listed.text).toContain('<ObjectSize>1</ObjectSize>');
  });

  test('an object a worker stored with a SHA-256 answers it as its checksum', async () => {
    const bucket = await endpoint.catalogue.open(Bucket);
    await bucket.put('worker', 'from a worker', { sha256: createHash('sha256').update('from a worker').digest('hex') });
    const got = await attributes('worker');
    expect(got.Checksum).toEqual({
      ChecksumSHA256: sha256(Buffer.from('from a worker')).toString('base64'),
      ChecksumType: 'FULL_OBJECT',
    });
  });
});

describe('checksums of copies', () => {
  test('without x-amz-checksum-algorithm, a copy gets a checksum of the source\'s algorithm', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'src', Body: whole, ChecksumAlgorithm: 'CRC32' }));
    const copy = await s3.send(new CopyObjectCommand({ Bucket, Key: 'dst', CopySource: `${Bucket}/src` }));
    expect(copy.CopyObjectResult!.ChecksumCRC32).toBe(put.ChecksumCRC32);
    expect(copy.CopyObjectResult!.ChecksumType).toBe('FULL_OBJECT');
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'dst', ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumCRC32).toBe(crc32Of(whole));
  });

  test('with x-amz-checksum-algorithm, the copy gets that algorithm computed over the bytes', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'src', Body: whole, ChecksumAlgorithm: 'CRC32' }));
    const copy = await s3.send(new CopyObjectCommand({ Bucket, Key: 'dst', CopySource: `${Bucket}/src`, ChecksumAlgorithm: 'SHA256' }));
    expect(copy.CopyObjectResult!.ChecksumSHA256).toBe(sha256(whole).toString('base64'));
    expect(copy.CopyObjectResult!.ChecksumCRC32).toBeUndefined();
    expect((await attributes('dst')).Checksum).toEqual({ ChecksumSHA256: sha256(whole).toString('base64'), ChecksumType: 'FULL_OBJECT' });
  });

  test('a copy of a multipart object is one part: its checksum is the FULL_OBJECT one of the bytes', async () => {
    await multipart('mp', true);
    const copy = await s3.send(new CopyObjectCommand({ Bucket, Key: 'flat', CopySource: `${Bucket}/mp` }));
    expect(copy.CopyObjectResult!.ChecksumSHA256).toBe(sha256(whole).toString('base64'));
    expect(copy.CopyObjectResult!.ChecksumType).toBe('FULL_OBJECT');
    expect((await attributes('flat')).ObjectParts).toBeUndefined();
  });

  test('a source without a checksum gives a copy without one, unless an algorithm is asked for', async () => {
    await rawFetch(endpoint.server.url, { method: 'PUT', target: `/${Bucket}/bare`, body: 'no checksum' });
    const plain = await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy', CopySource: `${Bucket}/bare` }));
    expect(plain.CopyObjectResult!.ChecksumType).toBeUndefined();
    expect((await attributes('copy')).Checksum).toBeUndefined();
    const asked = await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy2', CopySource: `${Bucket}/bare`, ChecksumAlgorithm: 'CRC32' }));
    expect(asked.CopyObjectResult!.ChecksumCRC32).toBe(crc32Of(Buffer.from('no checksum')));
  });

  test('an unknown x-amz-checksum-algorithm on CopyObject is InvalidRequest and copies nothing', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'src', Body: 'x' }));
    const { response, text } = await rawFetch(endpoint.server.url, {
      method: 'PUT',
      target: `/${Bucket}/dst`,
      headers: { 'x-amz-copy-source': `/${Bucket}/src`, 'x-amz-checksum-algorithm': 'MD4' },
    });
    expect(response.status).toBe(400);
    expect(text).toContain('<Code>InvalidRequest</Code>');
    expect(text).toContain('Checksum algorithm MD4 is not supported');
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket, Key: 'dst' })))).toMatchObject({ status: 404 });
  });

  test('UploadPartCopy into an upload with a checksum algorithm computes the part\'s, and completion uses it', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'src', Body: whole }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'assembled', ChecksumAlgorithm: 'SHA256' }));
    const first = await s3.send(
      new UploadPartCopyCommand({ Bucket, Key: 'assembled', UploadId, PartNumber: 1, CopySource: `${Bucket}/src`, CopySourceRange: `bytes=0-${MIN_PART - 1}` }),
    );
    const second = await s3.send(
      new UploadPartCopyCommand({ Bucket, Key: 'assembled', UploadId, PartNumber: 2, CopySource: `${Bucket}/src`, CopySourceRange: `bytes=${MIN_PART}-${MIN_PART + 9}` }),
    );
    const pieces = [whole.subarray(0, MIN_PART), whole.subarray(MIN_PART, MIN_PART + 10)];
    expect(first.CopyPartResult!.ChecksumSHA256).toBe(sha256(pieces[0]!).toString('base64'));
    expect(second.CopyPartResult!.ChecksumSHA256).toBe(sha256(pieces[1]!).toString('base64'));
    const listed = await s3.send(new ListPartsCommand({ Bucket, Key: 'assembled', UploadId }));
    expect(listed.Parts!.map((p) => p.ChecksumSHA256)).toEqual(pieces.map((p) => sha256(p).toString('base64')));
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: 'assembled',
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: first.CopyPartResult!.ETag!, ChecksumSHA256: first.CopyPartResult!.ChecksumSHA256! },
            { PartNumber: 2, ETag: second.CopyPartResult!.ETag!, ChecksumSHA256: second.CopyPartResult!.ChecksumSHA256! },
          ],
        },
      }),
    );
    expect(done.ChecksumSHA256).toBe(`${sha256(Buffer.concat(pieces.map(sha256))).toString('base64')}-2`);
  });

  test('UploadPartCopy into an upload without an algorithm answers no checksum', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'src', Body: whole, ChecksumAlgorithm: 'SHA256' }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'plain' }));
    const part = await s3.send(new UploadPartCopyCommand({ Bucket, Key: 'plain', UploadId, PartNumber: 1, CopySource: `${Bucket}/src` }));
    expect(part.CopyPartResult!.ETag).toBe(`"${md5(whole)}"`);
    expect(part.CopyPartResult!.ChecksumSHA256).toBeUndefined();
  });
});

/** A Python with boto3 (Debian's python3-boto3 at /usr/bin/python3, or the first python3 on PATH). */
function boto3Python(): string | undefined {
  for (const python of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(python, ['-c', 'import boto3'], { stdio: 'ignore' });
      return python;
    } catch {
      // not this one
    }
  }
  return undefined;
}
const python = boto3Python();

// boto3 reads the document with its own model (botocore's), independently of the JavaScript SDK.
const BOTO3_SCRIPT = `
import base64, hashlib, json, os, sys
import boto3
from botocore.config import Config
s3 = boto3.client('s3', endpoint_url=os.environ['ENDPOINT'], region_name='auto',
    aws_access_key_id=os.environ['KEY'], aws_secret_access_key=os.environ['SECRET'],
    config=Config(s3={'addressing_style': 'path'}))
b = 'boto'
s3.create_bucket(Bucket=b)
body = b'x' * 40
s3.put_object(Bucket=b, Key='one', Body=body, ChecksumAlgorithm='SHA256')
one = s3.get_object_attributes(Bucket=b, Key='one', ObjectAttributes=['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'])
up = s3.create_multipart_upload(Bucket=b, Key='mp', ChecksumAlgorithm='SHA256')
parts = []
pieces = [b'A' * 16, b'B' * 16, b'C' * 5]
for n, piece in enumerate(pieces, 1):
    sha = base64.b64encode(hashlib.sha256(piece).digest()).decode()
    r = s3.upload_part(Bucket=b, Key='mp', UploadId=up['UploadId'], PartNumber=n, Body=piece, ChecksumSHA256=sha)
    parts.append({'PartNumber': n, 'ETag': r['ETag'], 'ChecksumSHA256': r['ChecksumSHA256']})
s3.complete_multipart_upload(Bucket=b, Key='mp', UploadId=up['UploadId'], MultipartUpload={'Parts': parts})
mp = s3.get_object_attributes(Bucket=b, Key='mp', ObjectAttributes=['ETag', 'Checksum', 'ObjectParts', 'ObjectSize'], MaxParts=1, PartNumberMarker=1)
copy = s3.copy_object(Bucket=b, Key='copy', CopySource={'Bucket': b, 'Key': 'one'}, ChecksumAlgorithm='SHA1')
try:
    s3.get_object_attributes(Bucket=b, Key='missing', ObjectAttributes=['ETag'])
    missing = None
except s3.exceptions.ClientError as e:
    missing = e.response['Error']['Code']
for r in (one, mp, copy):
    r.pop('ResponseMetadata', None)
print(json.dumps({'one': one, 'mp': mp, 'copy': copy['CopyObjectResult'], 'missing': missing}, default=str))
`;

describe.skipIf(python === undefined)('boto3 (python3-boto3; skipped when no Python has boto3)', () => {
  test('GetObjectAttributes and a copy with a checksum algorithm, as boto3 reads them', async () => {
    // Asynchronously: the endpoint answers from this process.
    const { stdout: output } = await promisify(execFile)(python!, ['-c', BOTO3_SCRIPT], {
      env: { ...process.env, ENDPOINT: endpoint.server.url, KEY: ACCESS_KEY_ID, SECRET },
      encoding: 'utf8',
    });
    const { one, mp, copy, missing } = JSON.parse(output);
    const body = Buffer.alloc(40, 'x');
    expect(one).toMatchObject({
      ETag: md5(body),
      Checksum: { ChecksumSHA256: sha256(body).toString('base64') },
      StorageClass: 'STANDARD',
      ObjectSize: 40,
    });
    expect(one.ObjectParts).toBeUndefined();
    const pieces = [Buffer.alloc(16, 'A'), Buffer.alloc(16, 'B'), Buffer.alloc(5, 'C')];
    expect(mp.ETag).toBe(multipartEtag(pieces));
    expect(mp.Checksum.ChecksumSHA256).toBe(`${sha256(Buffer.concat(pieces.map(sha256))).toString('base64')}-3`);
    expect(mp.ObjectSize).toBe(37);
    expect(mp.ObjectParts).toMatchObject({ TotalPartsCount: 3, PartNumberMarker: 1, NextPartNumberMarker: 2, MaxParts: 1, IsTruncated: true });
    expect(mp.ObjectParts.Parts).toEqual([{ PartNumber: 2, Size: 16, ChecksumSHA256: sha256(pieces[1]!).toString('base64') }]);
    expect(copy.ChecksumSHA1).toBe(createHash('sha1').update(body).digest('base64'));
    expect(missing).toBe('NoSuchKey');
  });
});
