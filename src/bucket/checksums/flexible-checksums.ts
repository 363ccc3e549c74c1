/**
 * The checksums S3 clients name (`x-amz-checksum-<algorithm>`, "flexible checksums"), kept with
 * objects and parts as the platform's S3 interface keeps them: CRC32, CRC32C, CRC64NVME, SHA-1 and
 * SHA-256, base64 of the big-endian digest. A multipart object's checksum is made from its parts'
 * either as S3's COMPOSITE (the digest of the parts' digests, `-<parts>` after it) or as a
 * FULL_OBJECT CRC (the CRC of every byte, combined from the parts' CRCs).
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { combineCrcs, Crc64Nvme, crc32c } from './crc';
import { BucketError, ChecksumRuleError, ErrorCode } from '../shared';

export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];
export type ChecksumType = 'FULL_OBJECT' | 'COMPOSITE';

/** The checksum an object keeps: how it was made and its value (a composite one ends in `-<parts>`). */
export interface FlexibleChecksum {
  algorithm: ChecksumAlgorithm;
  type: ChecksumType;
  value: string;
  /** A multipart object's parts' checksums, in order: what `partNumber` reads answer. */
  parts?: string[];
}

/** What a multipart upload was created with. */
export interface UploadChecksum {
  algorithm: ChecksumAlgorithm;
  type: ChecksumType;
}

/**
 * A checksum of a body, known once the body has been received (a trailer comes last); without
 * `value`, the runtime computes it over the bytes it receives (a copy, a part of an upload created
 * with an algorithm whose client sent none).
 */
export interface ChecksumClaim {
  algorithm: ChecksumAlgorithm;
  /** Base64; read after every byte has been received and checked. */
  value?: () => string | undefined;
}

/** The checksums a completion request names for each part, by algorithm (base64). */
export type NamedPartChecksums = ReadonlyMap<number, Partial<Record<ChecksumAlgorithm, string>>>;

export interface Digest {
  update(data: Uint8Array): void;
  /** Base64 of the big-endian digest, as S3 headers carry checksums. */
  base64(): string;
}

function uint32Digest(step: (data: Uint8Array, previous: number) => number): Digest {
  let value = 0;
  return {
    update: (data) => (value = step(data, value)),
    base64: () => {
      const out = Buffer.alloc(4);
      out.writeUInt32BE(value >>> 0);
      return out.toString('base64');
    },
  };
}

export function hashDigest(algorithm: string): Digest {
  const hash = createHash(algorithm);
  return { update: (data) => hash.update(data), base64: () => hash.digest('base64') };
}

const DIGESTS: Record<ChecksumAlgorithm, () => Digest> = {
  crc32: () => uint32Digest((data, previous) => crc32(data, previous)),
  crc32c: () => uint32Digest(crc32c),
  crc64nvme: () => {
    const crc = new Crc64Nvme();
    return { update: (data) => crc.update(data), base64: () => crc.digest().toString('base64') };
  },
  sha1: () => hashDigest('sha1'),
  sha256: () => hashDigest('sha256'),
};

export const isChecksumAlgorithm = (name: string): name is ChecksumAlgorithm =>
  (CHECKSUM_ALGORITHMS as readonly string[]).includes(name);

export function newDigest(algorithm: ChecksumAlgorithm): Digest {
  return DIGESTS[algorithm]();
}

const DIGEST_BYTES: Record<ChecksumAlgorithm, number> = { crc32: 4, crc32c: 4, crc64nvme: 8, sha1: 20, sha256: 32 };

/** Whether `value` is the base64 of a digest of `algorithm`'s size. */
export function isChecksumValue(algorithm: ChecksumAlgorithm, value: string): boolean {
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === DIGEST_BYTES[algorithm] && bytes.toString('base64') === value;
}

/**
 * The type an upload's checksum takes, or why the pair is refused, as S3 rules: CRC64NVME is only
 * FULL_OBJECT, SHA-1 and SHA-256 only COMPOSITE, CRC32 and CRC32C either (COMPOSITE unless asked).
 */
export function uploadChecksumType(algorithm: ChecksumAlgorithm, type: string | undefined): ChecksumType | string {
  const fallback: ChecksumType = algorithm === 'crc64nvme' ? 'FULL_OBJECT' : 'COMPOSITE';
  if (type === undefined) return fallback;
  if (type !== 'FULL_OBJECT' && type !== 'COMPOSITE') return `the checksum type must be FULL_OBJECT or COMPOSITE, not ${type}`;
  if (algorithm.startsWith('sha') && type === 'FULL_OBJECT') {
    return `${algorithm.toUpperCase()} checksums of multipart uploads are COMPOSITE only`;
  }
  if (algorithm === 'crc64nvme' && type === 'COMPOSITE') return 'CRC64NVME checksums of multipart uploads are FULL_OBJECT only';
  return type;
}

const checksumError = (code: number, message: string) => new BucketError('completeMultipartUpload', code, message);

/**
 * The checksum of a multipart object from its parts (in order), each of which must carry one of
 * the upload's algorithm; `expected` (a value the completion request named) must match it.
 */
export function multipartChecksum(
  upload: UploadChecksum,
  parts: { partNumber: number; size: number; checksum?: { algorithm: ChecksumAlgorithm; value: string } }[],
  expected: string | undefined,
): FlexibleChecksum {
  const values = parts.map((part) => {
    if (part.checksum?.algorithm !== upload.algorithm) {
      throw checksumError(
        ErrorCode.badUpload,
        `The upload was created with a ${upload.algorithm.toUpperCase()} checksum; part ${part.partNumber} was uploaded without one (${part.checksum ? `with ${part.checksum.algorithm.toUpperCase()}` : 'no checksum'}).`,
      );
    }
    return part.checksum.value;
  });
  let value: string;
  if (upload.type === 'COMPOSITE') {
    const digest = newDigest(upload.algorithm);
    for (const part of values) digest.update(Buffer.from(part, 'base64'));
    value = `${digest.base64()}-${parts.length}`;
  } else {
    const kind = upload.algorithm as 'crc32' | 'crc32c' | 'crc64nvme';
    value = combineCrcs(
      kind,
      parts.map((part, index) => ({ crc: Buffer.from(values[index]!, 'base64'), length: part.size })),
    ).toString('base64');
  }
  if (expected !== undefined && expected !== value) {
    throw checksumError(
      ErrorCode.badDigest,
      `The ${upload.algorithm.toUpperCase()} checksum you specified (${expected}) did not match the one calculated from the parts (${value}).`,
    );
  }
  return { ...upload, value, parts: values };
}

/**
 * Checks the part checksums a completion request names against those the parts were uploaded
 * with, as S3 does: a named one that differs (or that the part lacks) is InvalidPart. An upload
 * created with an algorithm needs its parts numbered 1, 2, 3, ...
 */
export function checkNamedPartChecksums(
  upload: UploadChecksum | undefined,
  parts: { partNumber: number; checksum?: { algorithm: ChecksumAlgorithm; value: string } }[],
  named: NamedPartChecksums | undefined,
): void {
  for (const [index, part] of parts.entries()) {
    if (upload && part.partNumber !== index + 1) {
      throw new ChecksumRuleError(
        'order',
        `The upload was created with a ${upload.algorithm.toUpperCase()} checksum, so its parts must be numbered from 1 without gaps: part ${part.partNumber} comes where part ${index + 1} should.`,
      );
    }
    const values = named?.get(part.partNumber) ?? {};
    for (const [algorithm, value] of Object.entries(values) as [ChecksumAlgorithm, string][]) {
      if (part.checksum?.algorithm === algorithm && part.checksum.value === value) continue;
      const kept = part.checksum ? `${part.checksum.algorithm.toUpperCase()} ${part.checksum.value}` : 'no checksum';
      throw new BucketError(
        'completeMultipartUpload',
        ErrorCode.invalidPart,
        `One or more of the specified parts could not be found. Part ${part.partNumber} was named with ${algorithm.toUpperCase()} checksum ${value}; it was uploaded with ${kept}.`,
      );
    }
  }
}

/**
 * A COMPOSITE upload's completion must name every part's checksum, as S3 requires (checked after
 * the whole-object checksum, so a wrong one of those is BadDigest first).
 */
export function requirePartChecksums(
  upload: UploadChecksum | undefined,
  parts: { partNumber: number }[],
  named: NamedPartChecksums | undefined,
): void {
  if (upload?.type !== 'COMPOSITE') return;
  const missing = parts.find((part) => named?.get(part.partNumber)?.[upload.algorithm] === undefined);
  if (missing) {
    throw new ChecksumRuleError(
      'missing',
      `The upload was created using a ${upload.algorithm.toUpperCase()} checksum. The complete request must include the checksum for each part. It was missing for part ${missing.partNumber} in the request.`,
    );
  }
}
