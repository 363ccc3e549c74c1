// The speed of the wire: 1 KiB PUTs, then GETs of them, through presigned URLs sent by a light
// client (node:http, keep-alive, 16 in flight), against (a) our endpoint, (b) a no-op HTTP server
// on node:http (the machine's HTTP ceiling for this client), (c) a no-op server on
// @hono/node-server (what the worker host's HTTP library costs) and (d) Miniflare's local S3
// endpoint (`/cdn-cgi/local/r2/s3`), and (e) the floor of a signed, durable request
// (support/signed-durable-floor.ts: node:http, the presigned URL's signature checked, the on-disk
// bucket's own statements committed with a full flush, nothing else), which shows how much of the
// no-op server's rate the checks the targets keep leave to any server on this machine; and our
// endpoint again with a customer key (SSE-C) on every request, against its plain figures. Every
// server runs in a process of its own, the client in this one; the figures are requests per
// second, best of the rounds, all measured in the same run, and the server's own CPU time per
// request (user + system, all its threads, from /proc on Linux; least of the rounds): on a machine
// shared with other work, rates swing with the load, the CPU a request costs much less.
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Log, LogLevel, Miniflare } from 'miniflare';
import { BucketCatalogue } from '../../src/bucket';
import { pool, round, seconds } from './support/measure';

const KiB = 1024;
const REQUESTS = 5_000;
/** Miniflare answers an order of magnitude slower: fewer requests give its rate as well. */
const PEER_REQUESTS = 500;
const CONCURRENCY = 16;
const ROUNDS = 2;
/**
 * Requests of the untimed warm-up round, each target alike: enough for V8 to finish optimizing
 * the hot path, so the rounds compare steady states rather than how soon each server's code is
 * compiled. The floor's few lines settle within 2,000 requests; the endpoint's GETs took 96, 66,
 * 48, then 41-46 µs of CPU in rounds of 8,000 (its PUTs 158, 136, 101, then 89-98 µs): 2,000
 * measured it half-way through.
 */
const WARM_UP_REQUESTS = 20_000;
const KEY_ID = 'BENCHKEY';
const SECRET = 'benchmark-secret-key';
/** The project's root: the no-op servers resolve their packages from it. */
const PROJECT = fileURLToPath(new URL('../..', import.meta.url));
const FLOOR_SCRIPT = fileURLToPath(new URL('./support/signed-durable-floor.ts', import.meta.url));

export interface WireTarget {
  name: string;
  /** Where S3 requests go (path-style; the bucket follows). */
  endpoint: string;
  /** Whether URLs must be presigned (an S3 server) or any URL does (a no-op server). */
  signed: boolean;
  /** Requests per round; REQUESTS unless given. */
  requests?: number;
  /** The server's process, whose CPU time is read; none for Miniflare (workerd is its child). */
  pid?: number;
  /** Headers every request sends beside the presigned URL (a customer key), and the keys' prefix then. */
  headers?: Record<string, string>;
  prefix?: string;
  stop(): Promise<void>;
}

/** A no-op server in a child process: drains the body, answers 200 with an etag and a tiny body. */
export async function noOpServer(kind: 'node:http' | 'hono'): Promise<WireTarget> {
  const code =
    kind === 'node:http'
      ? `const http = require('node:http');
         const server = http.createServer((req, res) => {
           req.on('data', () => {});
           req.on('end', () => { res.writeHead(200, { etag: '"0123456789abcdef0123456789abcdef"', 'content-length': '4' }); res.end('pong'); });
         });
         server.keepAliveTimeout = 60000;
         server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));`
      : `const { serve } = require('@hono/node-server');
         const server = serve({ port: 0, hostname: '127.0.0.1', fetch: async (req) => {
           await req.arrayBuffer();
           return new Response('pong', { headers: { etag: '"0123456789abcdef0123456789abcdef"' } });
         } }, (info) => console.log('port ' + info.port));`;
  return serverProcess(`no-op server (${kind})`, ['-e', code], false);
}

/**
 * The floor of a signed, durable request, over a bucket of its own made by the runtime in
 * `dataDir`, with the benchmark's credentials.
 */
export async function signedDurableFloorServer(dataDir: string): Promise<WireTarget> {
  const catalogue = new BucketCatalogue(dataDir);
  await catalogue.create('bench');
  await catalogue.open('bench'); // makes its database
  await catalogue.close();
  const args = ['--import', 'tsx', FLOOR_SCRIPT, join(dataDir, 'buckets', 'bench'), KEY_ID, SECRET];
  return serverProcess('floor (signed, durable)', args, true);
}

/** A server started as `node <args>` from the project's root, which prints `port <n>` once it listens. */
async function serverProcess(name: string, args: string[], signed: boolean): Promise<WireTarget> {
  const child = spawn(process.execPath, args, { cwd: PROJECT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      const match = /port (\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`the ${name} server ended (exit ${code})`)));
  });
  return {
    name,
    endpoint: `http://127.0.0.1:${port}`,
    signed,
    ...(child.pid === undefined ? {} : { pid: child.pid }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Miniflare's own S3 endpoint for a bucket bound with S3 credentials (workerd in its own process). */
export async function miniflareS3(persist: string): Promise<WireTarget> {
  const miniflare = new Miniflare({
    log: new Log(LogLevel.WARN),
    modules: true,
    script: 'export default { fetch() { return new Response("worker"); } }',
    r2Buckets: { BUCKET: { id: 'bench', s3Credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET } } },
    r2Persist: persist,
    cf: false,
  });
  const url = await miniflare.ready;
  return {
    name: "Miniflare's local S3 endpoint",
    endpoint: `${url.origin}/cdn-cgi/local/r2/s3`,
    signed: true,
    requests: PEER_REQUESTS,
    stop: () => miniflare.dispose(),
  };
}

/**
 * Sends one request and reads the whole answer; a status other than 200 is an error. A kept-alive
 * socket the server closed just as it was reused is retried once, as Node's documentation advises.
 */
function request(
  agent: http.Agent,
  method: string,
  url: string,
  body?: Buffer,
  extra: Record<string, string> = {},
  retried = false,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const sent = http.request(
      url,
      { method, agent, headers: body ? { ...extra, 'content-length': String(body.length) } : extra },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`${method} ${url.split('?')[0]}: ${response.statusCode}`)),
        );
      },
    );
    sent.on('error', (error: NodeJS.ErrnoException) => {
      if (sent.reusedSocket && error.code === 'ECONNRESET' && !retried) {
        request(agent, method, url, body, extra, true).then(resolve, reject);
      } else reject(error);
    });
    sent.end(body);
  });
}

/** Presigned (or plain) URLs for `count` keys of one round. */
async function urlsFor(target: WireTarget, round: number, count: number) {
  const s3 = new S3Client({
    endpoint: target.endpoint,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
  });
  const put: string[] = [];
  const get: string[] = [];
  for (let i = 0; i < count; i++) {
    const Key = `${target.prefix ?? 'wire'}/${round}/${i}`;
    if (target.signed) {
      put.push(await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'bench', Key }), { expiresIn: 3600 }));
      get.push(await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'bench', Key }), { expiresIn: 3600 }));
    } else {
      put.push(`${target.endpoint}/bench/${Key}`);
      get.push(`${target.endpoint}/bench/${Key}`);
    }
  }
  s3.destroy();
  return { put, get };
}

/** The CPU time a process has used, in microseconds (user + system, every thread); undefined off Linux. */
function cpuMicroseconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100; // USER_HZ, 100 on every Linux architecture Node runs on
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

export interface WireFigures {
  put: number;
  get: number;
  /** CPU µs per request of the server, when its process can be read. */
  putCpu?: number;
  getCpu?: number;
}

/** Times `count` requests: their rate, and the server's CPU time per request. */
async function timed(target: WireTarget, count: number, send: (i: number) => Promise<void>) {
  const cpuBefore = cpuMicroseconds(target.pid);
  const start = process.hrtime.bigint();
  await pool(count, CONCURRENCY, send);
  const rate = count / seconds(start);
  const cpuAfter = cpuMicroseconds(target.pid);
  return { rate, cpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / count };
}

const least = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/** PUT/s and GET/s against one target, best of the rounds, with CPU per request (least of the rounds). */
export async function measure(target: WireTarget, payload: Buffer): Promise<WireFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const best: WireFigures = { put: 0, get: 0 };
  try {
    // A warm-up round: connections open and code compiles before anything is timed.
    for (let round = -1; round < ROUNDS; round++) {
      const perRound = target.requests ?? REQUESTS;
      const count = round < 0 ? (target.requests === undefined ? WARM_UP_REQUESTS : Math.min(WARM_UP_REQUESTS, perRound)) : perRound;
      const urls = await urlsFor(target, round, count);
      const put = await timed(target, count, (i) => request(agent, 'PUT', urls.put[i]!, payload, target.headers));
      const get = await timed(target, count, (i) => request(agent, 'GET', urls.get[i]!, undefined, target.headers));
      if (round >= 0) {
        best.put = Math.max(best.put, put.rate);
        best.get = Math.max(best.get, get.rate);
        const putCpu = least(best.putCpu, put.cpu);
        const getCpu = least(best.getCpu, get.cpu);
        if (putCpu !== undefined) best.putCpu = putCpu;
        if (getCpu !== undefined) best.getCpu = getCpu;
      }
    }
  } finally {
    agent.destroy();
  }
  return best;
}

/**
 * Measures and prints the wire figures; `ours` is our endpoint, already running with a `bench`
 * bucket. Miniflare and the floor keep their data under `scratch`.
 */
export async function benchWire(ours: WireTarget, scratch: string): Promise<void> {
  console.log(
    `\nThe wire: ${round(REQUESTS)} PUTs of 1 KiB then as many GETs (Miniflare ${PEER_REQUESTS}), presigned URLs, node:http client, ${CONCURRENCY} in flight, best of ${ROUNDS}`,
  );
  const payload = randomBytes(KiB);
  const targets = [ours];
  const figures = new Map<string, WireFigures>();
  // The same endpoint with a customer key (SSE-C) on every request, measured right after it.
  const customerKey = randomBytes(32);
  const encrypted: WireTarget = {
    ...ours,
    name: 'our endpoint, SSE-C',
    prefix: 'wire-sse-c',
    headers: {
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key': customerKey.toString('base64'),
      'x-amz-server-side-encryption-customer-key-md5': createHash('md5').update(customerKey).digest('base64'),
    },
  };
  try {
    // One at a time, so that those started are stopped if a later one fails to start.
    const starts = [
      () => noOpServer('node:http'),
      () => noOpServer('hono'),
      () => miniflareS3(join(scratch, 'miniflare')),
      () => signedDurableFloorServer(join(scratch, 'floor')),
    ];
    for (const start of starts) targets.push(await start());
    for (const target of [ours, encrypted, ...targets.slice(1)]) figures.set(target.name, await measure(target, payload));
  } finally {
    for (const target of targets.slice(1)) await target.stop();
  }
  const noOp = figures.get(targets[1]!.name)!;
  const peer = figures.get(targets[3]!.name)!;
  const cpuText = ({ putCpu, getCpu }: WireFigures) =>
    putCpu === undefined || getCpu === undefined ? '' : `   CPU ${round(putCpu)} / ${round(getCpu)} µs per request`;
  for (const target of [ours, encrypted, ...targets.slice(1)]) {
    const figure = figures.get(target.name)!;
    const { put, get } = figure;
    console.log(
      `  ${target.name.padEnd(32)} PUT ${round(put).padStart(6)}/s  GET ${round(get).padStart(6)}/s` +
        `   ${round((100 * put) / noOp.put)}% / ${round((100 * get) / noOp.get)}% of no-op node:http` +
        `   ${round(put / peer.put, 2)}x / ${round(get / peer.get, 2)}x Miniflare${cpuText(figure)}`,
    );
  }
  const mine = figures.get(ours.name)!;
  const floor = figures.get(targets[4]!.name)!;
  const met = (ratio: number, target: number) => (ratio >= target ? 'met' : 'NOT met');
  console.log(
    `  targets: PUT and GET >= 70% of no-op (${met(mine.put / noOp.put, 0.7)}, ${met(mine.get / noOp.get, 0.7)}),` +
      ` >= 3.5x Miniflare (${met(mine.put / peer.put, 3.5)}, ${met(mine.get / peer.get, 3.5)})`,
  );
  const sse = figures.get(encrypted.name)!;
  console.log(
    `  SSE-C against plain, same endpoint and run: PUT ${round(sse.put / mine.put, 2)}x, GET ${round(sse.get / mine.get, 2)}x` +
      ` (target: GET >= 0.5x, ${met(sse.get / mine.get, 0.5)})`,
  );
  const floorBelow = floor.put < 0.7 * noOp.put || floor.get < 0.7 * noOp.get;
  console.log(
    `  the floor of a signed, durable request reaches ${round((100 * floor.put) / noOp.put)}% / ${round((100 * floor.get) / noOp.get)}% of no-op` +
      (floorBelow ? ' (below 70%: out of reach in this run for any server that keeps these checks)' : '') +
      `; our endpoint ${round((100 * mine.put) / floor.put)}% / ${round((100 * mine.get) / floor.get)}% of the floor` +
      ` (targets: PUT >= 80% ${met(mine.put / floor.put, 0.8)}, GET >= 90% ${met(mine.get / floor.get, 0.9)})`,
  );
}
