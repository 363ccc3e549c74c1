// Customer-provided keys (SSE-C) through S3, with the AWS SDK v3 (and hand-made requests for what
// the SDK never sends: it fills in the key's MD5 itself), on disk and on PostgreSQL: every
// operation that takes a key, every refusal with S3's code, the bytes at rest encrypted, and the
// rule for plain HTTP (keys from this machine only; over TLS from anywhere).
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openBucketCatalogue, type BucketCatalogue } from '../../src/bucket';
import { startS3Server, type RunningS3Server } from '../../src/s3';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { rawFetch, signedHeaders } from './raw-requests';
import { ACCESS_KEY_ID, MIN_PART, s3Failure, SECRET, startEndpoint } from './support';

const KEY = randomBytes(32);
const OTHER = randomBytes(32);
const md5Of = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');
/** The SDK's parameters for a key (it sends the key base64 and adds the MD5 itself). */
const sse = (key: Buffer) => ({ SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64') });
const copySse = (key: Buffer) => ({ CopySourceSSECustomerAlgorithm: 'AES256', CopySourceSSECustomerKey: key.toString('base64') });
/** The three headers, as a client sends them. */
const keyHeaders = (key: Buffer, prefix = 'x-amz-') => ({
  [`${prefix}server-side-encryption-customer-algorithm`]: 'AES256',
  [`${prefix}server-side-encryption-customer-key`]: key.toString('base64'),
  [`${prefix}server-side-encryption-customer-key-md5`]: md5Of(key),
});
const text = async (body: { transformToString(): Promise<string> } | undefined) => body!.transformToString();
const bytes = async (body: { transformToByteArray(): Promise<Uint8Array> } | undefined) => Buffer.from(await body!.transformToByteArray());

/** A plain-text marker that must never reach the disk or the database as it is. */
const marker = () => `plain-text-marker-${randomBytes(12).toString('hex')}`;

let cluster: PostgresCluster | undefined;
afterAll(() => cluster?.stop());

describe.each(['disk', 'postgres'] as const)('on %s', (engine) => {
  // One endpoint for the file's tests of this engine, each test on keys of its own.
  const endpoint = {} as { server: RunningS3Server; dataDir: string; catalogue: BucketCatalogue };
  let s3: S3Client;
  let databaseUrl: string | undefined;
  const Bucket = 'secrets';
  beforeAll(async () => {
    if (engine === 'postgres') {
      cluster ??= await startPostgres();
      databaseUrl = await cluster.createDatabase();
    }
    endpoint.dataDir = mkdtempSync(join(tmpdir(), 's3-sse-c-'));
    const where = { dataDir: endpoint.dataDir, databaseUrl, runtime: { minimumPartSize: MIN_PART } };
    endpoint.server = await startS3Server({
      accessKeys: new Map([[ACCESS_KEY_ID, SECRET]]),
      port: 0,
      report: (line) => {
        throw new Error(`unexpected internal error: ${line}`);
      },
      ...where,
    });
    endpoint.catalogue = await openBucketCatalogue({ ...where, defaults: where.runtime });
    s3 = new S3Client({ endpoint: endpoint.server.url, region: 'auto', forcePathStyle: true, credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET } });
    await s3.send(new CreateBucketCommand({ Bucket }));
  }, 60_000);
  afterAll(async () => {
    s3?.destroy();
    await endpoint.catalogue?.close();
    await endpoint.server?.close();
    rmSync(endpoint.dataDir, { recursive: true, force: true });
  });

  const send = (method: string, target: string, headers: Record<string, string>, body?: string) =>
    rawFetch(endpoint.server.url, { method, target, headers, ...(body === undefined ? {} : { body }) });

  /** Whether `needle` is anywhere in what the engine stores. */
  async function storedAnywhere(needle: string): Promise<boolean> {
    if (engine === 'postgres') {
      const rows = await cluster!.query<{ found: boolean }>(
        databaseUrl!,
        `select exists (select 1 from bucket_storage.chunks where position($1::bytea in bytes) > 0)
             or exists (select 1 from bucket_storage.objects where position($1::bytea in small_body) > 0) as found`,
        [Buffer.from(needle)],
      );
      return rows[0]!.found;
    }
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
    return files(endpoint.dataDir).some((file) => readFileSync(file).includes(needle));
  }

  test('PutObject, GetObject and HeadObject with the key; the answers echo the algorithm and the key MD5', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'one.txt', Body: 'secret words', ContentType: 'text/plain', ...sse(KEY) }));
    expect(put).toMatchObject({ SSECustomerAlgorithm: 'AES256', SSECustomerKeyMD5: md5Of(KEY) });
    expect(put.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(put.ETag).not.toBe(`"${createHash('md5').update('secret words').digest('hex')}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'one.txt', ...sse(KEY) }));
    expect(await text(got.Body)).toBe('secret words');
    expect(got).toMatchObject({ ETag: put.ETag, ContentType: 'text/plain', SSECustomerAlgorithm: 'AES256', SSECustomerKeyMD5: md5Of(KEY) });
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'one.txt', ...sse(KEY) }));
    expect(head).toMatchObject({ ContentLength: 12, ETag: put.ETag, SSECustomerAlgorithm: 'AES256', SSECustomerKeyMD5: md5Of(KEY) });
    // Listing needs no key: an object's size and etag are not encrypted.
    const listed = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'one.txt' }));
    expect(listed.Contents?.map((object) => [object.Key, object.Size, object.ETag])).toEqual([['one.txt', 12, put.ETag]]);
  });

  test('GetObject and HeadObject without the key, with another key, and with a key for a plain object: 400', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'two.txt', Body: 'more secret words', ...sse(KEY) }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'plain.txt', Body: 'open words' }));
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'two.txt' })))).toEqual({
      name: 'InvalidRequest',
      status: 400,
      message: 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.',
    });
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'two.txt', ...sse(OTHER) })))).toEqual({
      name: 'InvalidRequest',
      status: 400,
      message: 'The provided encryption parameters did not match the ones used originally.',
    });
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'plain.txt', ...sse(KEY) })))).toEqual({
      name: 'InvalidRequest',
      status: 400,
      message: 'The encryption parameters are not applicable to this object.',
    });
    // HEAD answers no body: the status is what a client sees.
    for (const options of [{}, sse(OTHER)]) {
      expect((await s3Failure(s3.send(new HeadObjectCommand({ Bucket, Key: 'two.txt', ...options })))).status).toBe(400);
    }
    expect((await s3Failure(s3.send(new HeadObjectCommand({ Bucket, Key: 'plain.txt', ...sse(KEY) })))).status).toBe(400);
    const raw = await send('GET', `/${Bucket}/two.txt`, keyHeaders(OTHER));
    expect(raw.response.status).toBe(400);
    expect(raw.text).toContain('<Code>InvalidRequest</Code>');
  });

  test.each([
    ['without the key', { 'x-amz-server-side-encryption-customer-algorithm': 'AES256' }, 'InvalidArgument', 'must provide an appropriate secret key.'],
    [
      'without the key MD5',
      { 'x-amz-server-side-encryption-customer-algorithm': 'AES256', 'x-amz-server-side-encryption-customer-key': KEY.toString('base64') },
      'InvalidArgument',
      'must provide the client calculated MD5 of the secret key.',
    ],
    [
      'without the algorithm',
      { 'x-amz-server-side-encryption-customer-key': KEY.toString('base64'), 'x-amz-server-side-encryption-customer-key-md5': md5Of(KEY) },
      'InvalidArgument',
      'must provide a valid encryption algorithm.',
    ],
    ['with another algorithm', { ...keyHeaders(KEY), 'x-amz-server-side-encryption-customer-algorithm': 'AES128' }, 'InvalidEncryptionAlgorithmError', 'The valid value is AES256.'],
    ['with a wrong key MD5', { ...keyHeaders(KEY), 'x-amz-server-side-encryption-customer-key-md5': 'AAAAAAAAAAAAAAAAAAAAAA==' }, 'InvalidArgument', 'The calculated MD5 hash of the key did not match the hash that was provided.'],
    [
      'with a key of 16 bytes',
      { ...keyHeaders(KEY.subarray(0, 16)) },
      'InvalidArgument',
      'The secret key was invalid for the specified algorithm.',
    ],
    ['with x-amz-server-side-encryption too', { ...keyHeaders(KEY), 'x-amz-server-side-encryption': 'AES256' }, 'InvalidArgument', 'is incompatible with the encryption method specified.'],
  ])('a PutObject %s is refused (400) and stores nothing', async (_name, headers, code, message) => {
    const key = `refused-${randomBytes(4).toString('hex')}`;
    const { response, text: body } = await send('PUT', `/${Bucket}/${key}`, headers as Record<string, string>, 'body');
    expect(response.status).toBe(400);
    expect(body).toContain(`<Code>${code}</Code>`);
    expect(body).toContain(message);
    // The key itself is never echoed, not even in an error.
    expect(body).not.toContain(KEY.toString('base64'));
    expect((await s3Failure(s3.send(new HeadObjectCommand({ Bucket, Key: key })))).status).toBe(404);
  });

  test('range reads decrypt any span; the bytes at rest are encrypted', async () => {
    const plain = marker();
    const data = Buffer.concat([Buffer.from(plain), randomBytes(200_000), Buffer.from(plain)]);
    await s3.send(new PutObjectCommand({ Bucket, Key: 'ranged.bin', Body: data, ...sse(KEY) }));
    for (const [first, last] of [[0, 0], [15, 16], [17, 100_000], [200_000, data.length - 1]] as const) {
      const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'ranged.bin', Range: `bytes=${first}-${last}`, ...sse(KEY) }));
      expect(got.ContentRange).toBe(`bytes ${first}-${last}/${data.length}`);
      expect((await bytes(got.Body)).equals(data.subarray(first, last + 1))).toBe(true);
    }
    expect(await storedAnywhere(plain)).toBe(false);
    // The check has teeth: the same marker stored plain is found.
    const control = marker();
    await s3.send(new PutObjectCommand({ Bucket, Key: 'control.txt', Body: control }));
    expect(await storedAnywhere(control)).toBe(true);
  });

  test('a multipart upload with the key: every part needs it, reads span the parts, partNumber reads, bytes encrypted at rest', async () => {
    const plain = marker();
    const parts = [Buffer.concat([Buffer.from(plain), randomBytes(MIN_PART)]), randomBytes(plain.length + MIN_PART), Buffer.from(`${plain}!`)];
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'multi.bin', ContentType: 'application/x-test', ...sse(KEY) }));
    expect(created).toMatchObject({ SSECustomerAlgorithm: 'AES256', SSECustomerKeyMD5: md5Of(KEY) });
    const UploadId = created.UploadId!;
    const part = (PartNumber: number, extra: object) =>
      s3.send(new UploadPartCommand({ Bucket, Key: 'multi.bin', UploadId, PartNumber, Body: parts[PartNumber - 1], ...extra }));
    expect(await s3Failure(part(1, {}))).toMatchObject({ name: 'InvalidRequest', status: 400, message: expect.stringContaining('Subsequent part requests must include') });
    expect(await s3Failure(part(1, sse(OTHER)))).toMatchObject({ name: 'InvalidRequest', status: 400 });
    const etags = [];
    for (const number of [1, 2, 3]) {
      const answer = await part(number, sse(KEY));
      expect(answer).toMatchObject({ SSECustomerAlgorithm: 'AES256', SSECustomerKeyMD5: md5Of(KEY) });
      etags.push(answer.ETag!);
    }
    // The same bytes sent again under the same key keep their etag.
    expect((await part(1, sse(KEY))).ETag).toBe(etags[0]);
    const MultipartUpload = { Parts: etags.map((ETag, index) => ({ ETag, PartNumber: index + 1 })) };
    expect(await s3Failure(s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'multi.bin', UploadId, MultipartUpload, ...sse(OTHER) })))).toMatchObject({
      name: 'InvalidRequest',
      status: 400,
    });
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'multi.bin', UploadId, MultipartUpload, ...sse(KEY) }));
    // S3's answer to a completion names no key (CompleteMultipartUploadOutput has no SSECustomer* members).
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}-3"$/);
    const whole = Buffer.concat(parts);
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'multi.bin', ...sse(KEY) }));
    expect((await bytes(got.Body)).equals(whole)).toBe(true);
    expect(got.ContentType).toBe('application/x-test');
    const across = parts[0]!.length - 3;
    const ranged = await s3.send(new GetObjectCommand({ Bucket, Key: 'multi.bin', Range: `bytes=${across}-${across + parts[1]!.length + 4}`, ...sse(KEY) }));
    expect((await bytes(ranged.Body)).equals(whole.subarray(across, across + parts[1]!.length + 5))).toBe(true);
    const second = await s3.send(new GetObjectCommand({ Bucket, Key: 'multi.bin', PartNumber: 2, ...sse(KEY) }));
    expect(second).toMatchObject({ PartsCount: 3, SSECustomerKeyMD5: md5Of(KEY) });
    expect((await bytes(second.Body)).equals(parts[1]!)).toBe(true);
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'multi.bin', PartNumber: 2 })))).status).toBe(400);
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'multi.bin', PartNumber: 4 })))).toMatchObject({ name: 'InvalidPart', status: 400 });
    expect(await storedAnywhere(plain)).toBe(false);
  });

  test('an upload created with a checksum algorithm and a key needs the key to complete, as S3 does; without an algorithm it may be left out', async () => {
    for (const withChecksum of [true, false]) {
      const Key = `summed-${withChecksum}.bin`;
      const created = await s3.send(
        new CreateMultipartUploadCommand({ Bucket, Key, ...sse(KEY), ...(withChecksum ? { ChecksumAlgorithm: 'SHA256' as const } : {}) }),
      );
      const UploadId = created.UploadId!;
      const part = await s3.send(
        new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: 'only part', ...sse(KEY), ...(withChecksum ? { ChecksumAlgorithm: 'SHA256' as const } : {}) }),
      );
      const MultipartUpload = { Parts: [{ ETag: part.ETag!, PartNumber: 1, ...(withChecksum ? { ChecksumSHA256: part.ChecksumSHA256! } : {}) }] };
      const complete = (extra: object) => s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload, ...extra }));
      if (withChecksum) {
        expect(await s3Failure(complete({}))).toMatchObject({ name: 'InvalidRequest', status: 400 });
        await complete(sse(KEY));
      } else {
        await complete({});
      }
      expect(await text((await s3.send(new GetObjectCommand({ Bucket, Key, ...sse(KEY) }))).Body)).toBe('only part');
    }
  });

  test('CopyObject reads the source with its copy-source key and writes the copy under its own key, or plain', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'source.txt', Body: 'copied secret', ...sse(KEY) }));
    const CopySource = `${Bucket}/source.txt`;
    expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket, Key: 'copy.txt', CopySource })))).toMatchObject({ name: 'InvalidRequest', status: 400 });
    expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket, Key: 'copy.txt', CopySource, ...copySse(OTHER) })))).toMatchObject({
      name: 'InvalidRequest',
      status: 400,
    });
    const reKeyed = await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy.txt', CopySource, ...copySse(KEY), ...sse(OTHER) }));
    expect(reKeyed).toMatchObject({ SSECustomerAlgorithm: 'AES256', SSECustomerKeyMD5: md5Of(OTHER) });
    expect(await text((await s3.send(new GetObjectCommand({ Bucket, Key: 'copy.txt', ...sse(OTHER) }))).Body)).toBe('copied secret');
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket, Key: 'copy.txt', ...sse(KEY) })))).status).toBe(400);
    await s3.send(new CopyObjectCommand({ Bucket, Key: 'decrypted.txt', CopySource, ...copySse(KEY) }));
    expect(await text((await s3.send(new GetObjectCommand({ Bucket, Key: 'decrypted.txt' }))).Body)).toBe('copied secret');
    // A copy onto itself that changes the key is allowed, as S3 allows it.
    await s3.send(new CopyObjectCommand({ Bucket, Key: 'source.txt', CopySource, ...copySse(KEY), ...sse(OTHER) }));
    expect(await text((await s3.send(new GetObjectCommand({ Bucket, Key: 'source.txt', ...sse(OTHER) }))).Body)).toBe('copied secret');
  });

  test('UploadPartCopy takes the source key and the upload key', async () => {
    const source = randomBytes(MIN_PART + 3);
    await s3.send(new PutObjectCommand({ Bucket, Key: 'part-source.bin', Body: source, ...sse(OTHER) }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'assembled.bin', ...sse(KEY) }));
    const copy = (extra: object) =>
      s3.send(new UploadPartCopyCommand({ Bucket, Key: 'assembled.bin', UploadId, PartNumber: 1, CopySource: `${Bucket}/part-source.bin`, ...extra }));
    expect((await s3Failure(copy(copySse(OTHER)))).status).toBe(400); // the upload's key missing
    expect((await s3Failure(copy(sse(KEY)))).status).toBe(400); // the source's key missing
    const copied = await copy({ ...copySse(OTHER), ...sse(KEY) });
    expect(copied).toMatchObject({ SSECustomerKeyMD5: md5Of(KEY) });
    const last = await s3.send(new UploadPartCommand({ Bucket, Key: 'assembled.bin', UploadId, PartNumber: 2, Body: 'tail', ...sse(KEY) }));
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: 'assembled.bin',
        UploadId,
        MultipartUpload: { Parts: [{ ETag: copied.CopyPartResult!.ETag!, PartNumber: 1 }, { ETag: last.ETag!, PartNumber: 2 }] },
      }),
    );
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'assembled.bin', ...sse(KEY) }));
    expect((await bytes(got.Body)).equals(Buffer.concat([source, Buffer.from('tail')]))).toBe(true);
  });

  test('GetObjectAttributes needs the key of an encrypted object', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'attributes.txt', Body: 'a'.repeat(1000), ...sse(KEY) }));
    const ObjectAttributes = ['ETag', 'ObjectSize', 'StorageClass'] as const;
    expect((await s3Failure(s3.send(new GetObjectAttributesCommand({ Bucket, Key: 'attributes.txt', ObjectAttributes: [...ObjectAttributes] })))).status).toBe(400);
    const answer = await s3.send(new GetObjectAttributesCommand({ Bucket, Key: 'attributes.txt', ObjectAttributes: [...ObjectAttributes], ...sse(KEY) }));
    expect(answer).toMatchObject({ ETag: put.ETag!.replace(/"/g, ''), ObjectSize: 1000, StorageClass: 'STANDARD' });
  });

  test('an object a worker put with the key reads through S3 with the same key, and the other way round', async () => {
    const bucket = await endpoint.catalogue.open(Bucket);
    await bucket.put('from-worker.txt', 'worker secret', { ssecKey: KEY.toString('hex') });
    expect(await text((await s3.send(new GetObjectCommand({ Bucket, Key: 'from-worker.txt', ...sse(KEY) }))).Body)).toBe('worker secret');
    await s3.send(new PutObjectCommand({ Bucket, Key: 'from-s3.txt', Body: 's3 secret', ...sse(KEY) }));
    const read = await bucket.get('from-s3.txt', { ssecKey: new Uint8Array(KEY).buffer });
    expect(await read!.text()).toBe('s3 secret');
    expect(read!.ssecKeyMd5).toBe(md5Of(KEY));
  });
});

/** An address of this machine other networks reach it by (not loopback), if it has one. */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
}

const address = outsideAddress();
const openssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// These need a network address that is not loopback (a sandbox may have none) and, for TLS,
// Debian's openssl to make a throwaway certificate.
describe.skipIf(address === undefined)('keys on the wire (needs a non-loopback address)', () => {
  test('over plain HTTP, a key from another machine is refused (400) and nothing is stored', async () => {
    const endpoint = await startEndpoint({ hostname: '0.0.0.0' });
    await endpoint.client().send(new CreateBucketCommand({ Bucket: 'wire' }));
    const base = `http://${address}:${endpoint.server.port}`;
    const refused = await rawFetch(base, { method: 'PUT', target: '/wire/k', headers: keyHeaders(KEY), body: 'secret' });
    expect(refused.response.status).toBe(400);
    expect(refused.text).toContain('<Code>InvalidRequest</Code>');
    expect(refused.text).toContain('must be made over a secure connection');
    const plain = await rawFetch(base, { method: 'PUT', target: '/wire/k', body: 'not secret' });
    expect(plain.response.status).toBe(200);
  });

  test.skipIf(!openssl)('over TLS (--tls-cert, --tls-key), a key from another machine is taken (needs openssl)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 's3-tls-'));
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=s3-test',
        '-addext', `subjectAltName=IP:${address}`, '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ], { stdio: 'ignore' });
      const cert = readFileSync(join(dir, 'cert.pem'));
      const endpoint = await startEndpoint({ hostname: '0.0.0.0', tls: { cert, key: readFileSync(join(dir, 'key.pem')) } });
      expect(endpoint.server.url).toMatch(/^https:/);
      const base = `https://${address}:${endpoint.server.port}`;
      const request = (method: string, target: string, headers: Record<string, string>, body?: string) => {
        const signed = signedHeaders(base, { method, target, headers, ...(body === undefined ? {} : { body }) });
        return new Promise<{ status: number; text: string }>((resolve, reject) => {
          const sent = https.request(signed.url, { method, headers: signed.headers, ca: cert }, (response) => {
            let text = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode!, text }));
          });
          sent.on('error', reject);
          sent.end(body);
        });
      };
      expect((await request('PUT', '/wire', {})).status).toBe(200);
      expect((await request('PUT', '/wire/k', keyHeaders(KEY), 'secret over TLS')).status).toBe(200);
      expect(await request('GET', '/wire/k', keyHeaders(KEY))).toEqual({ status: 200, text: 'secret over TLS' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
