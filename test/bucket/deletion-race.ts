// What the deletion-race tests of both engines write (disk-deletion.test.ts, postgres-deletion.test.ts).
import { expect } from 'vitest';
import { BucketError, type OpenBucket } from '../../src/bucket';

/** A body large enough to be received apart from its record (a file on disk, chunks on PostgreSQL). */
export const LARGE = 40 * 1024;

/** Write `i` of a round: mostly small puts, some large ones, some multipart uploads. */
export async function raceWrite(bucket: OpenBucket, i: number): Promise<{ key: string; upload?: string }> {
  const key = `key-${i}`;
  if (i % 8 === 1) return { key, upload: (await bucket.createMultipartUpload(key)).uploadId };
  await bucket.put(key, i % 8 === 0 ? new Uint8Array(LARGE).fill(i) : `value ${i}`);
  return { key };
}

/** `work`, started `ms` from now. */
export const after = <T>(ms: number, work: () => Promise<T>) => new Promise((resolve) => setTimeout(resolve, ms)).then(work);

/** That `promise` fails with the binding's no such bucket (10006) for `action`. */
export async function expectNoSuchBucket(promise: Promise<unknown>, action: string): Promise<void> {
  const error = await promise.then(
    () => new Error(`${action} was acknowledged on a deleted bucket`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BucketError);
  expect((error as BucketError).code).toBe(10006);
  expect((error as BucketError).message).toBe(`${action}: The specified bucket does not exist. (10006)`);
}

/**
 * Puts whose condition needs an object (none here): no such bucket through `stale`, a binding of
 * a deleted bucket; null (412) through `live`, a bucket that exists.
 */
export async function expectConditionalPutsRefused(stale: OpenBucket, live: OpenBucket): Promise<void> {
  await expectNoSuchBucket(stale.put('cat.txt', 'meow', { onlyIf: { etagMatches: 'f0e1d2c3' } }), 'put');
  await expectNoSuchBucket(stale.put('cat.txt', 'meow', { onlyIf: new Headers({ 'if-match': '"f0e1d2c3"' }) }), 'put');
  expect(await live.put('cat.txt', 'meow', { onlyIf: { etagMatches: 'f0e1d2c3' } })).toBeNull();
}
