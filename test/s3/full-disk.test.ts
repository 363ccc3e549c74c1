// The S3 endpoint and the bucket binding when the data directory's file system is full: writes
// past the limit answer what a client can act on (507 InsufficientStorage, which the AWS SDK does
// not retry; the binding's error saying so), nothing half-written stays behind or shows, reads,
// listings and deletes go on, and writes resume once objects are deleted.
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3ServiceException, CreateBucketCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BucketError, createBucket, StorageFullError } from '../../src/bucket';
import { mountSmallFilesystem } from '../support/small-filesystem';
import { waitUntil } from '../support/wait';
import { startEndpoint } from './support';

const mounted = mountSmallFilesystem(24);
const filesystem = 'unavailable' in mounted ? undefined : mounted;
const skipped = 'unavailable' in mounted ? ` (skipped: this process cannot mount a tmpfs: ${mounted.unavailable})` : '';
afterAll(() => filesystem?.unmount());

const MiB = 1024 * 1024;
const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');

/** Files left in a bucket's directory of staged bodies (one directory per process, emptied after each write). */
function stagedFiles(bucketDirectory: string): string[] {
  const staging = join(bucketDirectory, 'staging');
  return readdirSync(staging).flatMap((process) => readdirSync(join(staging, process)));
}

describe.skipIf(!filesystem)(`a full 24 MiB file system under the data directory${skipped}`, () => {
  it('answers S3 writes past the limit 507 InsufficientStorage, keeps reads, lists and deletes working, and takes writes again once space is freed', { timeout: 60_000 }, async () => {
    const dataDir = join(filesystem!.directory, 's3-data');
    const endpoint = await startEndpoint({}, dataDir);
    const s3 = endpoint.client();
    await s3.send(new CreateBucketCommand({ Bucket: 'fills' }));
    const bodies = new Map<string, Buffer>();
    let refusal: S3ServiceException | undefined;
    for (let i = 0; i < 40 && !refusal; i++) {
      const body = randomBytes(MiB);
      await s3.send(new PutObjectCommand({ Bucket: 'fills', Key: `object-${i}`, Body: body })).then(
        () => bodies.set(`object-${i}`, body),
        (error: unknown) => (refusal = error as S3ServiceException),
      );
    }
    expect(refusal).toBeInstanceOf(S3ServiceException);
    expect({ name: refusal!.name, status: refusal!.$metadata.httpStatusCode, attempts: refusal!.$metadata.attempts, message: refusal!.message }).toEqual({
      name: 'InsufficientStorage',
      status: 507,
      // Not retried: a full disk does not empty itself.
      attempts: 1,
      message: 'The storage is full: no space left on the device (ENOSPC). Nothing was stored; delete objects or free space, then retry.',
    });
    expect(bodies.size).toBeGreaterThan(10);
    const refusedKey = `object-${bodies.size}`;

    // Nothing half-written: no staged file, no body file the metadata does not name, no object.
    const bucketDirectory = join(dataDir, 'buckets', 'fills');
    expect(stagedFiles(bucketDirectory)).toEqual([]);
    expect(readdirSync(join(bucketDirectory, 'blobs'))).toHaveLength(bodies.size);
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'fills', Key: refusedKey })).then(() => undefined, (error: S3ServiceException) => error.name);
    expect(head).toBe('NotFound');

    // Reads and listings while full.
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'fills' }));
    expect((listed.Contents ?? []).map((object) => object.Key).sort()).toEqual([...bodies.keys()].sort());
    for (const [key, body] of [...bodies].slice(0, 3)) {
      const object = await s3.send(new GetObjectCommand({ Bucket: 'fills', Key: key }));
      expect(md5(await object.Body!.transformToByteArray())).toBe(md5(body));
    }

    // Deletes while full free the space, and writes fit again.
    for (const key of [...bodies.keys()].slice(0, 4)) {
      await s3.send(new DeleteObjectCommand({ Bucket: 'fills', Key: key }));
      bodies.delete(key);
    }
    await waitUntil('the deleted bodies to be gone', () => readdirSync(join(bucketDirectory, 'blobs')).length === bodies.size);
    await s3.send(new PutObjectCommand({ Bucket: 'fills', Key: refusedKey, Body: randomBytes(MiB) }));
    for (const key of [...bodies.keys(), refusedKey]) await s3.send(new DeleteObjectCommand({ Bucket: 'fills', Key: key }));
  });

  it('rejects a binding write with an error saying the storage is full, and stores it once there is room', async () => {
    const bucket = createBucket({ directory: join(filesystem!.directory, 'binding') });
    const filler = filesystem!.fill(256 * 1024);
    try {
      const error = await bucket.put('big', randomBytes(MiB)).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(BucketError);
      expect((error as BucketError).message).toBe(
        "put: There is no room left in the bucket's storage (no space left on the device (ENOSPC)); nothing was stored. Delete objects or free space, then retry. (10001)",
      );
      expect((error as BucketError).cause).toBeInstanceOf(StorageFullError);
      expect(await bucket.head('big')).toBeNull();
      expect((await bucket.list()).objects).toEqual([]);
    } finally {
      rmSync(filler);
    }
    expect((await bucket.put('big', randomBytes(MiB))).size).toBe(MiB);
    await bucket.delete('big');
    await bucket.close();
  });
});
