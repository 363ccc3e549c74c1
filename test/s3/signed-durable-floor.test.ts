// The S3 wire bench's floor (scripts/bench/support/signed-durable-floor.ts) is only a floor if it
// keeps the checks the targets keep: every presigned URL's signature and expiry verified, and a
// PUT's object written durably into the bucket's own database, where the runtime reads it back.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterEach, describe, expect, it } from 'vitest';
import { signedDurableFloor } from '../../scripts/bench/support/signed-durable-floor';
import { BucketCatalogue } from '../../src/bucket';

const credentials = { accessKeyId: 'FLOORKEY', secretAccessKey: 'floor-secret' };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function floorServer() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 's3-floor-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const catalogue = new BucketCatalogue(dataDir);
  await catalogue.create('bench');
  const bucket = await catalogue.open('bench');
  cleanups.push(() => catalogue.close());
  const floor = signedDurableFloor(path.join(dataDir, 'buckets', 'bench'), credentials);
  cleanups.push(() => floor.close());
  floor.server.listen(0, '127.0.0.1');
  await new Promise((resolve) => floor.server.once('listening', resolve));
  cleanups.push(() => new Promise<void>((resolve) => floor.server.close(() => resolve())));
  const endpoint = `http://127.0.0.1:${(floor.server.address() as AddressInfo).port}`;
  const signer = (signedBy = credentials) =>
    new S3Client({ endpoint, region: 'auto', forcePathStyle: true, credentials: signedBy });
  const presign = (method: 'PUT' | 'GET', key: string, options: { signedBy?: typeof credentials; signingDate?: Date } = {}) => {
    const s3 = signer(options.signedBy);
    const command = method === 'PUT' ? new PutObjectCommand({ Bucket: 'bench', Key: key }) : new GetObjectCommand({ Bucket: 'bench', Key: key });
    return getSignedUrl(s3, command, { expiresIn: 60, ...(options.signingDate ? { signingDate: options.signingDate } : {}) });
  };
  return { bucket, presign };
}

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

describe('the S3 wire bench floor', () => {
  it('stores a presigned PUT durably where the runtime reads it, and answers a presigned GET with it', async () => {
    const { bucket, presign } = await floorServer();
    const body = randomBytes(1024);
    const put = await fetch(await presign('PUT', 'dir/one key'), { method: 'PUT', body });
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBe(`"${md5(body)}"`);

    const stored = await bucket.get('dir/one key');
    expect(stored?.etag).toBe(md5(body));
    expect(Buffer.from(await stored!.arrayBuffer()).equals(body)).toBe(true);

    const got = await fetch(await presign('GET', 'dir/one key'));
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(`"${md5(body)}"`);
    expect(Buffer.from(await got.arrayBuffer()).equals(body)).toBe(true);

    // A second PUT replaces the object and its body.
    const again = randomBytes(1024);
    expect((await fetch(await presign('PUT', 'dir/one key'), { method: 'PUT', body: again })).status).toBe(200);
    expect(Buffer.from(await (await bucket.get('dir/one key'))!.arrayBuffer()).equals(again)).toBe(true);
  });

  it('refuses a URL with a wrong signature, another key, or past its expiry, and stores nothing', async () => {
    const { bucket, presign } = await floorServer();
    const body = randomBytes(16);
    const good = await presign('PUT', 'refused');
    const tampered = good.replace(/X-Amz-Signature=([0-9a-f])/, (_, digit: string) => `X-Amz-Signature=${digit === '0' ? '1' : '0'}`);
    expect(tampered).not.toBe(good);
    const otherSecret = await presign('PUT', 'refused', { signedBy: { ...credentials, secretAccessKey: 'another-secret' } });
    const otherKey = await presign('PUT', 'refused', { signedBy: { ...credentials, accessKeyId: 'OTHERKEY' } });
    const expired = await presign('PUT', 'refused', { signingDate: new Date(Date.now() - 120_000) });
    const otherPath = good.replace('/bench/refused?', '/bench/elsewhere?');
    for (const url of [tampered, otherSecret, otherKey, expired, otherPath]) {
      expect((await fetch(url, { method: 'PUT', body })).status).toBe(403);
    }
    expect((await fetch(good.split('?')[0]!, { method: 'PUT', body })).status).toBe(403);
    expect(await bucket.head('refused')).toBeNull();
    expect(await bucket.head('elsewhere')).toBeNull();
    expect((await fetch(await presign('GET', 'refused'))).status).toBe(404);
  });
});
