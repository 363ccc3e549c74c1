// The checksums S3 clients name (x-amz-checksum-*): kept with single puts and multipart uploads,
// answered with x-amz-checksum-mode, composite or full-object as S3 makes them. Expected values
// come from elsewhere: node:crypto, node:zlib, the AWS SDK's own CRC64NVME of a single put, and
// the algorithms' published check values.
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
  type ChecksumAlgorithm,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { beforeEach, describe, expect, test } from 'vitest';
import { combineCrcs } from '../../src/bucket/checksums/crc';
import { newDigest } from '../../src/bucket';
import { rawFetch } from './raw-requests';
import { MIN_PART, s3Failure, startEndpoint, type Endpoint } from './support';

let endpoint: Endpoint;
let s3: S3Client;
const Bucket = 'sums';
beforeEach(async () => {
  endpoint = await startEndpoint();
  s3 = endpoint.client();
  await s3.send(new CreateBucketCommand({ Bucket }));
});

const send = (method: string, target: string, body?: string, headers?: Record<string, string>) =>
  rawFetch(endpoint.server.url, { method, target, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });

const parts = [Buffer.alloc(MIN_PART, 'A'), Buffer.alloc(MIN_PART, 'B'), Buffer.from('the last part')];
const whole = Buffer.concat(parts);
const sha = (algorithm: string, data: Buffer) => createHash(algorithm).update(data).digest();
const crc32Of = (data: Buffer) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data));
  return out.toString('base64');
};

type Field = `Checksum${'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256'}`;

/** A multipart upload of `parts` under `algorithm`, each part's checksum computed by the SDK. */
async function uploadWithChecksum(Key: string, algorithm: ChecksumAlgorithm, type?: 'FULL_OBJECT' | 'COMPOSITE') {
  const created = await s3.send(
    new CreateMultipartUploadCommand({ Bucket, Key, ChecksumAlgorithm: algorithm, ...(type ? { ChecksumType: type } : {}) }),
  );
  const field = `Checksum${algorithm}` as Field;
  const uploaded: ({ PartNumber: number; ETag: string } & Partial<Record<Field, string>>)[] = [];
  for (const [index, Body] of parts.entries()) {
    const answer = await s3.send(
      new UploadPartCommand({ Bucket, Key, UploadId: created.UploadId!, PartNumber: index + 1, Body, ChecksumAlgorithm: algorithm }),
    );
    uploaded.push({ PartNumber: index + 1, ETag: answer.ETag!, [field]: answer[field]! });
  }
  return { created, uploaded, field, UploadId: created.UploadId! };
}

describe('single puts', () => {
  test.each(['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const)(
    'a %s the SDK sends is kept and answered on HEAD and GET with checksum mode only',
    async (algorithm) => {
      const field = `Checksum${algorithm}` as Field;
      const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'one', Body: whole, ChecksumAlgorithm: algorithm }));
      expect(put[field]).toMatch(/^[A-Za-z0-9+/]+=*$/);
      if (algorithm === 'SHA256') expect(put[field]).toBe(sha('sha256', whole).toString('base64'));
      if (algorithm === 'SHA1') expect(put[field]).toBe(sha('sha1', whole).toString('base64'));
      if (algorithm === 'CRC32') expect(put[field]).toBe(crc32Of(whole));
      expect((await s3.send(new HeadObjectCommand({ Bucket, Key: 'one' })))[field]).toBeUndefined();
      const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'one', ChecksumMode: 'ENABLED' }));
      expect(head[field]).toBe(put[field]);
      expect(head.ChecksumType).toBe('FULL_OBJECT');
      const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'one', ChecksumMode: 'ENABLED' }));
      expect(got[field]).toBe(put[field]);
      expect(await got.Body!.transformToString()).toBe(whole.toString());
    },
  );

  test('a checksum that does not match the body is BadDigest and stores nothing', async () => {
    const { response, text } = await send('PUT', `/${Bucket}/bad`, 'body', { 'x-amz-checksum-crc64nvme': 'AAAAAAAAAAA=' });
    expect(response.status).toBe(400);
    expect(text).toContain('<Code>BadDigest</Code>');
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket, Key: 'bad' })))).toMatchObject({ status: 404 });
  });
});

describe('multipart uploads', () => {
  test('SHA256 is COMPOSITE: the digest of the parts\' digests, -<parts>, on completion, HEAD and part reads', async () => {
    const { created, uploaded, UploadId } = await uploadWithChecksum('composite', 'SHA256');
    expect(created.ChecksumAlgorithm).toBe('SHA256');
    expect(created.ChecksumType).toBe('COMPOSITE');
    const partSums = parts.map((p) => sha('sha256', p));
    expect(uploaded.map((p) => p.ChecksumSHA256)).toEqual(partSums.map((s) => s.toString('base64')));
    const expected = `${sha('sha256', Buffer.concat(partSums)).toString('base64')}-3`;

    const listed = await s3.send(new ListPartsCommand({ Bucket, Key: 'composite', UploadId }));
    expect(listed.ChecksumAlgorithm).toBe('SHA256');
    expect(listed.Parts!.map((p) => p.ChecksumSHA256)).toEqual(uploaded.map((p) => p.ChecksumSHA256));
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket }));
    expect(uploads.Uploads![0]!.ChecksumAlgorithm).toBe('SHA256');

    const done = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket, Key: 'composite', UploadId, ChecksumSHA256: expected, MultipartUpload: { Parts: uploaded } }),
    );
    expect(done.ChecksumSHA256).toBe(expected);
    expect(done.ChecksumType).toBe('COMPOSITE');
    expect((await s3.send(new HeadObjectCommand({ Bucket, Key: 'composite' }))).ChecksumSHA256).toBeUndefined();
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'composite', ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumSHA256).toBe(expected);
    expect(head.ChecksumType).toBe('COMPOSITE');
    const second = await s3.send(new GetObjectCommand({ Bucket, Key: 'composite', PartNumber: 2, ChecksumMode: 'ENABLED' }));
    expect(second.ChecksumSHA256).toBe(partSums[1]!.toString('base64'));
    expect(await second.Body!.transformToString()).toBe(parts[1]!.toString());
    // A repeated completion (a retry after a lost answer) answers the same checksum.
    const again = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket, Key: 'composite', UploadId, MultipartUpload: { Parts: uploaded } }),
    );
    expect(again.ChecksumSHA256).toBe(expected);
  });

  test('SHA1 is COMPOSITE too', async () => {
    const { uploaded, UploadId } = await uploadWithChecksum('sha1', 'SHA1');
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'sha1', UploadId, MultipartUpload: { Parts: uploaded } }));
    expect(done.ChecksumSHA1).toBe(`${sha('sha1', Buffer.concat(parts.map((p) => sha('sha1', p)))).toString('base64')}-3`);
  });

  test('CRC64NVME is FULL_OBJECT: the CRC of every byte, as a single put of the same bytes has it', async () => {
    const single = await s3.send(new PutObjectCommand({ Bucket, Key: 'single', Body: whole, ChecksumAlgorithm: 'CRC64NVME' }));
    const { created, uploaded, UploadId } = await uploadWithChecksum('full', 'CRC64NVME');
    expect(created.ChecksumType).toBe('FULL_OBJECT');
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: 'full',
        UploadId,
        ChecksumCRC64NVME: single.ChecksumCRC64NVME,
        ChecksumType: 'FULL_OBJECT',
        MultipartUpload: { Parts: uploaded },
      }),
    );
    expect(done.ChecksumCRC64NVME).toBe(single.ChecksumCRC64NVME);
    expect(done.ChecksumType).toBe('FULL_OBJECT');
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'full', ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumCRC64NVME).toBe(single.ChecksumCRC64NVME);
    expect(head.ChecksumType).toBe('FULL_OBJECT');
  });

  test.each(['CRC32', 'CRC32C'] as const)('%s is COMPOSITE unless FULL_OBJECT is asked for', async (algorithm) => {
    const field = `Checksum${algorithm}` as Field;
    const single = await s3.send(new PutObjectCommand({ Bucket, Key: 'single', Body: whole, ChecksumAlgorithm: algorithm }));
    const full = await uploadWithChecksum('full', algorithm, 'FULL_OBJECT');
    const fullDone = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket, Key: 'full', UploadId: full.UploadId, MultipartUpload: { Parts: full.uploaded } }),
    );
    expect(fullDone[field]).toBe(single[field]);
    expect(fullDone.ChecksumType).toBe('FULL_OBJECT');

    const composite = await uploadWithChecksum('composite', algorithm);
    expect(composite.created.ChecksumType).toBe('COMPOSITE');
    const compositeDone = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket, Key: 'composite', UploadId: composite.UploadId, MultipartUpload: { Parts: composite.uploaded } }),
    );
    const digest = newDigest(algorithm.toLowerCase() as 'crc32' | 'crc32c');
    digest.update(Buffer.concat(composite.uploaded.map((p) => Buffer.from(p[field]!, 'base64'))));
    expect(compositeDone[field]).toBe(`${digest.base64()}-3`);
    if (algorithm === 'CRC32') {
      expect(compositeDone[field]).toBe(`${crc32Of(Buffer.concat(parts.map((p) => Buffer.from(crc32Of(p), 'base64'))))}-3`);
    }
  });

  test('a whole-object checksum on completion that differs from the parts\' is BadDigest; the upload stays open', async () => {
    const { uploaded, UploadId } = await uploadWithChecksum('bad', 'SHA256');
    const failure = await s3Failure(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key: 'bad',
          UploadId,
          ChecksumSHA256: `${sha('sha256', Buffer.from('other')).toString('base64')}-3`,
          MultipartUpload: { Parts: uploaded },
        }),
      ),
    );
    expect(failure).toMatchObject({ name: 'BadDigest', status: 400 });
    expect(failure.message).toContain('did not match the one calculated from the parts');
    const listed = await s3.send(new ListPartsCommand({ Bucket, Key: 'bad', UploadId }));
    expect(listed.Parts).toHaveLength(3);
  });

  test('a part sent without a checksum gets one of the upload\'s algorithm, computed over its bytes, as S3 computes it', async () => {
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'computed', ChecksumAlgorithm: 'SHA256' }));
    const UploadId = created.UploadId!;
    const etags: string[] = [];
    for (const [index, part] of parts.entries()) {
      // Raw requests: the SDK would send a checksum of its own.
      const answer = await send('PUT', `/${Bucket}/computed?partNumber=${index + 1}&uploadId=${UploadId}`, part.toString());
      expect(answer.response.status).toBe(200);
      // The answer echoes only what the client sent.
      expect(answer.response.headers.get('x-amz-checksum-sha256')).toBeNull();
      etags.push(answer.response.headers.get('etag')!);
    }
    const partSums = parts.map((p) => sha('sha256', p).toString('base64'));
    const listed = await s3.send(new ListPartsCommand({ Bucket, Key: 'computed', UploadId }));
    expect(listed.Parts!.map((p) => p.ChecksumSHA256)).toEqual(partSums);
    // COMPOSITE: the completion must name each part's checksum, as S3 requires.
    const bare = etags.map((ETag, index) => ({ PartNumber: index + 1, ETag }));
    const missing = await s3Failure(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'computed', UploadId, MultipartUpload: { Parts: bare } })),
    );
    expect(missing).toMatchObject({ name: 'InvalidRequest', status: 400 });
    expect(missing.message).toBe(
      'The upload was created using a SHA256 checksum. The complete request must include the checksum for each part. It was missing for part 1 in the request.',
    );
    const named = bare.map((part, index) => ({ ...part, ChecksumSHA256: partSums[index]! }));
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'computed', UploadId, MultipartUpload: { Parts: named } }));
    expect(done.ChecksumSHA256).toBe(`${sha('sha256', Buffer.concat(parts.map((p) => sha('sha256', p)))).toString('base64')}-3`);
  });

  test('a FULL_OBJECT upload needs no part checksums on completion, and parts sent without one get theirs computed', async () => {
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'full', ChecksumAlgorithm: 'CRC32', ChecksumType: 'FULL_OBJECT' }));
    const UploadId = created.UploadId!;
    const named = [];
    for (const [index, part] of parts.entries()) {
      const answer = await send('PUT', `/${Bucket}/full?partNumber=${index + 1}&uploadId=${UploadId}`, part.toString());
      named.push({ PartNumber: index + 1, ETag: answer.response.headers.get('etag')! });
    }
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'full', UploadId, MultipartUpload: { Parts: named } }));
    expect(done.ChecksumCRC32).toBe(crc32Of(whole));
    expect(done.ChecksumType).toBe('FULL_OBJECT');
  });

  test('a part checksum named on completion must be the one the part was uploaded with (InvalidPart); the upload stays open', async () => {
    const { uploaded, UploadId } = await uploadWithChecksum('named', 'CRC32C');
    const swapped = uploaded.map((part, index) => ({ ...part, ChecksumCRC32C: uploaded[(index + 1) % 3]!.ChecksumCRC32C! }));
    const wrong = await s3Failure(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'named', UploadId, MultipartUpload: { Parts: swapped } })),
    );
    expect(wrong).toMatchObject({ name: 'InvalidPart', status: 400 });
    expect(wrong.message).toContain(`Part 1 was named with CRC32C checksum ${uploaded[1]!.ChecksumCRC32C}; it was uploaded with CRC32C ${uploaded[0]!.ChecksumCRC32C}.`);
    // A checksum of another algorithm than the part has is no match either.
    const other = uploaded.map(({ PartNumber, ETag, ChecksumCRC32C }) => ({ PartNumber, ETag, ChecksumCRC32C, ChecksumCRC32: crc32Of(parts[PartNumber - 1]!) }));
    const otherFailure = await s3Failure(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'named', UploadId, MultipartUpload: { Parts: other } })),
    );
    expect(otherFailure).toMatchObject({ name: 'InvalidPart', status: 400 });
    expect(otherFailure.message).toContain('Part 1 was named with CRC32 checksum');
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'named', UploadId, MultipartUpload: { Parts: uploaded } }));
    expect(done.ChecksumType).toBe('COMPOSITE');
  });

  test('parts of an upload with a checksum must be numbered from 1 without gaps (InvalidPartOrder), as S3 rules', async () => {
    const { uploaded, UploadId } = await uploadWithChecksum('gaps', 'SHA1');
    const failure = await s3Failure(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'gaps', UploadId, MultipartUpload: { Parts: [uploaded[0]!, uploaded[2]!] } })),
    );
    expect(failure).toMatchObject({ name: 'InvalidPartOrder', status: 400 });
    expect(failure.message).toContain('part 3 comes where part 2 should');
  });

  test('a part checksum of another algorithm than the upload\'s is refused before the part is stored', async () => {
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'mismatch', ChecksumAlgorithm: 'SHA256' }));
    const failure = await s3Failure(
      s3.send(new UploadPartCommand({ Bucket, Key: 'mismatch', UploadId: created.UploadId!, PartNumber: 1, Body: parts[0], ChecksumAlgorithm: 'CRC32' })),
    );
    expect(failure).toMatchObject({ name: 'InvalidRequest', status: 400 });
    expect(failure.message).toBe('Checksum Type mismatch occurred, expected checksum Type: sha256, actual checksum Type: crc32');
    const listed = await s3.send(new ListPartsCommand({ Bucket, Key: 'mismatch', UploadId: created.UploadId! }));
    expect(listed.Parts ?? []).toHaveLength(0);
  });

  test('bad algorithm and type pairs are refused on CreateMultipartUpload', async () => {
    const refused = async (headers: Record<string, string>) => {
      const { response, text } = await send('POST', `/${Bucket}/k?uploads`, '', headers);
      expect(response.status).toBe(400);
      expect(text).toContain('<Code>InvalidRequest</Code>');
      return /<Message>(.*)<\/Message>/.exec(text)![1];
    };
    expect(await refused({ 'x-amz-checksum-algorithm': 'MD5' })).toContain('Checksum algorithm MD5 is not supported');
    expect(await refused({ 'x-amz-checksum-algorithm': 'SHA256', 'x-amz-checksum-type': 'FULL_OBJECT' })).toContain(
      'COMPOSITE only',
    );
    expect(await refused({ 'x-amz-checksum-algorithm': 'CRC64NVME', 'x-amz-checksum-type': 'COMPOSITE' })).toContain(
      'FULL_OBJECT only',
    );
    expect(await refused({ 'x-amz-checksum-type': 'COMPOSITE' })).toContain('needs x-amz-checksum-algorithm');
  });
});

describe('combining CRCs', () => {
  // The algorithms' published check values: the CRC of "123456789".
  const CHECK = { crc32: 'cbf43926', crc32c: 'e3069283', crc64nvme: 'ae8b14860a799888' } as const;
  test.each(Object.entries(CHECK))('%s of pieces combines to the check value, however cut', (kind, check) => {
    const text = Buffer.from('123456789');
    for (const cuts of [[9], [4, 5], [1, 1, 7], [0, 9], [3, 3, 3]]) {
      let offset = 0;
      const pieces = cuts.map((length) => {
        const piece = text.subarray(offset, offset + length);
        offset += length;
        const digest = newDigest(kind as 'crc32');
        digest.update(piece);
        return { crc: Buffer.from(digest.base64(), 'base64'), length };
      });
      expect(combineCrcs(kind as 'crc32', pieces).toString('hex')).toBe(check);
    }
  });
});
