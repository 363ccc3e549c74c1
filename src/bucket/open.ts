import { BucketRuntime } from './bucket';
import type { Bucket } from './contract';
import { DiskEngine } from './disk-engine';
import type { StorageEngine } from './engine';
import type { OwnerCalls } from './owner-calls';
import { runtimeSettings, type RuntimeOptions } from './settings';

/** Where a bucket keeps its objects: a directory (on-disk engine) or a given engine. */
export type BucketStorage = { directory: string } | { engine: StorageEngine };

/** A bucket ready for a worker, plus the means to release what it holds. */
export interface OpenBucket extends Bucket, OwnerCalls {
  /**
   * Waits for pending writes, then releases the storage when this bucket opened it (a
   * directory). An engine passed in stays open: its owner closes it.
   */
  close(): Promise<void>;
}

/**
 * Opens a bucket. With `{ directory }` objects live on disk (SQLite metadata, bodies as files);
 * several buckets, in this process or others, may open the same directory and stay strongly
 * consistent. With `{ engine }` (e.g. `new MemoryEngine()`) they live wherever it keeps them.
 */
export function createBucket(options: BucketStorage & RuntimeOptions): OpenBucket {
  const settings = runtimeSettings(options);
  const owned = 'directory' in options;
  const engine = owned ? new DiskEngine(requireDirectory(options.directory)) : options.engine;
  return new OpenBucketRuntime(engine, settings, owned);
}

function requireDirectory(directory: unknown): string {
  if (typeof directory !== 'string' || directory === '') {
    throw new TypeError('directory must be the path of the directory that holds the bucket.');
  }
  return directory;
}

class OpenBucketRuntime extends BucketRuntime implements OpenBucket {
  readonly #engine: StorageEngine;
  readonly #owned: boolean;

  constructor(engine: StorageEngine, settings: ReturnType<typeof runtimeSettings>, owned: boolean) {
    super(engine, settings);
    this.#engine = engine;
    this.#owned = owned;
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#engine.close();
  }
}
