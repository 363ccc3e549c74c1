import { metered, type ByteSource } from './body-source';
import { StreamHasher, type ExpectedHash } from './checksums';
import type { HexChecksums } from './contract';
import type { SegmentSealer } from './ctr-cipher';
import type { WriteBody } from './engine';
import { entityTooLarge, type BucketAction } from './errors';
import type { Digest } from './flexible-checksums';
import { MAX_PUT_BYTES } from './limits';

/**
 * Runs a check before any byte is read, so a doomed body is never received. A failed check or
 * an error releases the caller's stream.
 */
export async function checkBeforeReceiving(
  source: ByteSource,
  action: BucketAction,
  check: () => Promise<boolean>,
): Promise<boolean> {
  try {
    if (source.knownSize !== undefined && source.knownSize > MAX_PUT_BYTES) throw entityTooLarge(action);
    if (await check()) return true;
  } catch (error) {
    await source.cancel().catch(() => {});
    throw error;
  }
  await source.cancel().catch(() => {});
  return false;
}

/** A write's bytes on their way to the engine, and their hashes once it has received them all. */
export interface Receiving {
  body: WriteBody;
  /** The binding's hashes of the bytes; throws when an expected hash differs from them. */
  finish(): HexChecksums;
}

/**
 * The bytes as the engine receives them, in the form they came in (in memory, or chunks): hashed
 * on the way, held to the size limit, and, with a `sealer` (a customer key), encrypted once every
 * hash has seen them plain. `digest` (an S3 checksum the runtime makes itself) sees them too.
 */
export function receiving(
  source: ByteSource,
  expected: ExpectedHash | undefined,
  action: BucketAction,
  digest?: Digest,
  sealer?: SegmentSealer,
): Receiving {
  const hasher = new StreamHasher(expected);
  const finish = () => hasher.finish();
  const { bytes } = source;
  if (bytes !== undefined) {
    if (bytes.byteLength > MAX_PUT_BYTES) throw entityTooLarge(action);
    hasher.update(bytes);
    digest?.update(bytes);
    return { body: sealer ? sealer.sealBytes(bytes) : bytes, finish };
  }
  const both = digest && {
    update(chunk: Uint8Array) {
      hasher.update(chunk);
      digest.update(chunk);
    },
  };
  const chunks = metered(source.chunks, both ?? hasher, MAX_PUT_BYTES, action);
  return { body: sealer ? sealer.seal(chunks) : chunks, finish };
}
