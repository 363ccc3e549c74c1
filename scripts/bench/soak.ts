// A soak: the whole platform (`npm start`: the API, the S3 endpoint and a worker bound to a
// bucket) under a steady mixed load on every face at once, for 2 minutes by default or as long as
// asked, sampled every 10 s: the platform's resident memory, its open file descriptors, its event
// loop's delay (p99, from a reporter loaded into it: support/loop-delay-reporter.mjs) and the p99
// latency of the requests answered in the window. It fails on growth: after the warm-up (a
// quarter of the run, at most a minute), memory and descriptors must stay within 10% of the
// minute that follows it, and the p99 latency of every later minute within 2x of that minute's.
// Descriptors are judged by each minute's floor (its fewest open): sockets of requests in flight
// come and go with the latency, a leak raises the floor. Every call must succeed; the S3 calls
// with the AWS SDK's default retries, as its users make them (a keep-alive connection the server
// closed as the client reused it is retried), each retry counted and printed. It draws the curves
// as an SVG image.
//
//   npm run bench -- soak [--minutes 2] [--database sqlite|postgres] [--plot file.svg]
//
// The load (requests per second): API 30 reads (a zone, a phase's entry point) and 5 writes
// (a log push job created, then deleted); S3 15 PUT of 16 KiB over 500 keys, 15 GET, 2 list, and
// 1 multipart upload (create, a 64 KiB part, complete); the worker 20 binding calls (put, get,
// list). The platform runs in a child process; the load comes from this one.
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CreateMultipartUploadCommandOutput,
  type GetObjectCommandOutput,
  type UploadPartCommandOutput,
} from '@aws-sdk/client-s3';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openBucketCatalogue } from '../../src/bucket';
import { startPostgres, type PostgresCluster } from '../../test/support/postgres';
import { memoryField } from '../../test/support/process-memory';
import { root } from '../tools';
import { svgPlot } from './support/svg-plot';
import { readyLine } from './support/ready-line';

const SAMPLE_MS = 10_000;
const TOKEN = 'soak-token-0123456789abcdefghijklmnopqrst';
const KEYS = { S3_ACCESS_KEY_ID: 'soakkey', S3_SECRET_ACCESS_KEY: 'soak-secret-0123456789' };
const PRO_ZONE = '9d6991f5ca85bf43524971c922c4bcfc';
const BUCKET = 'soak';
const S3_KEYS = 500;
/** Requests of one stream in flight at once: beyond, a tick is counted late instead of piling up. */
const IN_FLIGHT = 32;
const REPORTER = new URL('./support/loop-delay-reporter.mjs', import.meta.url).href;
const MiB = 1024 * 1024;

const WORKER = `export default {
  async fetch(request, env) {
    const [, op, key] = new URL(request.url).pathname.split('/');
    if (op === 'put') {
      await env.SOAK.put('w/' + key, await request.arrayBuffer());
      return new Response('stored');
    }
    if (op === 'get') {
      const object = await env.SOAK.get('w/' + key);
      return object ? new Response(object.body) : new Response('missing', { status: 404 });
    }
    const listed = await env.SOAK.list({ prefix: 'w/', limit: 50 });
    return Response.json({ objects: listed.objects.length });
  },
};
`;

interface Options {
  minutes: number;
  database: 'sqlite' | 'postgres';
  plot: string;
}

function readOptions(args: string[]): Options {
  const { values } = parseArgs({ args, options: { minutes: { type: 'string' }, database: { type: 'string' }, plot: { type: 'string' } }, strict: true });
  const minutes = Number(values.minutes ?? '2');
  if (!(minutes >= 1)) throw new Error(`--minutes must be a number of at least 1, not ${values.minutes}`);
  const database = values.database ?? 'sqlite';
  if (database !== 'sqlite' && database !== 'postgres') throw new Error(`--database must be sqlite or postgres, not ${database}`);
  return { minutes, database, plot: values.plot ?? path.join(tmpdir(), `soak-${database}-${Date.now()}.svg`) };
}

interface Platform {
  child: ChildProcess;
  pid: number;
  urls: Record<string, string>;
}

async function startPlatform(cwd: string, env: Record<string, string>): Promise<Platform> {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', API_TOKEN: TOKEN, LOG_LEVEL: 'warn', ...KEYS, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { match: ready, output } = await readyLine(child, 'the platform');
  const urls = Object.fromEntries([...output.matchAll(/^ {2}(api|s3|worker:\S+) +(http:\/\/\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  return { child, pid: Number(ready[2]), urls };
}

/** Latencies and failures of the requests answered in the current window. */
class Window {
  latencies: number[] = [];
  failures: string[] = [];
  late = 0;
  /** S3 calls the SDK had to try again (each extra attempt counted). */
  retried = 0;
  count = 0;
  take(): Window {
    const taken = Object.assign(new Window(), this);
    this.latencies = [];
    this.failures = [];
    this.late = 0;
    this.retried = 0;
    this.count = 0;
    return taken;
  }
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Calls `request` `perSecond` times a second until `stop`, each timed into `window`. */
function stream(name: string, perSecond: number, window: Window, request: (i: number) => Promise<void>) {
  let inFlight = 0;
  let i = 0;
  const timer = setInterval(() => {
    if (inFlight >= IN_FLIGHT) {
      window.late += 1;
      return;
    }
    inFlight += 1;
    const started = performance.now();
    request(i++).then(
      () => {
        window.latencies.push(performance.now() - started);
        window.count += 1;
      },
      (error: unknown) => window.failures.push(`${name}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`),
    ).finally(() => (inFlight -= 1));
  }, 1000 / perSecond);
  return {
    stop: async () => {
      clearInterval(timer);
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
}

async function ok(response: Response, what: string): Promise<void> {
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${what} answered ${response.status}`);
}

function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function lastLoopDelay(file: string, pid: number): number | undefined {
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { pid: number; p99: number });
  return lines.filter((line) => line.pid === pid).at(-1)?.p99;
}

interface Sample {
  seconds: number;
  rssMiB: number;
  descriptors: number;
  loopDelayP99: number;
  latencyP99: number;
  latencies: number[];
  requests: number;
  late: number;
  retried: number;
  /** The machine's 1-minute load average: what else ran beside the soak. */
  load: number;
}

export async function run(args: string[] = []): Promise<void> {
  const options = readOptions(args);
  const cwd = mkdtempSync(path.join(tmpdir(), 'soak-'));
  const loopFile = path.join(cwd, 'loop-delay.jsonl');
  let cluster: PostgresCluster | undefined;
  let platform: Platform | undefined;
  try {
    const env: Record<string, string> = { NODE_OPTIONS: `--import=${REPORTER}`, LOOP_DELAY_REPORT: loopFile, LOOP_DELAY_INTERVAL_MS: String(SAMPLE_MS) };
    if (options.database === 'postgres') {
      cluster = await startPostgres({ durable: true });
      env.DATABASE_URL = await cluster.createDatabase('soak');
    }
    // The worker's bucket exists before the platform starts, as its start requires.
    const catalogue = await openBucketCatalogue({ dataDir: path.join(cwd, 'data'), databaseUrl: env.DATABASE_URL });
    await catalogue.create(BUCKET);
    await catalogue.close();
    writeFileSync(path.join(cwd, 'worker.mjs'), WORKER);
    writeFileSync(path.join(cwd, 'wrangler.toml'), `name = "soak"\nmain = "worker.mjs"\ncompatibility_date = "2026-07-01"\n\n[[r2_buckets]]\nbinding = "SOAK"\nbucket_name = "${BUCKET}"\n`);
    writeFileSync(path.join(cwd, 'platform.toml'), '[[workers]]\nconfig = "wrangler.toml"\n');
    platform = await startPlatform(cwd, env);
    const { urls, pid } = platform;
    const s3 = new S3Client({
      endpoint: urls.s3!,
      region: 'auto',
      forcePathStyle: true,
      credentials: { accessKeyId: KEYS.S3_ACCESS_KEY_ID, secretAccessKey: KEYS.S3_SECRET_ACCESS_KEY },
    });
    const window = new Window();
    const send = s3.send.bind(s3) as (command: unknown) => Promise<{ $metadata: { attempts?: number } }>;
    // Every S3 call of the load, its extra attempts counted into the window.
    const call = async <T extends { $metadata: { attempts?: number } }>(command: unknown): Promise<T> => {
      const output = (await send(command)) as T;
      window.retried += Math.max(0, (output.$metadata.attempts ?? 1) - 1);
      return output;
    };
    await s3.send(new CreateBucketCommand({ Bucket: 'through-s3' }));
    const body = randomBytes(16 * 1024);
    for (let i = 0; i < S3_KEYS; i++) await s3.send(new PutObjectCommand({ Bucket: 'through-s3', Key: `object-${i}`, Body: body }));
    const auth = { authorization: `Bearer ${TOKEN}` };
    const api = urls.api!;
    const worker = urls['worker:soak']!;
    const part = randomBytes(64 * 1024);
    const streams = [
      stream('API GET zone', 20, window, async () => ok(await fetch(`${api}/zones/${PRO_ZONE}`, { headers: auth }), 'GET zone')),
      stream('API GET entry point', 10, window, async () =>
        ok(await fetch(`${api}/zones/${PRO_ZONE}/rulesets/phases/http_request_firewall_managed/entrypoint`, { headers: auth }), 'GET entry point'),
      ),
      stream('API job created and deleted', 5, window, async (i) => {
        const created = await fetch(`${api}/zones/${PRO_ZONE}/logpush/jobs`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ dataset: 'http_requests', destination_conf: `s3://logs/soak-${i}?region=us-east-1` }),
        });
        if (!created.ok) throw new Error(`POST job answered ${created.status}`);
        const { result } = (await created.json()) as { result: { id: number } };
        await ok(await fetch(`${api}/zones/${PRO_ZONE}/logpush/jobs/${result.id}`, { method: 'DELETE', headers: auth }), 'DELETE job');
      }),
      stream('S3 PUT', 15, window, async (i) => void (await call(new PutObjectCommand({ Bucket: 'through-s3', Key: `object-${(i * 7) % S3_KEYS}`, Body: body })))),
      stream('S3 GET', 15, window, async (i) => {
        const object = await call<GetObjectCommandOutput>(new GetObjectCommand({ Bucket: 'through-s3', Key: `object-${(i * 13) % S3_KEYS}` }));
        await object.Body!.transformToByteArray();
      }),
      stream('S3 list', 2, window, async (i) => void (await call(new ListObjectsV2Command({ Bucket: 'through-s3', Prefix: `object-${i % 10}`, MaxKeys: 100 })))),
      stream('S3 multipart', 1, window, async (i) => {
        const Key = `multipart-${i % 20}`;
        const { UploadId } = await call<CreateMultipartUploadCommandOutput>(new CreateMultipartUploadCommand({ Bucket: 'through-s3', Key }));
        const { ETag } = await call<UploadPartCommandOutput>(new UploadPartCommand({ Bucket: 'through-s3', Key, UploadId, PartNumber: 1, Body: part }));
        await call(new CompleteMultipartUploadCommand({ Bucket: 'through-s3', Key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag }] } }));
      }),
      stream('worker put', 8, window, async (i) => ok(await fetch(`${worker}/put/${i % 200}`, { method: 'PUT', body: body.subarray(0, 4096) }), 'worker put')),
      stream('worker get', 8, window, async (i) => {
        const response = await fetch(`${worker}/get/${i % 200}`);
        await response.arrayBuffer();
        if (!response.ok && response.status !== 404) throw new Error(`worker get answered ${response.status}`);
      }),
      stream('worker list', 4, window, async () => ok(await fetch(`${worker}/list`), 'worker list')),
    ];

    const durationMs = options.minutes * 60_000;
    const warmUpMs = Math.min(60_000, durationMs / 4);
    console.log(
      `soak on ${options.database}: ${options.minutes} min, sampled every ${SAMPLE_MS / 1000} s, warm-up ${warmUpMs / 1000} s (load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}, ${availableParallelism()} cores)`,
    );
    console.log('  time   RSS MiB  fds  loop p99 ms  requests  p99 ms  late  retried  failures  load');
    const started = Date.now();
    const samples: Sample[] = [];
    const failures: string[] = [];
    while (Date.now() - started < durationMs) {
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      const taken = window.take();
      failures.push(...taken.failures);
      const sample: Sample = {
        seconds: Math.round((Date.now() - started) / 1000),
        rssMiB: memoryField(pid, 'VmRSS') / MiB,
        descriptors: openDescriptors(pid),
        loopDelayP99: lastLoopDelay(loopFile, pid) ?? 0,
        latencyP99: percentile(taken.latencies, 99),
        latencies: taken.latencies,
        requests: taken.count,
        late: taken.late,
        retried: taken.retried,
        load: loadavg()[0]!,
      };
      samples.push(sample);
      console.log(
        `${String(sample.seconds).padStart(5)} s  ${sample.rssMiB.toFixed(1).padStart(7)}  ${String(sample.descriptors).padStart(3)}  ${sample.loopDelayP99.toFixed(1).padStart(11)}  ${String(sample.requests).padStart(8)}  ${sample.latencyP99.toFixed(1).padStart(6)}  ${String(sample.late).padStart(4)}  ${String(sample.retried).padStart(7)}  ${String(taken.failures.length).padStart(8)}  ${sample.load.toFixed(1)}`,
      );
    }
    await Promise.all(streams.map((s) => s.stop()));
    s3.destroy();

    // Reference: the minute after the warm-up. Later: every following minute, and the last one.
    const after = (ms: number) => samples.filter((s) => s.seconds * 1000 > ms);
    const reference = after(warmUpMs).filter((s) => s.seconds * 1000 <= warmUpMs + 60_000);
    const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
    const referenceRss = mean(reference.map((s) => s.rssMiB));
    const floor = (values: number[]) => Math.min(...values);
    const referenceFds = floor(reference.map((s) => s.descriptors));
    const referenceP99 = percentile(reference.flatMap((s) => s.latencies), 99);
    const verdicts: string[] = [];
    const minutes: Sample[][] = [];
    for (const sample of after(warmUpMs + 60_000)) {
      const index = Math.floor((sample.seconds * 1000 - warmUpMs - 60_000 - 1) / 60_000);
      (minutes[index] ??= []).push(sample);
    }
    for (const [index, minute] of minutes.entries()) {
      if (!minute) continue;
      const rss = mean(minute.map((s) => s.rssMiB));
      const fds = floor(minute.map((s) => s.descriptors));
      const p99 = percentile(minute.flatMap((s) => s.latencies), 99);
      const label = `minute ${index + 1} after the reference`;
      if (rss > referenceRss * 1.1) verdicts.push(`${label}: RSS ${rss.toFixed(1)} MiB, more than 10% above ${referenceRss.toFixed(1)} MiB`);
      if (fds > referenceFds * 1.1) verdicts.push(`${label}: at least ${fds} descriptors open, more than 10% above the reference minute's floor of ${referenceFds}`);
      if (p99 > referenceP99 * 2) verdicts.push(`${label}: p99 ${p99.toFixed(1)} ms, more than twice ${referenceP99.toFixed(1)} ms`);
    }
    if (failures.length > 0) verdicts.push(`${failures.length} failed requests, the first: ${failures.slice(0, 3).join('; ')}`);
    const last = samples.at(-1)!;
    console.log(
      `reference minute: RSS ${referenceRss.toFixed(1)} MiB, at least ${referenceFds} descriptors, p99 ${referenceP99.toFixed(1)} ms; end: RSS ${last.rssMiB.toFixed(1)} MiB, ${last.descriptors} descriptors; ` +
        `${samples.reduce((sum, s) => sum + s.requests, 0)} requests, ${samples.reduce((sum, s) => sum + s.retried, 0)} S3 retries, ${failures.length} failed; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
    );
    const seconds = (values: (s: Sample) => number): [number, number][] => samples.map((s) => [s.seconds, values(s)]);
    writeFileSync(
      options.plot,
      svgPlot(`Soak on ${options.database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${options.minutes} min of mixed load on every face`, [
        { title: 'Resident memory', unit: 'MiB', points: seconds((s) => s.rssMiB), limit: { value: referenceRss * 1.1, label: '+10% of the reference minute' } },
        { title: 'Open file descriptors', unit: 'count', points: seconds((s) => s.descriptors), limit: { value: referenceFds * 1.1, label: "+10% of the reference minute's floor" } },
        { title: 'Event loop delay, p99 per 10 s', unit: 'ms', points: seconds((s) => s.loopDelayP99) },
        { title: 'Request latency, p99 per 10 s', unit: 'ms', points: seconds((s) => s.latencyP99), limit: { value: referenceP99 * 2, label: '2x the reference minute' } },
        { title: "The machine's load average (1 min): what ran beside the soak", unit: 'runnable tasks', points: seconds((s) => s.load) },
      ]),
    );
    console.log(`curves: ${options.plot}`);
    if (verdicts.length > 0) {
      console.log(`FAILED:\n  ${verdicts.join('\n  ')}`);
      process.exitCode = 1;
    } else {
      console.log("passed: memory and the descriptors' floor flat within 10%, p99 within 2x, no failed call");
    }
  } finally {
    if (platform) {
      platform.child.kill('SIGTERM');
      await new Promise((resolve) => platform!.child.once('exit', resolve));
    }
    await cluster?.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
}
