// One suite, both engines: each test opens fresh buckets through `each`, closed and removed after.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { createBucket, declareStreamLength, MemoryEngine, type OpenBucket, type RuntimeOptions } from '../../src/bucket';

export type EngineKind = 'memory' | 'disk';

export interface EngineUnderTest {
  kind: EngineKind;
  /** A bucket on fresh, empty storage. */
  open(options?: RuntimeOptions): OpenBucket;
  /** Two buckets sharing fresh storage (one engine in memory, one directory on disk). */
  openTwo(options?: RuntimeOptions): [OpenBucket, OpenBucket];
}

export function temporaryDirectory(cleanup: string[]): string {
  const directory = mkdtempSync(join(tmpdir(), 'bucket-test-'));
  cleanup.push(directory);
  return directory;
}

export function eachEngine(suite: (engine: EngineUnderTest) => void): void {
  describe.each(['memory', 'disk'] as const)('on the %s engine', (kind) => {
    const opened: OpenBucket[] = [];
    const directories: string[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((bucket) => bucket.close()));
      for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
    });
    const onStorage = (count: number, options: RuntimeOptions = {}) => {
      const storage = kind === 'memory' ? { engine: new MemoryEngine() } : { directory: temporaryDirectory(directories) };
      return Array.from({ length: count }, () => {
        const bucket = createBucket({ ...storage, ...options });
        opened.push(bucket);
        return bucket;
      });
    };
    suite({
      kind,
      open: (options) => onStorage(1, options)[0]!,
      openTwo: (options) => onStorage(2, options) as [OpenBucket, OpenBucket],
    });
  });
}

/** Asserts a rejection with a BucketError of the given code and exact message. */
/** `message`: the exact text, or an asymmetric matcher such as expect.stringContaining. */
export async function expectBucketError(promise: Promise<unknown>, code: number, message: unknown): Promise<void> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a BucketError ${code}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect(error).toMatchObject({ name: 'BucketError', code, message });
}

export const md5 = (bytes: Uint8Array | string) => createHash('md5').update(bytes).digest('hex');

/**
 * A ReadableStream of the given chunks, recording whether it was cancelled. Its length is known
 * up front, as a request body's is: streams of unknown length are refused.
 */
export function streamOf(chunks: (Uint8Array | string)[]): ReadableStream & { cancelled: boolean } {
  const encoded = chunks.map((chunk) => (typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk));
  const queue = [...encoded];
  const state = { cancelled: false };
  const stream = new ReadableStream({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  declareStreamLength(stream, encoded.reduce((total, chunk) => total + chunk.byteLength, 0));
  return Object.defineProperty(stream, 'cancelled', { get: () => state.cancelled }) as ReadableStream & {
    cancelled: boolean;
  };
}
