// Request headers S3 defines that the endpoint does not serve: each is refused as the platform
// refuses it (NotImplemented 501, "Header '<name>' with value '<value>' not implemented";
// InvalidStorageClass 400 for a class that is not the platform's), one test per header and
// operation, and a refused write stores nothing. Values that say what is true here are taken
// (a private ACL, STANDARD, AES256 at rest as the platform keeps every object).
import { CreateBucketCommand, CreateMultipartUploadCommand, PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startS3Server, type RunningS3Server } from '../../src/s3';
import { rawFetch } from './raw-requests';
import { ACCESS_KEY_ID, MIN_PART, s3Failure, SECRET } from './support';

const Bucket = 'screened';
let server: RunningS3Server;
let s3: S3Client;
let dataDir: string;
let uploadId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 's3-headers-'));
  server = await startS3Server({
    accessKeys: new Map([[ACCESS_KEY_ID, SECRET]]),
    dataDir,
    port: 0,
    runtime: { minimumPartSize: MIN_PART },
    report: (line) => {
      throw new Error(`unexpected internal error: ${line}`);
    },
  });
  s3 = new S3Client({ endpoint: server.url, region: 'auto', forcePathStyle: true, credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET } });
  await s3.send(new CreateBucketCommand({ Bucket }));
  await s3.send(new PutObjectCommand({ Bucket, Key: 'existing', Body: 'here' }));
  uploadId = (await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'multi' }))).UploadId!;
});
afterAll(async () => {
  s3?.destroy();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const send = (method: string, target: string, headers: Record<string, string>, body?: string) =>
  rawFetch(server.url, { method, target, headers, ...(body === undefined ? {} : { body }) });

/** The operations as raw requests; `{key}` is a fresh key per test, so a refused write is seen storing nothing. */
const OPERATIONS = {
  PutObject: { method: 'PUT', target: `/${Bucket}/{key}`, body: 'body' },
  CopyObject: { method: 'PUT', target: `/${Bucket}/{key}`, headers: { 'x-amz-copy-source': `${Bucket}/existing` } },
  CreateMultipartUpload: { method: 'POST', target: `/${Bucket}/{key}?uploads` },
  UploadPart: { method: 'PUT', target: `/${Bucket}/multi?partNumber=1&uploadId={upload}`, body: 'part' },
  UploadPartCopy: { method: 'PUT', target: `/${Bucket}/multi?partNumber=2&uploadId={upload}`, headers: { 'x-amz-copy-source': `${Bucket}/existing` } },
  AbortMultipartUpload: { method: 'DELETE', target: `/${Bucket}/multi?uploadId={upload}` },
  CompleteMultipartUpload: { method: 'POST', target: `/${Bucket}/multi?uploadId={upload}`, body: '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>x</ETag></Part></CompleteMultipartUpload>' },
  DeleteObject: { method: 'DELETE', target: `/${Bucket}/existing` },
  DeleteObjects: { method: 'POST', target: `/${Bucket}?delete`, body: '<Delete><Object><Key>existing</Key></Object></Delete>' },
  GetObject: { method: 'GET', target: `/${Bucket}/existing` },
  HeadObject: { method: 'HEAD', target: `/${Bucket}/existing` },
  GetObjectAttributes: { method: 'GET', target: `/${Bucket}/existing?attributes`, headers: { 'x-amz-object-attributes': 'ETag' } },
  ListObjectsV2: { method: 'GET', target: `/${Bucket}?list-type=2` },
  ListObjects: { method: 'GET', target: `/${Bucket}` },
  ListParts: { method: 'GET', target: `/${Bucket}/multi?uploadId={upload}` },
  ListMultipartUploads: { method: 'GET', target: `/${Bucket}?uploads` },
  HeadBucket: { method: 'HEAD', target: `/${Bucket}` },
  GetBucketLocation: { method: 'GET', target: `/${Bucket}?location` },
  CreateBucket: { method: 'PUT', target: '/{key}' },
  DeleteBucket: { method: 'DELETE', target: `/${Bucket}` },
  GetBucketCors: { method: 'GET', target: `/${Bucket}?cors` },
  PutBucketLifecycleConfiguration: {
    method: 'PUT',
    target: `/${Bucket}?lifecycle`,
    body: '<LifecycleConfiguration><Rule><ID>r</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>9</Days></Expiration></Rule></LifecycleConfiguration>',
  },
  GetBucketLifecycleConfiguration: { method: 'GET', target: `/${Bucket}?lifecycle` },
  GetBucketEncryption: { method: 'GET', target: `/${Bucket}?encryption` },
} as const;
type Operation = keyof typeof OPERATIONS;

let fresh = 0;
async function request(operation: Operation, header: Record<string, string>) {
  const spec = OPERATIONS[operation];
  const key = `fresh-${process.pid}-${++fresh}`;
  const target = spec.target.replace('{key}', key).replace('{upload}', uploadId);
  const { response, text } = await send(spec.method, target, { ...('headers' in spec ? spec.headers : {}), ...header }, 'body' in spec ? spec.body : undefined);
  return { response, text, key };
}

const refusals: [Operation, string, string][] = [
  ...(['PutObject', 'CopyObject', 'CreateMultipartUpload'] as const).flatMap((operation): [Operation, string, string][] => [
    [operation, 'x-amz-tagging', 'team=blue'],
    [operation, 'x-amz-acl', 'public-read'],
    [operation, 'x-amz-grant-full-control', 'id="someone"'],
    [operation, 'x-amz-grant-read', 'uri="http://acs.amazonaws.com/groups/global/AllUsers"'],
    [operation, 'x-amz-grant-read-acp', 'id="someone"'],
    [operation, 'x-amz-grant-write-acp', 'id="someone"'],
    [operation, 'x-amz-website-redirect-location', '/elsewhere'],
    [operation, 'x-amz-object-lock-mode', 'GOVERNANCE'],
    [operation, 'x-amz-object-lock-retain-until-date', '2030-01-01T00:00:00Z'],
    [operation, 'x-amz-object-lock-legal-hold', 'ON'],
    [operation, 'x-amz-server-side-encryption', 'aws:kms'],
    [operation, 'x-amz-server-side-encryption-aws-kms-key-id', 'arn:aws:kms:us-east-1:123456789012:key/x'],
    [operation, 'x-amz-server-side-encryption-context', 'eyJhIjoiYiJ9'],
    [operation, 'x-amz-server-side-encryption-bucket-key-enabled', 'true'],
    [operation, 'x-amz-storage-class', 'STANDARD_IA'],
    [operation, 'x-amz-expected-bucket-owner', '123456789012'],
  ]),
  ['PutObject', 'x-amz-write-offset-bytes', '0'],
  ['CopyObject', 'x-amz-tagging-directive', 'REPLACE'],
  ['CopyObject', 'x-amz-source-expected-bucket-owner', '123456789012'],
  ['UploadPart', 'x-amz-server-side-encryption', 'AES256'],
  ['UploadPart', 'x-amz-expected-bucket-owner', '123456789012'],
  ['UploadPartCopy', 'x-amz-source-expected-bucket-owner', '123456789012'],
  ['UploadPartCopy', 'x-amz-expected-bucket-owner', '123456789012'],
  ['AbortMultipartUpload', 'x-amz-if-match-initiated-time', 'Wed, 01 Jan 2025 00:00:00 GMT'],
  ['AbortMultipartUpload', 'x-amz-expected-bucket-owner', '123456789012'],
  ['CompleteMultipartUpload', 'x-amz-expected-bucket-owner', '123456789012'],
  ['DeleteObject', 'x-amz-mfa', 'arn:aws:iam::123456789012:mfa/u 123456'],
  ['DeleteObject', 'x-amz-bypass-governance-retention', 'true'],
  ['DeleteObject', 'If-Match', '"d41d8cd98f00b204e9800998ecf8427e"'],
  ['DeleteObject', 'x-amz-if-match-last-modified-time', 'Wed, 01 Jan 2025 00:00:00 GMT'],
  ['DeleteObject', 'x-amz-if-match-size', '4'],
  ['DeleteObject', 'x-amz-expected-bucket-owner', '123456789012'],
  ['DeleteObjects', 'x-amz-mfa', 'arn:aws:iam::123456789012:mfa/u 123456'],
  ['DeleteObjects', 'x-amz-bypass-governance-retention', 'true'],
  ['DeleteObjects', 'x-amz-expected-bucket-owner', '123456789012'],
  ['CreateBucket', 'x-amz-acl', 'public-read'],
  ['CreateBucket', 'x-amz-grant-read', 'id="someone"'],
  ['CreateBucket', 'x-amz-grant-write', 'id="someone"'],
  ['CreateBucket', 'x-amz-grant-full-control', 'id="someone"'],
  ['CreateBucket', 'x-amz-grant-read-acp', 'id="someone"'],
  ['CreateBucket', 'x-amz-grant-write-acp', 'id="someone"'],
  ['CreateBucket', 'x-amz-bucket-object-lock-enabled', 'true'],
  ['CreateBucket', 'x-amz-object-ownership', 'ObjectWriter'],
  ['CreateBucket', 'x-amz-expected-bucket-owner', '123456789012'],
  ['PutBucketLifecycleConfiguration', 'x-amz-transition-default-minimum-object-size', 'all_storage_classes_128K'],
  ...(
    [
      'GetObject',
      'HeadObject',
      'GetObjectAttributes',
      'ListObjects',
      'ListObjectsV2',
      'ListParts',
      'ListMultipartUploads',
      'HeadBucket',
      'GetBucketLocation',
      'DeleteBucket',
      'GetBucketCors',
      'GetBucketLifecycleConfiguration',
      'PutBucketLifecycleConfiguration',
      'GetBucketEncryption',
    ] as const
  ).map((operation): [Operation, string, string] => [operation, 'x-amz-expected-bucket-owner', '123456789012']),
];

describe('refused as the platform refuses them', () => {
  test.each(refusals)('%s with %s is NotImplemented (501), naming the header, and changes nothing', async (operation, name, value) => {
    const { response, text, key } = await request(operation, { [name]: value });
    expect(response.status).toBe(501);
    if (operation !== 'HeadObject' && operation !== 'HeadBucket') {
      expect(text).toContain('<Code>NotImplemented</Code>');
      expect(text).toContain(`<Message>Header &apos;${name.toLowerCase()}&apos; with value &apos;${value.replace(/"/g, '&quot;')}&apos; not implemented</Message>`);
    }
    // Nothing stored, deleted, aborted or made.
    expect((await send('HEAD', `/${Bucket}/${key}`, {})).response.status).toBe(404);
    expect((await send('HEAD', `/${Bucket}/existing`, {})).response.status).toBe(200);
    expect((await send('GET', `/${Bucket}/multi?uploadId=${uploadId}`, {})).response.status).toBe(200);
    expect((await send('HEAD', `/${key}`, {})).response.status).toBe(404);
  });

  test.each(['PutObject', 'CopyObject', 'CreateMultipartUpload'] as const)(
    '%s with a storage class that is not the platform\'s is InvalidStorageClass (400)',
    async (operation) => {
      const { response, text, key } = await request(operation, { 'x-amz-storage-class': 'GLACIER' });
      expect(response.status).toBe(400);
      expect(text).toContain('<Code>InvalidStorageClass</Code>');
      expect(text).toContain('x-amz-storage-class names GLACIER');
      expect((await send('HEAD', `/${Bucket}/${key}`, {})).response.status).toBe(404);
    },
  );

  test('the AWS SDK sees the refusal of what it sends for Tagging, ACL and storage class', async () => {
    for (const extra of [{ Tagging: 'a=b' }, { ACL: 'public-read' as const }, { StorageClass: 'GLACIER' as const }]) {
      const failure = await s3Failure(s3.send(new PutObjectCommand({ Bucket, Key: 'sdk', Body: 'x', ...extra })));
      expect(failure.name).toBe('StorageClass' in extra ? 'InvalidStorageClass' : 'NotImplemented');
    }
    expect(await s3Failure(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'sdk', ServerSideEncryption: 'aws:kms' })))).toMatchObject({
      name: 'NotImplemented',
      status: 501,
    });
  });
});

describe('values that say what is true here are taken', () => {
  test.each([
    ['PutObject', 'x-amz-acl', 'private'],
    ['PutObject', 'x-amz-acl', 'bucket-owner-full-control'],
    ['PutObject', 'x-amz-storage-class', 'STANDARD'],
    ['PutObject', 'x-amz-server-side-encryption', 'AES256'],
    ['PutObject', 'x-amz-request-payer', 'requester'],
    ['CreateMultipartUpload', 'x-amz-acl', 'private'],
    ['CopyObject', 'x-amz-storage-class', 'STANDARD'],
    ['CreateBucket', 'x-amz-acl', 'private'],
    ['CreateBucket', 'x-amz-bucket-object-lock-enabled', 'false'],
    ['CreateBucket', 'x-amz-object-ownership', 'BucketOwnerEnforced'],
    ['GetObject', 'x-amz-request-payer', 'requester'],
  ] as const)('%s with %s: %s', async (operation, name, value) => {
    const { response } = await request(operation, { [name]: value });
    expect(response.status).toBe(200);
  });
});

describe('x-amz-mp-object-size on CompleteMultipartUpload', () => {
  test('is checked against the parts named: another size is InvalidRequest and the upload stays open', async () => {
    const Key = 'sized';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const part = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: 'twelve bytes' }));
    const document = `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.ETag}</ETag></Part></CompleteMultipartUpload>`;
    const wrong = await send('POST', `/${Bucket}/${Key}?uploadId=${UploadId}`, { 'x-amz-mp-object-size': '13' }, document);
    expect(wrong.response.status).toBe(400);
    expect(wrong.text).toContain('<Code>InvalidRequest</Code>');
    expect(wrong.text).toContain('x-amz-mp-object-size: 13');
    const bad = await send('POST', `/${Bucket}/${Key}?uploadId=${UploadId}`, { 'x-amz-mp-object-size': 'twelve' }, document);
    expect(bad.text).toContain('<Code>InvalidArgument</Code>');
    const right = await send('POST', `/${Bucket}/${Key}?uploadId=${UploadId}`, { 'x-amz-mp-object-size': '12' }, document);
    expect(right.response.status).toBe(200);
  });
});
