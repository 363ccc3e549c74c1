/**
 * Customer-provided keys (SSE-C): the binding's `ssecKey`, read as the platform reads it, and what a
 * stored object or upload keeps of it instead of the key (see `CustomerKeyCheck`). Keys are derived
 * from the customer's, each with its own label and the stored random salt: one checks a key given
 * later (the HMAC kept), one encrypts the bytes, one makes the etags (a keyed digest of the plain
 * bytes: the same bytes under the same upload's key give the same part etag, as S3's do, and no
 * hash of the plain bytes is ever kept). Neither the key nor a derived key is stored, logged or
 * returned.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CustomerKeyCheck } from './engine';
import { customerKeyRefusal, type BucketAction } from './errors';
import { describe } from './keys';

/** AES-256 keys are 32 bytes. */
export const CUSTOMER_KEY_BYTES = 32;
const SALT_BYTES = 16;

/**
 * The `ssecKey` option: 64 lower-case hex characters, or 32 bytes (an ArrayBuffer or a view).
 * The errors are the platform's own (plain `Error`s, as workerd throws them).
 */
export function parseCustomerKey(value: unknown): Buffer | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    if (!/^[0-9a-f]+$/.test(value)) throw new Error('SSE-C Key has invalid format');
    if (value.length !== CUSTOMER_KEY_BYTES * 2) throw new Error('SSE-C Key must be 32 bytes in length');
    return Buffer.from(value, 'hex');
  }
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const bytes =
      value instanceof ArrayBuffer
        ? Buffer.from(value)
        : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    if (bytes.byteLength !== CUSTOMER_KEY_BYTES) throw new Error('SSE-C Key must be 32 bytes in length');
    // A copy: the caller may reuse its buffer while the key is still needed.
    return Buffer.from(bytes);
  }
  throw new TypeError(`ssecKey must be a hex string or an ArrayBuffer, not ${describe(value)}.`);
}

const derived = (key: Buffer, label: string, salt: Buffer) => createHmac('sha256', key).update(label).update(salt).digest();

/** The MD5 of a key, base64: how S3 clients name a key, and what answers echo. */
export const customerKeyMd5 = (key: Buffer) => createHash('md5').update(key).digest('base64');

/** What is kept of a new key: its MD5, a random salt, and the HMAC that checks it. */
export function newKeyCheck(key: Buffer): CustomerKeyCheck {
  const salt = randomBytes(SALT_BYTES);
  return {
    keyMd5: customerKeyMd5(key),
    salt: salt.toString('base64'),
    hmac: derived(key, 'sse-c key check', salt).toString('base64'),
  };
}

/** Whether `key` is the key `check` was made from (compared in constant time). */
export function keyMatches(check: CustomerKeyCheck, key: Buffer): boolean {
  const expected = Buffer.from(check.hmac, 'base64');
  const actual = derived(key, 'sse-c key check', Buffer.from(check.salt, 'base64'));
  return expected.byteLength === actual.byteLength && timingSafeEqual(expected, actual);
}

/** The keys a segment is sealed with: derived from the customer's and the stored salt. */
export interface SegmentKeys {
  /** AES-256: encrypts the bytes. */
  data: Buffer;
  /** HMAC-SHA256: the etag. */
  etag: Buffer;
}

export function segmentKeysOf(check: CustomerKeyCheck, key: Buffer): SegmentKeys {
  const salt = Buffer.from(check.salt, 'base64');
  return { data: derived(key, 'sse-c data key', salt), etag: derived(key, 'sse-c etag key', salt) };
}

/**
 * Checks the key a read or a write names against what the object or upload keeps: an encrypted
 * one needs its key, a plain one takes none. Returns the derived keys when there is one.
 */
export function requireMatchingKey(
  check: CustomerKeyCheck | undefined,
  key: Buffer | undefined,
  action: BucketAction,
  subject: 'object' | 'upload',
): SegmentKeys | undefined {
  if (check === undefined) {
    if (key !== undefined) throw customerKeyRefusal(action, subject === 'object' ? 'not-encrypted' : 'upload-not-encrypted');
    return undefined;
  }
  if (key === undefined) throw customerKeyRefusal(action, subject === 'object' ? 'missing' : 'upload-missing');
  if (!keyMatches(check, key)) throw customerKeyRefusal(action, 'mismatch');
  return segmentKeysOf(check, key);
}
