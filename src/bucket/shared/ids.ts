import { randomBytes } from 'node:crypto';

/** Random bytes drawn from the system's generator a few KiB at a time, not one call per id. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = POOL_BYTES;

/** `count` fresh bytes of the cryptographic generator, never handed out twice; a view to read at once, not to keep. */
function randomId(count: number): Buffer {
  if (used + count > pool.byteLength) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  used += count;
  return pool.subarray(used - count, used);
}

/** Random and unique per upload of a key. */
export const newVersion = () => randomId(16).toString('hex');

/** Opaque, unguessable: an upload id is the only handle on an upload. */
export const newUploadId = () => randomId(24).toString('base64url');
