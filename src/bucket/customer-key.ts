/**
 * Customer-provided keys (SSE-C): the binding's `ssecKey`, read as the platform reads it, and what a
 * stored object or upload keeps of it instead of the key (see `CustomerKeyCheck`). Keys are derived
 * from the customer's and the stored random salt, each under its own label: one checks a key given
 * later (the HMAC kept), one encrypts the bytes, one makes the etags (a keyed digest of the plain
 * bytes: the same bytes under the same upload's key give the same part etag, as S3's do, and no
 * hash of the plain bytes is ever kept). Neither the key nor a derived key is stored, logged or
 * returned.
 */
import { createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
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

/**
 * The keys derived from a customer's key and a stored salt, in one HMAC-SHA512: the first half
 * checks a key given later (kept, as the salted HMAC), the second encrypts the bytes. Keys go to
 * node:crypto as KeyObjects: handed a Buffer, createHmac and createCipheriv cost several times
 * more (they make a key object of it each time), which a read of a small object would feel.
 */
function derived(secret: KeyObject, salt: Buffer): { check: Buffer; data: KeyObject } {
  const out = createHmac('sha512', secret).update('sse-c keys').update(salt).digest();
  return { check: out.subarray(0, 32), data: createSecretKey(out.subarray(32)) };
}

/** The MD5 of a key, base64: how S3 clients name a key, and what answers echo. */
export const customerKeyMd5 = (key: Buffer) => createHash('md5').update(key).digest('base64');

/**
 * A key for a new object or upload: what is kept of it (its MD5, a random salt, and the HMAC that
 * checks it), and the keys its bytes are sealed with.
 */
export function newCustomerKey(key: Buffer): { check: CustomerKeyCheck; keys: SegmentKeys } {
  const secret = createSecretKey(key);
  const salt = randomBytes(SALT_BYTES);
  const { check, data } = derived(secret, salt);
  return {
    check: { keyMd5: customerKeyMd5(key), salt: salt.toString('base64'), hmac: check.toString('base64') },
    keys: { data, etag: () => etagKey(secret, salt) },
  };
}

const etagKey = (secret: KeyObject, salt: Buffer) => createSecretKey(createHmac('sha256', secret).update('sse-c etag key').update(salt).digest());

/** The keys a segment is sealed or opened with. */
export interface SegmentKeys {
  /** AES-256: encrypts the bytes. */
  data: KeyObject;
  /** HMAC-SHA256 key of the segment's etag (a write's only: made when asked). */
  etag(): KeyObject;
}

/** The keys of `key` under `check`'s salt, when `key` is the key `check` was made from (compared in constant time). */
function keysWhenMatching(check: CustomerKeyCheck, key: Buffer): SegmentKeys | undefined {
  const secret = createSecretKey(key);
  const salt = Buffer.from(check.salt, 'base64');
  const { check: actual, data } = derived(secret, salt);
  const expected = Buffer.from(check.hmac, 'base64');
  if (expected.byteLength !== actual.byteLength || !timingSafeEqual(expected, actual)) return undefined;
  return { data, etag: () => etagKey(secret, salt) };
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
  const keys = keysWhenMatching(check, key);
  if (!keys) throw customerKeyRefusal(action, 'mismatch');
  return keys;
}
