// Bucket runtime benchmark: small-object put+get pairs, large-object throughput with peak memory,
// and listing a 100,000-key bucket, for the memory and on-disk engines, each beside a baseline
// measured in the same run on the same file system:
// - small and large: plain files written, flushed (fsync) and read back, same bytes, same
//   concurrency. Large reads are compared like with like: a BYOB reader of the body reusing its
//   buffer against a plain read loop reusing its buffer, and a default reader (fresh chunks)
//   against a plain read loop into fresh buffers;
// - listing: one plain SQLite range query over an index of the same keys.
// Each timed write starts after `sync`, so neither side pays for the other's dirty pages; rounds
// alternate baseline and bucket, and the best round of each counts.
// Then the PostgreSQL engine beside the disk engine, same workloads in the same run (rounds
// alternate the two, the best round of each counts): 1 KiB put+get pairs one at a time and 32 in
// flight, a 64 MiB put and get, every page of a 10,000-key listing, and how much a process grows
// while a 1 GiB object goes up and down (whole, and the read and the put each measured with one
// reused buffer on the caller's side, so that the growth is the engine's). PostgreSQL is a throwaway server on the same file system, with its default
// durability (every commit flushed before it is acknowledged), reached over loopback.
// Run: `npx tsx scripts/bench/bucket.ts` (several minutes; about 5 GiB of free disk).
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBucket, declareStreamLength, MemoryEngine, openPostgresBuckets, type OpenBucket } from '../../src/bucket';
import { runChild } from '../../test/bucket/child-process';
import { startPostgres } from '../../test/support/postgres';
import { pool, rawFilePairs, round, seconds } from './support/measure';
import { ownCpuSeconds, postgresCpuSeconds } from './support/process-cpu';

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = MiB;
/** Reads are quick and cheap to repeat: each round times several and keeps the best. */
const READ_REPEATS = 5;

const SMALL_PAIRS = 20_000;
const SMALL_ROUNDS = 2;
const SMALL_CONCURRENCY = 64;
const LIST_KEYS = 100_000;
const LIST_REPEATS = 30;

const TARGETS = {
  smallPairsPerSecond: 5_000,
  largePutShareOfRawWrite: 0.5,
  largeGetShareOfRawRead: 0.8,
  listPageMs: 20,
};

type EngineKind = 'memory' | 'disk';

interface Workspace {
  root: string;
  open(kind: EngineKind): OpenBucket;
}

function workspace(): Workspace {
  const root = fs.mkdtempSync(join(tmpdir(), 'bucket-bench-'));
  let count = 0;
  return {
    root,
    open: (kind) =>
      kind === 'memory'
        ? createBucket({ engine: new MemoryEngine() })
        : createBucket({ directory: join(root, `bucket-${count++}`) }),
  };
}

/** Flushes every dirty page of the system, so the next timed write starts from a quiet disk. */
const settle = () => execFileSync('sync');
const verdict = (met: boolean) => (met ? 'target met' : 'TARGET MISSED');

/** Tracks the peak resident memory while an operation runs (sampling costs a system call). */
function rssPeak() {
  let peak = process.memoryUsage.rss();
  let calls = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  return {
    sample: () => {
      if (++calls % 8 === 0) peak = Math.max(peak, process.memoryUsage.rss());
    },
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

// ---- small objects -------------------------------------------------------------------------

async function smallBucket(bucket: OpenBucket, payload: Buffer): Promise<number> {
  const start = process.hrtime.bigint();
  await pool(SMALL_PAIRS, SMALL_CONCURRENCY, async (i) => {
    await bucket.put(`small/${i}`, payload);
    await (await bucket.get(`small/${i}`))!.arrayBuffer();
  });
  return SMALL_PAIRS / seconds(start);
}

async function benchSmall(space: Workspace): Promise<void> {
  const payload = randomBytes(KiB);
  console.log(
    `\nSmall objects: ${round(SMALL_PAIRS)} put+get pairs of 1 KiB, ${SMALL_CONCURRENCY} in flight, best of ${SMALL_ROUNDS}`,
  );
  const best = { raw: 0, memory: 0, disk: 0 };
  for (let i = 0; i < SMALL_ROUNDS; i++) {
    const rawDirectory = join(space.root, 'small-raw');
    settle();
    best.raw = Math.max(best.raw, await rawFilePairs(rawDirectory, payload, SMALL_PAIRS, SMALL_CONCURRENCY));
    fs.rmSync(rawDirectory, { recursive: true, force: true });
    for (const kind of ['memory', 'disk'] as const) {
      const bucket = space.open(kind);
      settle();
      best[kind] = Math.max(best[kind], await smallBucket(bucket, payload));
      await bucket.close();
    }
  }
  console.log(`  raw files (write+fsync, read)  ${round(best.raw).padStart(8)} pairs/s`);
  for (const kind of ['memory', 'disk'] as const) {
    const pairs = best[kind];
    const target = kind === 'disk' ? `  ${verdict(pairs >= TARGETS.smallPairsPerSecond)} (>= ${round(TARGETS.smallPairsPerSecond)})` : '';
    console.log(`  ${kind.padEnd(30)} ${round(pairs).padStart(8)} pairs/s  ${round(pairs / best.raw, 2)}x raw${target}`);
  }
}

// ---- large objects -------------------------------------------------------------------------

/** `size` bytes in 1 MiB views of a random pattern (views: the producer allocates nothing). */
function* pattern(source: Buffer, size: number): Generator<Buffer> {
  for (let offset = 0; offset < size; offset += CHUNK) {
    const at = offset % source.length;
    yield source.subarray(at, at + Math.min(CHUNK, size - offset));
  }
}

async function rawWrite(path: string, source: Buffer, size: number): Promise<number> {
  const start = process.hrtime.bigint();
  const file = await fs.promises.open(path, 'w');
  for (const chunk of pattern(source, size)) await file.write(chunk);
  await file.datasync();
  await file.close();
  return size / MiB / seconds(start);
}

/** A plain read loop: into one reused buffer, or into a fresh buffer per chunk. */
async function rawRead(path: string, fresh: boolean): Promise<number> {
  const start = process.hrtime.bigint();
  const file = await fs.promises.open(path, 'r');
  const reused = Buffer.allocUnsafe(CHUNK);
  let total = 0;
  for (let n = 1; n > 0; total += n) {
    n = (await file.read(fresh ? Buffer.allocUnsafe(CHUNK) : reused, 0, CHUNK, null)).bytesRead;
  }
  await file.close();
  return total / MiB / seconds(start);
}

/**
 * MD5 alone over the same bytes. A put cannot be faster: the etag is the MD5 of the whole body, a
 * hash that runs on one core, chunk after chunk.
 */
function md5Only(source: Buffer, size: number): number {
  const start = process.hrtime.bigint();
  const hash = createHash('md5');
  for (const chunk of pattern(source, size)) hash.update(chunk);
  hash.digest();
  return size / MiB / seconds(start);
}

async function bucketPut(bucket: OpenBucket, source: Buffer, size: number) {
  const chunks = pattern(source, size);
  const memory = rssPeak();
  const start = process.hrtime.bigint();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      memory.sample();
      const { done, value } = chunks.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
  // Announced as a request body's Content-Length would be: streams of unknown length are refused.
  declareStreamLength(body, size);
  await bucket.put('large', body);
  return { mbps: size / MiB / seconds(start), peak: memory.stop() };
}

/** Reads the body with a default reader (fresh chunks) or a BYOB reader reusing one buffer. */
async function bucketGet(bucket: OpenBucket, byob: boolean) {
  const memory = rssPeak();
  const start = process.hrtime.bigint();
  const { body } = (await bucket.get('large'))!;
  let total = 0;
  if (byob) {
    const reader = body.getReader({ mode: 'byob' });
    let view = new Uint8Array(CHUNK);
    for (let r = await reader.read(view); !r.done; r = await reader.read(view)) {
      total += r.value.byteLength;
      view = new Uint8Array(r.value.buffer);
      memory.sample();
    }
  } else {
    const reader = body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      total += r.value.byteLength;
      memory.sample();
    }
  }
  return { mbps: total / MiB / seconds(start), peak: memory.stop() };
}

interface Best {
  mbps: number;
  peak: number;
}

const better = (best: Best, next: Best): Best => ({
  mbps: Math.max(best.mbps, next.mbps),
  peak: Math.max(best.peak, next.peak),
});
const none = (): Best => ({ mbps: 0, peak: 0 });

async function benchLarge(space: Workspace, size: number, kinds: EngineKind[], rounds: number): Promise<void> {
  const source = randomBytes(16 * MiB);
  const label = size >= 1024 * MiB ? `${size / 1024 / MiB} GiB` : `${size / MiB} MiB`;
  console.log(`\nLarge object: ${label}, best of ${rounds} round${rounds > 1 ? 's' : ''} (reads: best of ${rounds * READ_REPEATS})`);
  const rawPath = join(space.root, 'large-raw');
  const raw = { write: 0, read: 0, readFresh: 0, md5: 0 };
  const results = new Map(kinds.map((kind) => [kind, { put: none(), get: none(), getByob: none(), before: 0 }]));
  const buckets = new Map(kinds.map((kind) => [kind, space.open(kind)]));
  for (let i = 0; i < rounds; i++) {
    settle();
    raw.write = Math.max(raw.write, await rawWrite(rawPath, source, size));
    for (let r = 0; r < READ_REPEATS; r++) {
      raw.read = Math.max(raw.read, await rawRead(rawPath, false));
      raw.readFresh = Math.max(raw.readFresh, await rawRead(rawPath, true));
    }
    fs.rmSync(rawPath);
    raw.md5 = Math.max(raw.md5, md5Only(source, size));
    for (const kind of kinds) {
      const bucket = buckets.get(kind)!;
      const result = results.get(kind)!;
      result.before = Math.max(result.before, process.memoryUsage.rss());
      settle();
      result.put = better(result.put, await bucketPut(bucket, source, size));
      for (let r = 0; r < READ_REPEATS; r++) {
        result.get = better(result.get, await bucketGet(bucket, false));
        result.getByob = better(result.getByob, await bucketGet(bucket, true));
      }
    }
  }
  const rss = (peak: number, before: number) => `peak RSS ${round(peak / MiB)} MiB (+${round((peak - before) / MiB)})`;
  const share = (value: number, base: number) => `${round((value / base) * 100)}%`;
  console.log(
    `  raw file: write+fsync ${round(raw.write)} MB/s, read ${round(raw.read)} MB/s (reused buffer), ` +
      `${round(raw.readFresh)} MB/s (fresh buffers); MD5 alone ${round(raw.md5)} MB/s`,
  );
  for (const kind of kinds) {
    const { put, get, getByob, before } = results.get(kind)!;
    await buckets.get(kind)!.delete('large');
    await buckets.get(kind)!.close();
    const checked = kind === 'disk';
    const putMet = put.mbps >= TARGETS.largePutShareOfRawWrite * raw.write;
    const getMet = getByob.mbps >= TARGETS.largeGetShareOfRawRead * raw.read;
    console.log(`  ${kind} (RSS ${round(before / MiB)} MiB before)`);
    console.log(
      `    put              ${round(put.mbps).padStart(6)} MB/s  ${share(put.mbps, raw.write).padStart(4)} of raw write   ` +
        `${share(put.mbps, raw.md5)} of MD5 alone   ${rss(put.peak, before)}  ${checked ? verdict(putMet) : ''}`,
    );
    console.log(
      `    get, BYOB reader ${round(getByob.mbps).padStart(6)} MB/s  ${share(getByob.mbps, raw.read).padStart(4)} of raw read    ` +
        `${rss(getByob.peak, before)}  ${checked ? verdict(getMet) : ''}`,
    );
    console.log(
      `    get, chunks      ${round(get.mbps).padStart(6)} MB/s  ${share(get.mbps, raw.readFresh).padStart(4)} of raw read into fresh buffers   ` +
        `${rss(get.peak, before)}`,
    );
  }
}

// ---- listing -------------------------------------------------------------------------------

const listKey = (i: number) => `dir-${String(i % 100).padStart(2, '0')}/file-${String(i).padStart(6, '0')}`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(repeats: number, action: () => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = process.hrtime.bigint();
    await action();
    times.push(seconds(start) * 1000);
  }
  return median(times);
}

async function benchList(space: Workspace): Promise<void> {
  console.log(`\nListing a bucket of ${round(LIST_KEYS)} keys (100 directories of 1,000), median of ${LIST_REPEATS}`);
  const baseline = new Database(join(space.root, 'list-baseline.sqlite'));
  baseline.exec('CREATE TABLE keys (key BLOB PRIMARY KEY) WITHOUT ROWID');
  const insert = baseline.prepare('INSERT INTO keys VALUES (?)');
  baseline.transaction(() => {
    for (let i = 0; i < LIST_KEYS; i++) insert.run(Buffer.from(listKey(i)));
  })();
  const page = baseline.prepare('SELECT key FROM keys WHERE key >= ? ORDER BY key LIMIT 1000');
  const rawMs = await timed(LIST_REPEATS, () => page.all(Buffer.from('dir-42/')).map((row) => String((row as { key: Buffer }).key)));
  baseline.close();
  console.log(`  raw SQLite range query, 1,000 keys        ${round(rawMs, 2).padStart(7)} ms`);

  for (const kind of ['memory', 'disk'] as const) {
    const bucket = space.open(kind);
    const fillStart = process.hrtime.bigint();
    await pool(LIST_KEYS, 256, (i) => bucket.put(listKey(i), '').then(() => {}));
    const fill = seconds(fillStart);
    const withPrefix = await timed(LIST_REPEATS, () => bucket.list({ prefix: 'dir-42/' }));
    const middle = await bucket.list({ limit: 1, startAfter: listKey(50_000) });
    const cursor = middle.truncated ? middle.cursor : undefined;
    const fromCursor = await timed(LIST_REPEATS, () => bucket.list({ cursor }));
    const delimited = await timed(LIST_REPEATS, () => bucket.list({ delimiter: '/' }));
    const check = await bucket.list({ prefix: 'dir-42/' });
    const groups = await bucket.list({ delimiter: '/' });
    let pages = 0;
    const walkStart = process.hrtime.bigint();
    for (let next: string | undefined, first = true; first || next; first = false) {
      const result = await bucket.list({ cursor: next });
      next = result.truncated ? result.cursor : undefined;
      pages++;
    }
    const walk = seconds(walkStart);
    await bucket.close();
    const worst = Math.max(withPrefix, fromCursor);
    console.log(`  ${kind} (filled in ${round(fill, 1)} s)`);
    console.log(
      `    1,000-key page with prefix (${check.objects.length} keys)  ${round(withPrefix, 2).padStart(7)} ms  ${round(withPrefix / rawMs, 1)}x raw`,
    );
    console.log(`    1,000-key page from a cursor mid-bucket   ${round(fromCursor, 2).padStart(7)} ms`);
    console.log(`    delimiter / at the root (${groups.delimitedPrefixes.length} prefixes)    ${round(delimited, 2).padStart(7)} ms`);
    console.log(`    every page, ${pages} pages                     ${round(walk * 1000).padStart(7)} ms`);
    console.log(`    ${verdict(worst < TARGETS.listPageMs)} (1,000-key page < ${TARGETS.listPageMs} ms)`);
  }
}

// ---- PostgreSQL beside disk ----------------------------------------------------------------

const BESIDE = {
  rounds: 3,
  sequentialPairs: 500,
  concurrentPairs: 5_000,
  concurrency: 32,
  largeSize: 64 * MiB,
  readRepeats: 3,
  hugeSize: 1024 * MiB,
  listKeys: 10_000,
  listRepeats: 5,
};

const BESIDE_TARGETS = {
  /** PostgreSQL's 32-in-flight small pairs, as a share of the disk engine's. */
  concurrentShareOfDisk: 0.25,
  largeMBps: 100,
  /** PostgreSQL's time to list every page, as a multiple of the disk engine's. */
  listTimesDisk: 2,
  /** How much a 1 GiB object may grow the process by ("~64 MiB"), read here into one buffer. */
  hugeGrowthBytes: 64 * MiB,
};

const loadAverage = () => loadavg().map((l) => l.toFixed(2)).join(' ');

async function smallPairs(bucket: OpenBucket, count: number, concurrency: number, payload: Buffer): Promise<number> {
  const prefix = randomBytes(4).toString('hex');
  const start = process.hrtime.bigint();
  await pool(count, concurrency, async (i) => {
    await bucket.put(`small/${prefix}/${i}`, payload);
    await (await bucket.get(`small/${prefix}/${i}`))!.arrayBuffer();
  });
  return count / seconds(start);
}

/** Every page of a listing, 1,000 keys each: milliseconds. */
async function listEveryPage(bucket: OpenBucket): Promise<number> {
  const start = process.hrtime.bigint();
  for (let next: string | undefined, first = true; first || next; first = false) {
    const page = await bucket.list({ cursor: next });
    next = page.truncated ? page.cursor : undefined;
  }
  return seconds(start) * 1000;
}

async function benchBeside(space: Workspace): Promise<void> {
  console.log(
    `\nPostgreSQL beside disk: ${availableParallelism()} cores, load average ${loadAverage()} at the start; best of ${BESIDE.rounds} rounds (reads: of ${BESIDE.rounds * BESIDE.readRepeats})`,
  );
  // Durable, with the room docs/buckets-and-workers.md advises for bodies of many MiB.
  const cluster = await startPostgres({ durable: true, settings: ['max_wal_size=4GB', 'shared_buffers=256MB', 'wal_buffers=64MB'] });
  const postgres = await openPostgresBuckets({ connectionString: await cluster.createDatabase('bench') });
  let names = 0;
  const open = (kind: 'disk' | 'postgres') =>
    kind === 'disk' ? space.open('disk') : createBucket({ engine: postgres.storage(`bench-${names++}`) });
  const kinds = ['disk', 'postgres'] as const;
  const best = new Map(
    kinds.map((kind) => [kind, { sequential: 0, concurrent: 0, put: none(), get: none(), list: Infinity, putCpu: Infinity, getCpu: Infinity }]),
  );
  /** CPU milliseconds per MiB an action took, this process's and the server's (0 for disk). */
  const cpuPerMiB = async (kind: 'disk' | 'postgres', action: () => Promise<Best>) => {
    const cpu = () => ownCpuSeconds() + (kind === 'postgres' ? (postgresCpuSeconds(cluster.port) ?? NaN) : 0);
    const before = cpu();
    const result = await action();
    return { result, cpu: ((cpu() - before) * 1000) / (BESIDE.largeSize / MiB) };
  };
  const buckets = new Map(kinds.map((kind) => [kind, open(kind)]));
  const listed = new Map(kinds.map((kind) => [kind, open(kind)]));
  const payload = randomBytes(KiB);
  const source = randomBytes(16 * MiB);
  try {
    for (const kind of kinds) {
      const fillStart = process.hrtime.bigint();
      await pool(BESIDE.listKeys, 64, (i) => listed.get(kind)!.put(listKey(i), '').then(() => {}));
      console.log(`  ${kind}: ${round(BESIDE.listKeys)} keys to list stored in ${round(seconds(fillStart), 1)} s`);
    }
    for (let r = 0; r < BESIDE.rounds; r++) {
      for (const kind of kinds) {
        const bucket = buckets.get(kind)!;
        const result = best.get(kind)!;
        settle();
        result.sequential = Math.max(result.sequential, await smallPairs(bucket, BESIDE.sequentialPairs, 1, payload));
        settle();
        result.concurrent = Math.max(result.concurrent, await smallPairs(bucket, BESIDE.concurrentPairs, BESIDE.concurrency, payload));
        settle();
        const put = await cpuPerMiB(kind, () => bucketPut(bucket, source, BESIDE.largeSize));
        result.put = better(result.put, put.result);
        result.putCpu = Math.min(result.putCpu, put.cpu);
        // Reads are cheap to repeat, as in the large-object section: each round times a few.
        for (let i = 0; i < BESIDE.readRepeats; i++) {
          const get = await cpuPerMiB(kind, () => bucketGet(bucket, false));
          result.get = better(result.get, get.result);
          result.getCpu = Math.min(result.getCpu, get.cpu);
        }
        for (let i = 0; i < BESIDE.listRepeats; i++) result.list = Math.min(result.list, await listEveryPage(listed.get(kind)!));
      }
    }
    // Memory: a 1 GiB object up and down in a fresh process (the bucket tests' child), whose peak
    // over its memory once loaded is the body's doing, and the source's: its 1 MiB chunks are new
    // buffers, which the collector reclaims late, so the source alone is measured too. The read
    // goes into one buffer, so that its growth is the engine's alone.
    const huge = new Map<string, { whole: number; read: number }>();
    for (const kind of kinds) {
      const target = kind === 'disk' ? join(space.root, 'huge') : await cluster.createDatabase('huge');
      const [line] = await runChild('round-trip', target, String(BESIDE.hugeSize));
      const report = JSON.parse(line!) as { sent: string; read: string; baselineRssBytes: number; maxRssBytes: number; readGrowthBytes: number };
      if (report.read !== report.sent) throw new Error(`${kind}: the 1 GiB object read back differs from the one sent`);
      huge.set(kind, { whole: report.maxRssBytes - report.baselineRssBytes, read: report.readGrowthBytes });
      fs.rmSync(join(space.root, 'huge'), { recursive: true, force: true });
    }
    const reusedLine = (await runChild('put-reused', await cluster.createDatabase('reused'), String(BESIDE.hugeSize)))[0];
    const reused = JSON.parse(reusedLine!) as { sent: string; read: string; baselineRssBytes: number; maxRssBytes: number };
    if (reused.read !== reused.sent) throw new Error('postgres: the 1 GiB object put from one buffer read back differs');
    const [sourceLine] = await runChild('source-alone', join(space.root, 'huge'), String(BESIDE.hugeSize));
    const sourceAlone = JSON.parse(sourceLine!) as { baselineRssBytes: number; maxRssBytes: number };
    fs.rmSync(join(space.root, 'huge'), { recursive: true, force: true });
    const disk = best.get('disk')!;
    const pg = best.get('postgres')!;
    const row = (label: string, d: string, p: string, verdictText = '') =>
      console.log(`  ${label.padEnd(34)} ${d.padStart(14)} ${p.padStart(14)}  ${verdictText}`);
    row('', 'disk', 'PostgreSQL');
    row('1 KiB put+get pairs, one at a time', `${round(disk.sequential)}/s`, `${round(pg.sequential)}/s`, `${round((pg.sequential / disk.sequential) * 100)}% of disk`);
    const concurrentShare = pg.concurrent / disk.concurrent;
    row(
      `1 KiB put+get pairs, ${BESIDE.concurrency} in flight`,
      `${round(disk.concurrent)}/s`,
      `${round(pg.concurrent)}/s`,
      `${round(concurrentShare * 100)}% of disk  ${verdict(concurrentShare >= BESIDE_TARGETS.concurrentShareOfDisk)} (>= ${BESIDE_TARGETS.concurrentShareOfDisk * 100}%)`,
    );
    row('64 MiB put', `${round(disk.put.mbps)} MB/s`, `${round(pg.put.mbps)} MB/s`, `${verdict(pg.put.mbps >= BESIDE_TARGETS.largeMBps)} (>= ${BESIDE_TARGETS.largeMBps} MB/s)`);
    row('64 MiB get', `${round(disk.get.mbps)} MB/s`, `${round(pg.get.mbps)} MB/s`, `${verdict(pg.get.mbps >= BESIDE_TARGETS.largeMBps)} (>= ${BESIDE_TARGETS.largeMBps} MB/s)`);
    const cpu = (ms: number) => `${round(ms, 1)} ms/MiB`;
    row('  CPU per MiB, put (all processes)', cpu(disk.putCpu), cpu(pg.putCpu), `PostgreSQL on one free core: ~${round(1000 / pg.putCpu)} MB/s`);
    row('  CPU per MiB, get (all processes)', cpu(disk.getCpu), cpu(pg.getCpu), `PostgreSQL on one free core: ~${round(1000 / pg.getCpu)} MB/s`);
    const listRatio = pg.list / disk.list;
    row(
      `every page of ${round(BESIDE.listKeys)} keys (${BESIDE.listKeys / 1000} pages)`,
      `${round(disk.list, 1)} ms`,
      `${round(pg.list, 1)} ms`,
      `${round(listRatio, 2)}x disk  ${verdict(listRatio <= BESIDE_TARGETS.listTimesDisk)} (<= ${BESIDE_TARGETS.listTimesDisk}x)`,
    );
    const growth = (bytes: number) => `+${round(bytes / MiB)} MiB`;
    row('1 GiB put then get: RSS growth', growth(huge.get('disk')!.whole), growth(huge.get('postgres')!.whole), `the source alone: ${growth(sourceAlone.maxRssBytes - sourceAlone.baselineRssBytes)}`);
    const putGrowth = reused.maxRssBytes - reused.baselineRssBytes;
    row(
      '  the put alone, from one buffer',
      'n/a',
      growth(putGrowth),
      `${verdict(putGrowth <= BESIDE_TARGETS.hugeGrowthBytes)} (<= ${BESIDE_TARGETS.hugeGrowthBytes / MiB} MiB; disk keeps the chunks it is given)`,
    );
    const readGrowth = huge.get('postgres')!.read;
    row(
      '  the read alone, into one buffer',
      growth(huge.get('disk')!.read),
      growth(readGrowth),
      `${verdict(readGrowth <= BESIDE_TARGETS.hugeGrowthBytes)} (<= ${BESIDE_TARGETS.hugeGrowthBytes / MiB} MiB)`,
    );
    console.log(`  load average ${loadAverage()} at the end`);
  } finally {
    await Promise.all([...buckets.values(), ...listed.values()].map((bucket) => bucket.close()));
    await postgres.close();
    await cluster.stop();
  }
}

export async function run(): Promise<void> {
  const space = workspace();
  try {
    console.log('Bucket runtime benchmark');
    // Largest first, while the process holds least: its peak memory is then the body's doing.
    await benchLarge(space, 1024 * MiB, ['disk'], 2);
    await benchLarge(space, 64 * MiB, ['memory', 'disk'], 3);
    await benchSmall(space);
    await benchList(space);
    await benchBeside(space);
  } finally {
    fs.rmSync(space.root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // `npx tsx scripts/bench/bucket.ts postgres` runs only the PostgreSQL comparison.
  if (process.argv[2] === 'postgres') {
    const space = workspace();
    try {
      await benchBeside(space);
    } finally {
      fs.rmSync(space.root, { recursive: true, force: true });
    }
  } else await run();
}
