// What the deletion-race tests of both engines write (disk-deletion.test.ts, postgres-deletion.test.ts).
import type { OpenBucket } from '../../src/bucket';

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
