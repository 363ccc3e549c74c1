// S3 endpoint benchmark, in one run:
// - small objects: put+get pairs of 1 KiB through S3 (the AWS SDK v3 against `npm run s3`),
//   beside the same pairs through the binding (the on-disk runtime, as a worker uses it) and
//   beside plain files (write, fsync, read), same bytes, same concurrency; ratios printed;
// - a 1 GiB object up (streamed, aws-chunked as the SDK sends it) and down through S3, with the
//   endpoint's peak memory growth, which must stay within the bound the runtime keeps;
// - a 64 MiB object read whole and in 1 MiB ranges, plain and encrypted under a customer key
//   (SSE-C), the SSE-C rates against the plain ones of the same run;
// - the wire (s3-wire.ts): 1 KiB PUT/s and GET/s with presigned URLs and a light client, beside a
//   no-op HTTP server (node:http and @hono/node-server), Miniflare's local S3 endpoint and the
//   floor of a signed, durable request
//   (`S3_BENCH_WIRE_ONLY=1` stops after it).
// The endpoint runs in a child process (as it does in use): the SDK and the endpoint do not share
// one event loop. Run: `npm run bench -- s3` (about a minute; about 1.1 GiB of free disk).
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BucketCatalogue, type OpenBucket } from '../../src/bucket';
import { memoryField, resetPeakMemory } from '../../test/support/process-memory';
import { benchWire } from './s3-wire';
import { pool, rawFilePairs, round, seconds } from './support/measure';
import { readyLine } from './support/ready-line';

const KiB = 1024;
const MiB = 1024 * KiB;
const SMALL_PAIRS = 2_000;
const SMALL_CONCURRENCY = 16;
const SMALL_ROUNDS = 2;
const LARGE_SIZE = 1024 * MiB;
const CHUNK = MiB;
/**
 * An eighth of the object: an endpoint that held the object would grow by 1 GiB; streaming, it
 * grows by what garbage collection lets pile up before it runs (tens of MiB).
 */
const MEMORY_BOUND = 128 * MiB;
const KEY_ID = 'BENCHKEY';
const SECRET = 'benchmark-secret-key';
const SCRIPT = fileURLToPath(new URL('../s3.ts', import.meta.url));


/** `npm run s3` in a child process; resolves with its URL and pid once it is ready. */
async function startEndpoint(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, S3_ACCESS_KEY_ID: KEY_ID, S3_SECRET_ACCESS_KEY: SECRET },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { match: ready } = await readyLine(child, 'the endpoint');
  return {
    url: ready[1]!,
    pid: Number(ready[2]),
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function smallBinding(bucket: OpenBucket, payload: Buffer, round: number): Promise<number> {
  const start = process.hrtime.bigint();
  await pool(SMALL_PAIRS, SMALL_CONCURRENCY, async (i) => {
    await bucket.put(`binding/${round}/${i}`, payload);
    await (await bucket.get(`binding/${round}/${i}`))!.arrayBuffer();
  });
  return SMALL_PAIRS / seconds(start);
}

async function smallS3(s3: S3Client, payload: Buffer, round: number): Promise<number> {
  const start = process.hrtime.bigint();
  await pool(SMALL_PAIRS, SMALL_CONCURRENCY, async (i) => {
    await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: `s3/${round}/${i}`, Body: payload }));
    await (
      await s3.send(new GetObjectCommand({ Bucket: 'bench', Key: `s3/${round}/${i}` }))
    ).Body!.transformToByteArray();
  });
  return SMALL_PAIRS / seconds(start);
}

async function benchSmall(root: string, s3: S3Client, bucket: OpenBucket): Promise<void> {
  const payload = randomBytes(KiB);
  console.log(
    `\nSmall objects: ${round(SMALL_PAIRS)} put+get pairs of 1 KiB, ${SMALL_CONCURRENCY} in flight, best of ${SMALL_ROUNDS}`,
  );
  const best = { raw: 0, binding: 0, s3: 0 };
  // One S3 round first: connections open and code compiles before anything is timed.
  await smallS3(s3, payload, -1);
  for (let i = 0; i < SMALL_ROUNDS; i++) {
    const rawDirectory = join(root, 'small-raw');
    best.raw = Math.max(best.raw, await rawFilePairs(rawDirectory, payload, SMALL_PAIRS, SMALL_CONCURRENCY));
    fs.rmSync(rawDirectory, { recursive: true, force: true });
    best.binding = Math.max(best.binding, await smallBinding(bucket, payload, i));
    best.s3 = Math.max(best.s3, await smallS3(s3, payload, i));
  }
  console.log(`  raw files (write+fsync, read)   ${round(best.raw).padStart(7)} pairs/s`);
  console.log(
    `  binding (on-disk runtime)       ${round(best.binding).padStart(7)} pairs/s  ${round(best.binding / best.raw, 2)}x raw`,
  );
  console.log(
    `  S3 (AWS SDK over HTTP)          ${round(best.s3).padStart(7)} pairs/s  ${round(best.s3 / best.raw, 2)}x raw  ${round(best.s3 / best.binding, 2)}x binding`,
  );
}

const ENCRYPTED_SIZE = 64 * MiB;
const ENCRYPTED_ROUNDS = 3;

/** Reads `Key` whole, or as RANGES 1 MiB ranges spread over it; MB/s. */
async function readRate(s3: S3Client, Key: string, keyed: object, ranged: boolean): Promise<number> {
  const start = process.hrtime.bigint();
  if (!ranged) {
    const got = await s3.send(new GetObjectCommand({ Bucket: 'bench', Key, ...keyed }));
    for await (const part of got.Body as AsyncIterable<Uint8Array>) void part;
    return ENCRYPTED_SIZE / MiB / seconds(start);
  }
  const step = ENCRYPTED_SIZE / RANGES;
  await pool(RANGES, 4, async (i) => {
    const first = i * step + (i % 16);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'bench', Key, Range: `bytes=${first}-${first + MiB - 1}`, ...keyed }));
    await got.Body!.transformToByteArray();
  });
  return RANGES / seconds(start);
}
const RANGES = 32;

/** Plain and SSE-C reads of the same bytes, in the same run: whole (MB/s) and ranged (ranges/s). */
async function benchEncrypted(s3: S3Client): Promise<void> {
  console.log(`\nEncrypted objects: ${round(ENCRYPTED_SIZE / MiB)} MiB read whole and in ${RANGES} ranges of 1 MiB, plain and with a customer key (SSE-C), best of ${ENCRYPTED_ROUNDS}`);
  const bytes = randomBytes(ENCRYPTED_SIZE);
  const key = randomBytes(32);
  const keyed = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64') };
  await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: 'plain-64', Body: bytes }));
  await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: 'sse-c-64', Body: bytes, ...keyed }));
  const best = { plain: 0, encrypted: 0, plainRanges: 0, encryptedRanges: 0 };
  for (let i = 0; i < ENCRYPTED_ROUNDS; i++) {
    best.plain = Math.max(best.plain, await readRate(s3, 'plain-64', {}, false));
    best.encrypted = Math.max(best.encrypted, await readRate(s3, 'sse-c-64', keyed, false));
    best.plainRanges = Math.max(best.plainRanges, await readRate(s3, 'plain-64', {}, true));
    best.encryptedRanges = Math.max(best.encryptedRanges, await readRate(s3, 'sse-c-64', keyed, true));
  }
  const met = (ratio: number) => (ratio >= 0.5 ? 'met' : 'NOT met');
  console.log(`  whole   plain ${round(best.plain).padStart(6)} MB/s   SSE-C ${round(best.encrypted).padStart(6)} MB/s   ${round(best.encrypted / best.plain, 2)}x (target >= 0.5x: ${met(best.encrypted / best.plain)})`);
  console.log(
    `  ranges  plain ${round(best.plainRanges).padStart(6)} /s     SSE-C ${round(best.encryptedRanges).padStart(6)} /s     ${round(best.encryptedRanges / best.plainRanges, 2)}x (target >= 0.5x: ${met(best.encryptedRanges / best.plainRanges)})`,
  );
}

async function benchLarge(s3: S3Client, pid: number): Promise<void> {
  console.log(`\nLarge object: ${round(LARGE_SIZE / MiB)} MiB through S3, streamed up (aws-chunked) and down`);
  const chunk = randomBytes(CHUNK);
  let sent = 0;
  const body = new Readable({
    read() {
      if (sent === LARGE_SIZE) return void this.push(null);
      sent += CHUNK;
      // A fresh copy each time: the SDK may hold on to a chunk until it is written.
      this.push(Buffer.from(chunk));
    },
  });
  const beforeUpload = resetPeakMemory(pid);
  let start = process.hrtime.bigint();
  await s3.send(new PutObjectCommand({ Bucket: 'bench', Key: 'large', Body: body, ContentLength: LARGE_SIZE }));
  const up = { mbps: LARGE_SIZE / MiB / seconds(start), grown: memoryField(pid, 'VmHWM') - beforeUpload };
  const beforeDownload = resetPeakMemory(pid);
  start = process.hrtime.bigint();
  const got = await s3.send(new GetObjectCommand({ Bucket: 'bench', Key: 'large' }));
  let received = 0;
  for await (const part of got.Body as AsyncIterable<Uint8Array>) received += part.byteLength;
  const down = { mbps: LARGE_SIZE / MiB / seconds(start), grown: memoryField(pid, 'VmHWM') - beforeDownload };
  if (received !== LARGE_SIZE) throw new Error(`received ${received} bytes of ${LARGE_SIZE}`);
  for (const [name, figures] of [
    ['PUT', up],
    ['GET', down],
  ] as const) {
    const met = figures.grown < MEMORY_BOUND;
    console.log(
      `  ${name}  ${round(figures.mbps).padStart(5)} MB/s  endpoint peak memory +${round(figures.grown / MiB, 1)} MiB  ` +
        `${met ? 'within' : 'OVER'} the ${round(MEMORY_BOUND / MiB)} MiB bound`,
    );
  }
}

export async function run(): Promise<void> {
  const root = fs.mkdtempSync(join(tmpdir(), 's3-bench-'));
  const dataDir = join(root, 'data');
  const endpoint = await startEndpoint(dataDir);
  const s3 = new S3Client({
    endpoint: endpoint.url,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
  });
  const catalogue = new BucketCatalogue(dataDir);
  try {
    console.log('S3 endpoint benchmark');
    await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
    const ours = { name: 'our endpoint', endpoint: endpoint.url, signed: true, pid: endpoint.pid, stop: async () => {} };
    await benchWire(ours, join(root, 'wire'));
    if (process.env.S3_BENCH_WIRE_ONLY === '1') return;
    await benchSmall(root, s3, await catalogue.open('bench'));
    await benchEncrypted(s3);
    await benchLarge(s3, endpoint.pid);
  } finally {
    s3.destroy();
    await catalogue.close();
    await endpoint.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
