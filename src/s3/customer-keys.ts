/**
 * Customer-provided keys (SSE-C) in S3 headers: `x-amz-server-side-encryption-customer-algorithm`,
 * `-key` (base64) and `-key-MD5` (base64), or the same under `x-amz-copy-source-` for the source of
 * a copy. Read and checked here, in the order the platform checks them; the bucket runtime then
 * checks the key against the object or upload. The key is never logged or echoed: answers carry
 * the algorithm and the key's MD5.
 */
import { createHash } from 'node:crypto';
import type { StoredObject } from '../bucket';
import { invalidArgument, invalidRequest, S3Error } from './errors';
import type { S3Request } from './request';
import type { ReadHeaders } from './request-headers';

const ALGORITHM = 'AES256';
const KEY_BYTES = 32;

export type KeyHeaders = 'x-amz-' | 'x-amz-copy-source-';

const names = (prefix: KeyHeaders) => ({
  algorithm: `${prefix}server-side-encryption-customer-algorithm`,
  key: `${prefix}server-side-encryption-customer-key`,
  md5: `${prefix}server-side-encryption-customer-key-md5`,
});

const MUST_PROVIDE = 'Requests specifying Server Side Encryption with Customer provided keys must provide';

/**
 * The customer key a request names under `prefix`, as 32 bytes, or undefined when it names none.
 * An incomplete set of headers, another algorithm, a key that is not 32 bytes of base64, an MD5
 * that is not the key's, a key together with another kind of server-side encryption, and a key
 * sent over plain HTTP from another machine are refused.
 */
export function customerKeyOf(request: S3Request, prefix: KeyHeaders = 'x-amz-'): Buffer | undefined {
  const { headers } = request;
  const name = names(prefix);
  const algorithm = headers.get(name.algorithm);
  const text = headers.get(name.key);
  const md5 = headers.get(name.md5);
  if (algorithm === null && text === null && md5 === null) return undefined;
  if (text === null) throw invalidArgument(`${MUST_PROVIDE} an appropriate secret key.`, name.key, '');
  if (md5 === null) throw invalidArgument(`${MUST_PROVIDE} the client calculated MD5 of the secret key.`, name.md5, '');
  if (algorithm === null) throw invalidArgument(`${MUST_PROVIDE} a valid encryption algorithm.`, name.algorithm, '');
  if (algorithm !== ALGORITHM) {
    throw new S3Error(
      'InvalidEncryptionAlgorithmError',
      400,
      `The encryption request that you specified is not valid. The valid value is ${ALGORITHM}.`,
      { ArgumentName: name.algorithm, ArgumentValue: algorithm },
    );
  }
  const key = strictBase64(text);
  // The key's value is never echoed, not even in an error.
  if (key?.byteLength !== KEY_BYTES) throw invalidArgument('The secret key was invalid for the specified algorithm.', name.key, '');
  if (createHash('md5').update(key).digest('base64') !== md5.trim()) {
    throw invalidArgument('The calculated MD5 hash of the key did not match the hash that was provided.', name.md5, md5);
  }
  if (prefix === 'x-amz-' && headers.has('x-amz-server-side-encryption')) {
    throw invalidArgument(
      'Server Side Encryption with Customer provided key is incompatible with the encryption method specified.',
      'x-amz-server-side-encryption',
      headers.get('x-amz-server-side-encryption')!,
    );
  }
  // S3 takes keys over TLS only; over plain HTTP, this endpoint takes them from this machine only.
  if (!request.secure) {
    throw invalidRequest('Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection.');
  }
  return key;
}

/** Base64 as S3 reads it: padded, nothing but the alphabet (Node's decoder skips what it does not know). */
function strictBase64(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(trimmed)) return undefined;
  return Buffer.from(trimmed, 'base64');
}

/** The headers that tell a client its object is encrypted under its key (on every answer about one). */
export function customerKeyHeaders(object: Pick<StoredObject, 'ssecKeyMd5'>): Record<string, string> {
  return object.ssecKeyMd5 === undefined
    ? {}
    : {
        'x-amz-server-side-encryption-customer-algorithm': ALGORITHM,
        'x-amz-server-side-encryption-customer-key-md5': object.ssecKeyMd5,
      };
}

/** Whether a request names a customer key under `prefix` at all (complete or not). */
export const namesCustomerKey = (headers: ReadHeaders, prefix: KeyHeaders = 'x-amz-') => {
  const name = names(prefix);
  return headers.has(name.algorithm) || headers.has(name.key) || headers.has(name.md5);
};
