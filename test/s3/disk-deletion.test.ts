// A PutObject racing the deletion of its bucket, on disk. The endpoint checks the bucket exists
// when the request arrives, then receives the body into a file of the bucket's directory: a
// deletion by another catalogue meanwhile (another process, as a worker host or `npm run bucket`
// would be) is caught when the object is stored (see test/bucket/disk-deletion.test.ts), and the
// client gets NoSuchBucket, not a 200 for an object no one could read.
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { waitUntil } from '../support/wait';
import { pausedPut, startEndpoint } from './support';

const HALF = 64 * 1024;

test('a PutObject whose bucket is deleted while its body arrives answers 404 NoSuchBucket and stores nothing', async () => {
  const endpoint = await startEndpoint();
  const s3 = endpoint.client();
  await s3.send(new CreateBucketCommand({ Bucket: 'photos' }));
  const { failure: put, resume } = pausedPut(s3, 'photos', 'big.bin', HALF);
  // The endpoint found the bucket and is writing the body's first bytes to a file of its own.
  const staging = join(endpoint.dataDir, 'buckets', 'photos', 'staging');
  const receiving = () => existsSync(staging) && readdirSync(staging).some((dir) => readdirSync(join(staging, dir)).length > 0);
  await waitUntil('the endpoint to receive the body', receiving);
  await endpoint.catalogue.delete('photos');
  resume();
  expect(await put).toEqual({ name: 'NoSuchBucket', status: 404, message: 'The specified bucket does not exist: photos.' });
  expect(readdirSync(join(endpoint.dataDir, 'buckets'))).toEqual([]);
  expect(await endpoint.catalogue.list()).toEqual([]);
});
