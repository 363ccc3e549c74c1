/** S3's checksum headers and elements: `x-amz-checksum-<algorithm>`, `Checksum<ALGORITHM>`. */
import {
  CHECKSUM_ALGORITHMS,
  type OpenBucket,
  type StoredObject,
  isChecksumAlgorithm,
  uploadChecksumType,
  type ChecksumAlgorithm,
  type ChecksumType,
  type UploadChecksum,
} from '../bucket';
import { invalidRequest } from './errors';
import type { ReadHeaders } from './request-headers';

export const checksumHeader = (algorithm: ChecksumAlgorithm) => `x-amz-checksum-${algorithm}`;
export const checksumElement = (algorithm: ChecksumAlgorithm) => `Checksum${algorithm.toUpperCase()}`;

/** Checksums are answered on reads only when asked for, as S3 does. */
export const checksumModeEnabled = (headers: ReadHeaders) => headers.get('x-amz-checksum-mode')?.toUpperCase() === 'ENABLED';

/** The headers answering a checksum. */
export function checksumResponseHeaders(checksum: {
  algorithm: ChecksumAlgorithm;
  type: ChecksumType;
  value: string;
}): Record<string, string> {
  return { [checksumHeader(checksum.algorithm)]: checksum.value, 'x-amz-checksum-type': checksum.type };
}

/**
 * The checksum a CreateMultipartUpload asks for (`x-amz-checksum-algorithm`, `x-amz-checksum-type`),
 * refused as S3 refuses what it does not serve.
 */
export function uploadChecksumOf(headers: ReadHeaders): UploadChecksum | undefined {
  const named = headers.get('x-amz-checksum-algorithm');
  const type = headers.get('x-amz-checksum-type')?.toUpperCase();
  if (named === null) {
    if (type !== undefined) throw invalidRequest('x-amz-checksum-type needs x-amz-checksum-algorithm.');
    return undefined;
  }
  const algorithm = requestedAlgorithmOf(headers)!;
  const chosen = uploadChecksumType(algorithm, type);
  if (chosen !== 'FULL_OBJECT' && chosen !== 'COMPOSITE') throw invalidRequest(`${chosen[0]!.toUpperCase()}${chosen.slice(1)}.`);
  return { algorithm, type: chosen };
}

/** The `x-amz-checksum-<algorithm>` value a request names, for `algorithm` (a CompleteMultipartUpload's). */
export function namedChecksum(headers: ReadHeaders, algorithm: ChecksumAlgorithm): string | undefined {
  return headers.get(checksumHeader(algorithm))?.trim();
}

/** A checksum as S3 answers it: algorithm, type and base64 value (a COMPOSITE one ends in `-<parts>`). */
export interface AnsweredChecksum {
  algorithm: ChecksumAlgorithm;
  type: ChecksumType;
  value: string;
}

/**
 * The checksum an object answers: the S3 checksum kept with it, else a SHA-256 or SHA-1 the
 * binding kept (a worker's `put` may give one), which is of the whole object.
 */
export function objectChecksum(bucket: OpenBucket, object: StoredObject): AnsweredChecksum | undefined {
  const flexible = bucket.checksumOf(object);
  if (flexible) return { algorithm: flexible.algorithm, type: flexible.type, value: flexible.value };
  const { sha256, sha1 } = object.checksums;
  if (sha256) return { algorithm: 'sha256', type: 'FULL_OBJECT', value: Buffer.from(sha256).toString('base64') };
  if (sha1) return { algorithm: 'sha1', type: 'FULL_OBJECT', value: Buffer.from(sha1).toString('base64') };
  return undefined;
}

/** The checksum elements of a response document (CopyObjectResult, GetObjectAttributes' Checksum). */
export function checksumElements(checksum: AnsweredChecksum | undefined): Record<string, string> {
  return checksum ? { [checksumElement(checksum.algorithm)]: checksum.value, ChecksumType: checksum.type } : {};
}

/**
 * The algorithm a CopyObject names in `x-amz-checksum-algorithm`, or undefined; one S3 does not
 * have is InvalidRequest (400).
 */
export function requestedAlgorithmOf(headers: ReadHeaders): ChecksumAlgorithm | undefined {
  const named = headers.get('x-amz-checksum-algorithm');
  if (named === null) return undefined;
  const algorithm = named.trim().toLowerCase();
  if (!isChecksumAlgorithm(algorithm)) {
    throw invalidRequest(
      `Checksum algorithm ${named} is not supported; use one of ${CHECKSUM_ALGORITHMS.map((a) => a.toUpperCase()).join(', ')}.`,
    );
  }
  return algorithm;
}
