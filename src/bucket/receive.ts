import { metered, type ByteSource } from './body-source';
import { StreamHasher, type ExpectedHash } from './checksums';
import type { HexChecksums } from './contract';
import type { SegmentSealer } from './ctr-cipher';
import type { StagedBody, StorageEngine } from './engine';
import { entityTooLarge, storing, type BucketAction } from './errors';
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

/**
 * Streams the bytes into the engine, hashing them on the way, and checks an expected hash; `digest`
 * (an S3 checksum the runtime makes itself) sees the bytes too. With a `sealer` (a customer key),
 * the engine receives the bytes encrypted, once every hash has seen them plain.
 */
export async function receive(
  engine: StorageEngine,
  source: ByteSource,
  expected: ExpectedHash | undefined,
  action: BucketAction,
  digest?: Digest,
  sealer?: SegmentSealer,
): Promise<{ staged: StagedBody; checksums: HexChecksums }> {
  const hasher = new StreamHasher(expected);
  const both = digest && {
    update(chunk: Uint8Array) {
      hasher.update(chunk);
      digest.update(chunk);
    },
  };
  // A bucket deleted while its bytes arrive may take the place they were being kept: 10006.
  const chunks = metered(source.chunks, both ?? hasher, MAX_PUT_BYTES, action);
  const staged = await storing(action, () => engine.stage(sealer ? sealer.seal(chunks) : chunks));
  try {
    return { staged, checksums: hasher.finish() };
  } catch (error) {
    await engine.discard(staged);
    throw error;
  }
}
