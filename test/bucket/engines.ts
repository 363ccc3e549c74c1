// One suite, every implementation of the binding: our runtime's three engines and Miniflare's
// bucket (workerd with the platform's simulated bucket, driven from Node through its proxy). Each
// test opens fresh buckets through `open`; ours are closed and removed after (on PostgreSQL, each
// test has a bucket of its own in the file's throwaway database), Miniflare's come from a pool of
// empty buckets made by the file's one Miniflare instance.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test as vitestTest } from 'vitest';
import { MINIFLARE_DIFFERENCES } from './miniflare-differences';
import {
  createBucket,
  declareStreamLength,
  MemoryEngine,
  openPostgresBuckets,
  type OpenBucket,
  type PostgresBuckets,
  type RuntimeOptions,
} from '../../src/bucket';
import { startMiniflare, type RunningMiniflare } from '../support/miniflare';
import { startPostgres, type PostgresCluster } from '../support/postgres';

export type EngineKind = 'memory' | 'disk' | 'postgres' | 'miniflare';

/** Our runtime's engines; suites that need runtime options Miniflare lacks run on these only. */
export const OUR_ENGINES: EngineKind[] = ['memory', 'disk', 'postgres'];
export const EVERY_ENGINE: EngineKind[] = [...OUR_ENGINES, 'miniflare'];

export interface EngineUnderTest {
  kind: EngineKind;
  /** A bucket on fresh, empty storage. Miniflare's takes no options. */
  open(options?: RuntimeOptions): OpenBucket;
  /**
   * Two buckets sharing fresh storage: one engine in memory, one directory on disk, one bucket
   * name through two pools (two instances) on PostgreSQL, one bucket of Miniflare's.
   */
  openTwo(options?: RuntimeOptions): [OpenBucket, OpenBucket];
}

export function temporaryDirectory(cleanup: string[]): string {
  const directory = mkdtempSync(join(tmpdir(), 'bucket-test-'));
  cleanup.push(directory);
  return directory;
}

/** The implementation the running test uses: what expectBucketError may ask of its errors. */
let current: EngineKind = 'memory';
/** The implementation whose tests are being defined: which `test` defines them. */
let defining: EngineKind = 'memory';

export function eachEngine(suite: (engine: EngineUnderTest) => void, kinds: EngineKind[] = EVERY_ENGINE): void {
  describe.each(kinds)('on the %s engine', (kind) => {
    beforeEach(() => {
      current = kind;
    });
    // Vitest collects depth first: the nested describes of this implementation are collected
    // before the next implementation's factory runs.
    defining = kind;
    suite(kind === 'miniflare' ? miniflareEngine() : kind === 'postgres' ? postgresEngine() : ourEngine(kind));
  });
}

/**
 * Vitest's `test` for the contract suites. Under Miniflare a test listed in
 * MINIFLARE_DIFFERENCES is defined as that table says: skipped when Miniflare's proxy cannot
 * make the call at all, expected to fail where the implementations differ (so that the day they
 * agree, the table has to change). Every other test must pass on every implementation.
 */
function definedAs(title: string): typeof vitestTest {
  if (defining !== 'miniflare') return vitestTest;
  const difference = MINIFLARE_DIFFERENCES[title];
  if (!difference) return vitestTest;
  return (difference.kind === 'proxy cannot call' ? vitestTest.skip : vitestTest.fails) as typeof vitestTest;
}

type EachDefiner = (cases: readonly unknown[]) => (title: string, fn: unknown, timeout?: number) => void;

/** Every call to Miniflare's bucket is a round trip through its proxy: slow on a loaded machine. */
const MINIFLARE_TIMEOUT_MS = 90_000;
const timeoutFor = (timeout: number | undefined) => timeout ?? (defining === 'miniflare' ? MINIFLARE_TIMEOUT_MS : undefined);

export const test = Object.assign(
  (title: string, fn: () => unknown, timeout?: number) => definedAs(title)(title, fn as () => Promise<void>, timeoutFor(timeout)),
  {
    each: ((cases: readonly unknown[]) => (title: string, fn: unknown, timeout?: number) =>
      (definedAs(title).each as unknown as EachDefiner)(cases)(title, fn, timeoutFor(timeout))) as unknown as typeof vitestTest.each,
  },
);

function ourEngine(kind: 'memory' | 'disk'): EngineUnderTest {
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
  return {
    kind,
    open: (options) => onStorage(1, options)[0]!,
    openTwo: (options) => onStorage(2, options) as [OpenBucket, OpenBucket],
  };
}

/**
 * The file's PostgreSQL: one throwaway cluster and database, and two instances of the bucket
 * storage on it (two pools, as two processes would have), started when a suite first needs them
 * and stopped when the file ends.
 */
interface PostgresInstances {
  cluster: PostgresCluster;
  instances: [PostgresBuckets, PostgresBuckets];
}
let postgres: Promise<PostgresInstances> | undefined;
afterAll(async () => {
  if (!postgres) return;
  const { cluster, instances } = await postgres;
  postgres = undefined;
  await Promise.all(instances.map((instance) => instance.close()));
  await cluster.stop();
});

async function startPostgresInstances(): Promise<PostgresInstances> {
  const cluster = await startPostgres();
  const url = await cluster.createDatabase('buckets');
  const first = await openPostgresBuckets({ connectionString: url });
  return { cluster, instances: [first, await openPostgresBuckets({ connectionString: url })] };
}

function postgresEngine(): EngineUnderTest {
  let instances: [PostgresBuckets, PostgresBuckets] | undefined;
  let names = 0;
  const opened: OpenBucket[] = [];
  beforeAll(async () => {
    postgres ??= startPostgresInstances();
    ({ instances } = await postgres);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((bucket) => bucket.close()));
  });
  const onStorage = (count: number, options: RuntimeOptions = {}) => {
    const name = `test-${process.pid}-${++names}-${Math.random().toString(36).slice(2, 8)}`;
    return Array.from({ length: count }, (_, i) => {
      const bucket = createBucket({ engine: instances![i]!.storage(name), ...options });
      opened.push(bucket);
      return bucket;
    });
  };
  return {
    kind: 'postgres',
    open: (options) => onStorage(1, options)[0]!,
    openTwo: (options) => onStorage(2, options) as [OpenBucket, OpenBucket],
  };
}

/** Empty buckets a file may open under Miniflare, each bound twice (for openTwo). */
const MINIFLARE_POOL = 40;

function miniflareEngine(): EngineUnderTest {
  let running: RunningMiniflare | undefined;
  const pool: [OpenBucket, OpenBucket][] = [];
  beforeAll(async () => {
    const buckets: Record<string, string> = {};
    for (let i = 0; i < MINIFLARE_POOL; i++) {
      buckets[`FIRST_${i}`] = `bucket-${i}`;
      buckets[`SECOND_${i}`] = `bucket-${i}`;
    }
    running = await startMiniflare([
      { name: 'contract', script: 'export default { fetch() { return new Response(null, { status: 404 }); } }', compatibilityDate: '2026-07-01', buckets },
    ]);
    const proxies = await Promise.all(
      Array.from({ length: MINIFLARE_POOL }, (_, i) =>
        Promise.all(['FIRST', 'SECOND'].map((name) => running!.miniflare.getR2Bucket(`${name}_${i}`))),
      ),
    );
    for (const pair of proxies) pool.push(pair.map(withClose) as [OpenBucket, OpenBucket]);
  });
  afterAll(() => running?.dispose());
  const take = (options: RuntimeOptions | undefined): [OpenBucket, OpenBucket] => {
    if (options !== undefined && Object.keys(options).length > 0) {
      throw new Error(`Miniflare's bucket takes no runtime options (${Object.keys(options).join(', ')}): run this test on OUR_ENGINES.`);
    }
    const pair = pool.shift();
    if (!pair) throw new Error(`the file opens more than ${MINIFLARE_POOL} buckets under Miniflare: raise MINIFLARE_POOL.`);
    return pair;
  };
  return { kind: 'miniflare', open: (options) => take(options)[0], openTwo: (options) => take(options) };
}

/** Miniflare's proxy, typed as our binding; closing it is Miniflare's business, at the end of the file. */
function withClose(proxy: unknown): OpenBucket {
  return Object.assign(proxy as OpenBucket, { close: async () => {} });
}

/**
 * Asserts a rejection with a storage error: an Error whose message (`message`: the exact text, or
 * an asymmetric matcher such as expect.stringContaining) ends with `(<code>)`, as worker code
 * sees it on the platform; from our runtime, a BucketError carrying the code as well.
 */
export async function expectBucketError(promise: Promise<unknown>, code: number, message: unknown): Promise<void> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a storage error ${code}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expect(error).toMatchObject({ message });
  expect((error as Error).message.endsWith(`(${code})`)).toBe(true);
  if (current !== 'miniflare') expect(error).toMatchObject({ name: 'BucketError', code });
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
