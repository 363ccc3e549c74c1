// Deployed workers: how fast a worker deployed with `wrangler deploy` answers through the edge
// port of `npm start`, and how soon a deployment serves.
//
//   Throughput: a worker that reads a 1 KiB object from its bucket, 16 requests in flight from a
//   node:http client with keep-alive, against
//     (a) `npm start`: deployed with wrangler, called through the edge port with its Host;
//     (b) the same worker hosted by `npm run worker` (in-process, no isolation);
//     (c) the same worker served by Miniflare, as `wrangler dev` serves it.
//   Targets: (a) >= 0.8 of (b) and >= 2x (c), measured in the same run. Besides the rates: each
//   server's CPU per request (its processes, workerd's included, from /proc), which a loaded
//   machine changes much less than elapsed time.
//
//   Deployment: `wrangler deploy` of the reference worker (examples/reference-worker/), from the
//   command's start to the first request the new version answers through the edge, for a first
//   deployment and for a new version of a serving script. Target: within 2 s.
//
// Run: `npm run bench -- workers`.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Log, LogLevel, Miniflare } from 'miniflare';
import { BucketCatalogue, HOME_ACCOUNT_ID } from '../../src/bucket';
import { pool, round, seconds } from './support/measure';
import { root } from '../tools';

const KiB = 1024;
const REQUESTS = 6_000;
const PEER_REQUESTS = 2_000;
const CONCURRENCY = 16;
const ROUNDS = 3;
const TOKEN = 'bench-workers-token';
const SUBDOMAIN = 'bench';
const KEY = 'one-kib';

/** The worker under test: one read of a 1 KiB object from its bucket, answered as is. */
const READER = `export default {
  async fetch(request, env) {
    const object = await env.BUCKET.get('${KEY}');
    if (object === null) return new Response('missing', { status: 404 });
    return new Response(object.body, { headers: { etag: object.httpEtag } });
  },
};
`;

interface Target {
  name: string;
  url: string;
  /** The Host header to send (the edge routes by it). */
  host?: string;
  requests: number;
  /** Processes whose CPU time is the server's (a process and its descendants). */
  pids: () => number[];
  stop(): Promise<void>;
}

interface Figures {
  rate: number;
  cpu?: number;
  /** CPU per request by process name (`node`, `workerd`), in the round that gave `cpu`. */
  byProcess?: Record<string, number>;
}

const TICKS = 100;

/** CPU time of each process by its name (microseconds), or undefined when one has ended. */
function cpuMicros(pids: number[]): Map<string, number> | undefined {
  const byName = new Map<string, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Node names its process after its main thread.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/^MainThread$/, 'node');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS);
    } catch {
      return undefined;
    }
  }
  return byName;
}

const sum = (values: Map<string, number>) => [...values.values()].reduce((a, b) => a + b, 0);

/** A process and its descendants, from /proc. */
function tree(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) children.push(...tree(Number(child)));
    }
  } catch {
    // Ended meanwhile.
  }
  return [pid, ...children];
}

function get(agent: http.Agent, target: Target): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(target.url, { agent, ...(target.host ? { headers: { host: target.host } } : {}) }, (response) => {
        let length = 0;
        response.on('data', (chunk: Buffer) => (length += chunk.length));
        response.on('end', () => (response.statusCode === 200 && length === KiB ? resolve() : reject(new Error(`${target.name}: ${response.statusCode}, ${length} bytes`))));
      })
      .on('error', reject);
  });
}

async function measure(target: Target): Promise<Figures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const best: Figures = { rate: 0 };
  try {
    for (let round = -1; round < ROUNDS; round++) {
      const count = round < 0 ? 500 : target.requests;
      const pids = target.pids();
      const before = cpuMicros(pids);
      const start = process.hrtime.bigint();
      await pool(count, CONCURRENCY, () => get(agent, target));
      const rate = count / seconds(start);
      const after = cpuMicros(pids);
      if (round < 0) continue;
      best.rate = Math.max(best.rate, rate);
      if (before !== undefined && after !== undefined) {
        const cpu = (sum(after) - sum(before)) / count;
        if (cpu < (best.cpu ?? Infinity)) {
          best.cpu = cpu;
          best.byProcess = Object.fromEntries([...after].map(([name, micros]) => [name, (micros - (before.get(name) ?? 0)) / count]));
        }
      }
    }
  } finally {
    agent.destroy();
  }
  return best;
}

/** A child process from the project's root that prints a line matching `ready`. */
function started(args: string[], env: NodeJS.ProcessEnv, ready: RegExp, cwd = root): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = ready.exec(output);
      if (match) resolve({ child, match, output: () => output });
    };
    child.stdout!.setEncoding('utf8').on('data', (text: string) => ((output += text), check()));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} ended (exit ${code}):\n${output}`)));
  });
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** Runs wrangler against the platform; resolves with its output, rejects when it fails. */
function wrangler(args: string[], cwd: string, api: string): Promise<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CLOUDFLARE_'))) as Record<string, string>;
  const child = spawn(process.execPath, [path.join(root, 'node_modules/wrangler/bin/wrangler.js'), ...args], {
    cwd,
    env: { ...env, CLOUDFLARE_API_BASE_URL: api, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: HOME_ACCOUNT_ID, XDG_CONFIG_HOME: path.join(cwd, '.config'), WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
  return new Promise((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(' ')} failed (exit ${code}):\n${output}`)))));
}

/** The id of a script's latest deployment, or undefined when it has none. */
async function latestDeployment(api: string, script: string): Promise<string | undefined> {
  const response = await fetch(`${api}/accounts/${HOME_ACCOUNT_ID}/workers/scripts/${script}/deployments`, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (!response.ok) return undefined;
  const body = (await response.json()) as { result: { deployments: { id: string; created_on: string }[] } };
  return [...body.result.deployments].sort((a, b) => b.created_on.localeCompare(a.created_on))[0]?.id;
}

/** Resolves with the time the API first shows a deployment other than `before` (polled every 10 ms). */
async function deploymentChanged(api: string, script: string, before: string | undefined): Promise<bigint> {
  for (;;) {
    const latest = await latestDeployment(api, script);
    if (latest !== undefined && latest !== before) return process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Asks the edge until `answered` holds for its answer; resolves with the time it first did. */
async function firstServed(edge: string, host: string, requestPath: string, answered: (status: number, body: string) => boolean): Promise<bigint> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      http
        .get(`${edge}${requestPath}`, { headers: { host }, agent: false }, (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve(answered(response.statusCode!, body)));
        })
        .on('error', () => resolve(false));
    });
    if (ok) return process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function run(): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'bench-workers-'));
  const dataDir = path.join(scratch, 'data');
  const targets: Target[] = [];
  try {
    // One bucket with the object, for the platform and `npm run worker` alike.
    const catalogue = new BucketCatalogue(dataDir);
    await catalogue.create('bench');
    await catalogue.create('my-bucket');
    const bucket = await catalogue.open('bench');
    const payload = Buffer.alloc(KiB, 7);
    await bucket.put(KEY, payload);
    await bucket.close();
    await catalogue.close();

    const project = path.join(scratch, 'reader');
    mkdirSync(project);
    writeFileSync(path.join(project, 'index.js'), READER);
    writeFileSync(
      path.join(project, 'wrangler.toml'),
      `name = "bench-reader"\nmain = "index.js"\naccount_id = "${HOME_ACCOUNT_ID}"\ncompatibility_date = "2026-07-01"\nworkers_dev = true\n\n[[r2_buckets]]\nbinding = "BUCKET"\nbucket_name = "bench"\n`,
    );

    // (a) npm start, then wrangler deploy.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', DATA_DIR: dataDir, API_TOKEN: TOKEN, LOG_LEVEL: 'warn' };
    const platform = await started(['scripts/start.mjs'], env, /^Ready on (\S+) \(pid \d+\)$/m);
    const urls = Object.fromEntries([...platform.output().matchAll(/^ {2}(api|edge) +(http:\/\/\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    const api = urls.api!;
    const edge = urls.edge!;
    targets.push({ name: 'npm start (wrangler deploy, edge)', url: `${edge}/`, host: `bench-reader.${SUBDOMAIN}.workers.dev`, requests: REQUESTS, pids: () => tree(platform.child.pid!), stop: () => stopped(platform.child) });
    const subdomain = await fetch(`${api}/accounts/${HOME_ACCOUNT_ID}/workers/subdomain`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subdomain: SUBDOMAIN }),
    });
    if (!subdomain.ok) throw new Error(`the workers.dev subdomain: ${subdomain.status} ${await subdomain.text()}`);

    // The deployment's time: the reference worker, first deployed, then a new version of it.
    const reference = path.join(scratch, 'reference');
    cpSync(path.join(root, 'examples/reference-worker'), reference, { recursive: true });
    const toml = readFileSync(path.join(reference, 'wrangler.toml'), 'utf8').replace('main = "../../src/worker/reference/index.ts"', `main = "${path.join(root, 'src/worker/reference/index.ts')}"`);
    writeFileSync(path.join(reference, 'wrangler.toml'), toml);
    writeFileSync(path.join(reference, 'secrets.env'), 'AUTH_KEY_SECRET=bench-secret\n');
    const referenceHost = `reference-worker.${SUBDOMAIN}.workers.dev`;
    const deployTimes: { what: string; seconds: number; afterApi: number; wrangler: number }[] = [];
    for (const [what, marker] of [
      ['first deployment', 'first-marker'],
      ['a new version', 'second-marker'],
    ] as const) {
      const before = await latestDeployment(api, 'reference-worker');
      const start = process.hrtime.bigint();
      // The new version is told apart by the one key its allow list serves: allowed but absent,
      // the worker's own 404; any other version answers 403 (and nothing deployed, the edge's 404).
      const deploying = wrangler(['deploy', '--var', `ALLOW_LIST:${marker}`, '--secrets-file', 'secrets.env'], reference, api);
      const [served, answered] = await Promise.all([
        firstServed(edge, referenceHost, `/${marker}`, (status, body) => status === 404 && body === 'Object Not Found'),
        deploymentChanged(api, 'reference-worker', before),
      ]);
      await deploying;
      const ended = process.hrtime.bigint();
      deployTimes.push({ what, seconds: Number(served - start) / 1e9, afterApi: Number(served - answered) / 1e9, wrangler: Number(ended - start) / 1e9 });
    }

    await wrangler(['deploy'], project, api);
    await firstServed(edge, targets[0]!.host!, '/', (status) => status === 200);

    // (b) npm run worker over the same data directory.
    const host = await started(['--import', 'tsx', 'scripts/worker.ts', '--config', path.join(project, 'wrangler.toml'), '--port', '0', '--data-dir', dataDir], { ...process.env }, /(http:\/\/127\.0\.0\.1:\d+)/);
    targets.push({ name: 'npm run worker (in-process)', url: `${host.match[1]}/`, requests: REQUESTS, pids: () => tree(host.child.pid!), stop: () => stopped(host.child) });

    // (c) Miniflare, as wrangler dev serves it.
    const miniflare = new Miniflare({ log: new Log(LogLevel.WARN), modules: true, script: READER, r2Buckets: { BUCKET: 'bench' }, compatibilityDate: '2026-07-01', cf: false, r2Persist: path.join(scratch, 'miniflare') });
    const miniflareUrl = await miniflare.ready;
    await (await miniflare.getR2Bucket('BUCKET')).put(KEY, payload);
    targets.push({ name: 'Miniflare (wrangler dev)', url: miniflareUrl.href, requests: PEER_REQUESTS, pids: () => tree(process.pid).filter((pid) => pid !== process.pid && pid !== platform.child.pid && pid !== host.child.pid && !tree(platform.child.pid!).includes(pid)), stop: () => miniflare.dispose() });

    const figures = new Map<string, Figures>();
    for (const target of targets) figures.set(target.name, await measure(target));

    const [ours, inProcess, peer] = targets.map((target) => figures.get(target.name)!) as [Figures, Figures, Figures];
    console.log(`\nDeployed workers: ${round(REQUESTS)} GETs (Miniflare ${round(PEER_REQUESTS)}) of a worker reading a 1 KiB object, ${CONCURRENCY} in flight, best of ${ROUNDS}; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
    for (const target of targets) {
      const { rate, cpu, byProcess } = figures.get(target.name)!;
      const parts = byProcess && Object.keys(byProcess).length > 1 ? ` (${Object.entries(byProcess).filter(([, micros]) => micros >= 1).map(([name, micros]) => `${name} ${round(micros)}`).join(', ')})` : '';
      console.log(`  ${target.name.padEnd(36)} ${round(rate).padStart(7)}/s${cpu === undefined ? '' : `   CPU ${round(cpu)} µs per request${parts}`}`);
    }
    const met = (value: number, target: number) => (value >= target ? 'met' : 'NOT met');
    console.log(`  targets: >= 0.8x npm run worker: ${round(ours.rate / inProcess.rate, 2)}x (${met(ours.rate / inProcess.rate, 0.8)}); >= 2x Miniflare: ${round(ours.rate / peer.rate, 2)}x (${met(ours.rate / peer.rate, 2)})`);
    console.log('\n`wrangler deploy` of the reference worker, to the first request its new version answers through the edge:');
    for (const { what, seconds: took, afterApi, wrangler: whole } of deployTimes) {
      console.log(`  ${what.padEnd(18)} ${took.toFixed(2)} s   ${met(2 - took, 0)} (<= 2 s); ${afterApi.toFixed(2)} s after the API showed the deployment (<= 1 s: ${met(1 - afterApi, 0)}); wrangler itself ended after ${whole.toFixed(2)} s`);
    }
  } finally {
    for (const target of targets) await target.stop().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  }
}
