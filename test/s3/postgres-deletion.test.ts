// A PutObject racing the deletion of its bucket, on PostgreSQL. The endpoint checks the bucket
// exists when the request arrives, then receives the body: a deletion committed meanwhile is
// caught where the object's row is written (the engine refuses a deleted bucket's storage, see
// test/bucket/postgres-deletion.test.ts), and the client gets NoSuchBucket, not a 200 for an
// object no one could read.
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openBucketCatalogue } from '../../src/bucket';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { waitUntil } from '../support/wait';
import { pausedPut, startEndpoint } from './support';

const HALF = 64 * 1024;

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.stop());

test('a PutObject whose bucket is deleted while its body arrives answers 404 NoSuchBucket and stores nothing', async () => {
  const url = await cluster.createDatabase();
  const s3 = (await startEndpoint({ databaseUrl: url })).client();
  await s3.send(new CreateBucketCommand({ Bucket: 'photos' }));
  const other = await openBucketCatalogue({ dataDir: tmpdir(), databaseUrl: url });
  try {
    const { failure: put, resume } = pausedPut(s3, 'photos', 'big.bin', HALF);
    // The endpoint found the bucket and is storing the body's first bytes: it took a body id.
    const receiving = async () => (await cluster.query<{ is_called: boolean }>(url, 'select is_called from bucket_storage.body_ids'))[0]!.is_called;
    await waitUntil('the endpoint to receive the body', receiving);
    await other.delete('photos');
    resume();
    expect(await put).toEqual({ name: 'NoSuchBucket', status: 404, message: 'The specified bucket does not exist: photos.' });
    const rows = await cluster.query<{ objects: string; chunks: string }>(
      url,
      'select (select count(*) from bucket_storage.objects) as objects, (select count(*) from bucket_storage.chunks) as chunks',
    );
    expect(rows).toEqual([{ objects: '0', chunks: '0' }]);
  } finally {
    await other.close();
  }
});
