// The edge benchmark, in one run, with autocannon on loopback (32 connections): a worker that
// answers a constant (the worker host, in a process of its own) called
//   (a) directly;
//   (b) through `npm start`'s edge (the bundle, in a process of its own), as the origin of the Pro
//       zone `example.org` with no rules deployed;
//   (c) the same with the OWASP managed ruleset deployed at its defaults (every paranoia level,
//       threshold 40) and 100 custom rules that a benign request does not match;
//   (d) (c) with a log push job of the zone writing every request's entry to a bucket.
// Targets: (b) at least 80% of (a)'s requests per second; (c) at least 50% of (a), and its p99
// latency at most 2 ms above (a)'s; (d) at least 90% of (c) (a log push job costs at most 10%).
// Rounds alternate between the targets and the median round of each is reported, beside the
// load average (other work on the machine skews every figure alike), and the CPU time per request
// of the servers (the worker's process, and the platform's for the edge, from /proc), which a
// loaded machine changes much less than requests per second.
// Run: `npm run bench -- edge` (about two minutes).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../../test/support/ports';
import { quietEnv, root } from '../tools';

type CannonResult = autocannon.Result;

const CONNECTIONS = 32;
const WARM_UP_SECONDS = 2;
const MEASURE_SECONDS = 5;
const ROUNDS = 3;
const TOKEN = 'edge-bench-token';
const KEY = { id: 'EDGEBENCHKEY', secret: 'edge-bench-secret' };
const ZONE = '9d6991f5ca85bf43524971c922c4bcfc';
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f';
/** What a browser sends, so that the rules have headers to read. */
const HEADERS = {
  host: 'example.org',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br',
  cookie: 'sessionId=6f1c0a9e2b; theme=dark',
};
const PATH = '/products/42?ref=home&page=2';

const WORKER = `export default { async fetch() { return new Response('constant', { headers: { 'content-type': 'text/plain' } }); } };\n`;

interface Running {
  child: ChildProcess;
  stop(): Promise<void>;
}

function started(child: ChildProcess, ready: RegExp, label: string): Promise<{ running: Running; output: () => string }> {
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
  return new Promise((resolve, reject) => {
    const check = () => {
      if (ready.test(output)) resolve({ running: { child, stop: async () => void (child.kill('SIGTERM'), await once(child, 'close')) }, output: () => output });
    };
    child.stdout!.on('data', check);
    child.once('close', (code) => reject(new Error(`${label} ended (exit ${code}) before it was ready:\n${output}`)));
  });
}

/** 100 custom rules over what requests carry (paths, addresses, agents, queries, headers, cookies), none matching the benign request. */
function customRules() {
  const kinds = [
    (i: number) => `http.request.uri.path eq "/blocked/${i}"`,
    (i: number) => `ip.src in {192.0.2.${i % 250}/32 198.51.100.${i % 250}}`,
    (i: number) => `http.user_agent contains "badbot-${i}"`,
    (i: number) => `http.request.uri.query contains "attack${i}="`,
    (i: number) => `any(http.request.headers["x-probe-${i}"][*] ne "")`,
    (i: number) => `http.cookie contains "evil${i}="`,
    (i: number) => `starts_with(http.request.uri.path, "/private-${i}/")`,
    (i: number) => `http.request.method eq "PURGE" and http.request.uri.path contains "/cache-${i}"`,
    (i: number) => `lower(http.host) eq "blocked-${i}.example.org"`,
    (i: number) => `http.request.uri.path matches "^/wp-(admin|login)-${i}"`,
  ];
  return Array.from({ length: 100 }, (_, i) => ({ action: i % 4 === 0 ? 'log' : 'block', expression: kinds[i % kinds.length]!(i), description: `custom rule ${i}` }));
}

async function api(base: string, method: string, pathAndQuery: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${pathAndQuery}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathAndQuery} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

type Setup = 'none' | 'rules' | 'rules+logs';

/** Deploys what a target needs and waits until the edge judges by it (a poll and a read of the zone). */
async function configure(base: string, edge: string, setup: Setup, jobId: number): Promise<void> {
  const managed = setup === 'none' ? [] : [{ action: 'execute', expression: 'true', description: 'OWASP at its defaults', action_parameters: { id: OWASP, version: 'latest' } }];
  await api(base, 'PUT', `/zones/${ZONE}/rulesets/phases/http_request_firewall_managed/entrypoint`, { rules: managed });
  await api(base, 'PUT', `/zones/${ZONE}/rulesets/phases/http_request_firewall_custom/entrypoint`, { rules: setup === 'none' ? [] : customRules() });
  await api(base, 'PUT', `/zones/${ZONE}/logpush/jobs/${jobId}`, { enabled: setup === 'rules+logs' });
  // A probe the rules block tells when they apply.
  const probe = () => status(edge, '/blocked/10');
  const wanted = setup === 'none' ? 200 : 403;
  const deadline = Date.now() + 5_000;
  while ((await probe()) !== wanted) {
    if (Date.now() > deadline) throw new Error(`the edge did not apply the ${setup} setup within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 600));
}

/** A GET with the zone's Host (fetch cannot send one): its status. */
function status(base: string, pathAndQuery: string): Promise<number> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    http.get({ host: url.hostname, port: url.port, path: pathAndQuery, headers: { host: 'example.org' }, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    }).on('error', reject);
  });
}

function cannon(url: string, seconds: number): Promise<CannonResult> {
  return autocannon({ url: `${url}${PATH}`, connections: CONNECTIONS, duration: seconds, headers: HEADERS });
}

/** User + system CPU microseconds of a process, from /proc (clock ticks of 10 ms). */
function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  return (fields[11]! + fields[12]!) * 10_000;
}

const round = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (met: boolean) => (met ? 'target met' : 'TARGET MISSED');

function median(rounds: CannonResult[]): CannonResult {
  return [...rounds].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(rounds.length / 2)]!;
}

export async function run(): Promise<void> {
  console.log(`edge: ${CONNECTIONS} connections; ${ROUNDS} rounds of ${MEASURE_SECONDS} s per target (after ${WARM_UP_SECONDS} s of warm-up), the median round reported`);
  console.log(`${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start`);
  const directory = mkdtempSync(path.join(tmpdir(), 'edge-bench-'));
  const children: Running[] = [];
  try {
    writeFileSync(path.join(directory, 'worker.mjs'), WORKER);
    writeFileSync(path.join(directory, 'wrangler.toml'), 'name = "constant"\nmain = "worker.mjs"\ncompatibility_date = "2026-07-01"\n');
    const workerPort = await freePort();
    const worker = await started(
      spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'worker.ts'), '--config', path.join(directory, 'wrangler.toml'), '--port', String(workerPort), '--data-dir', path.join(directory, 'worker-data')], {
        cwd: root,
        env: { ...quietEnv, PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
      /127\.0\.0\.1:\d+/,
      'the worker host',
    );
    children.push(worker.running);
    writeFileSync(
      path.join(directory, 'platform.toml'),
      `[api]\nport = 0\n[s3]\nport = 0\naccess_keys = [{ id = "${KEY.id}", secret = "${KEY.secret}" }]\n[edge]\nport = 0\n\n[[edge.origins]]\nhostname = "example.org"\nupstream = "http://127.0.0.1:${workerPort}"\n`,
    );
    const platform = await started(
      spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
        cwd: directory,
        // Nothing of this shell's own settings (a PORT, a DATA_DIR, S3 keys) leaks in.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', API_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
      /^Ready on /m,
      'npm start',
    );
    children.push(platform.running);
    const base = /^ {2}api +(http:\/\/\S+)$/m.exec(platform.output())![1]!;
    const edge = /^ {2}edge +(http:\/\/\S+)$/m.exec(platform.output())![1]!;
    const direct = `http://127.0.0.1:${workerPort}`;

    // The seeded job of the zone writes elsewhere: off for the whole run; one of our own to a bucket.
    await api(base, 'PUT', `/zones/${ZONE}/logpush/jobs/1`, { enabled: false });
    await api(base, 'POST', `/accounts/${ACCOUNT}/r2/buckets`, { name: 'edge-bench-logs' });
    const job = (await api(base, 'POST', `/zones/${ZONE}/logpush/jobs`, {
      name: 'edge-bench',
      enabled: false,
      destination_conf: `r2://edge-bench-logs/http/{DATE}?account-id=${ACCOUNT}&access-key-id=${KEY.id}&secret-access-key=${KEY.secret}`,
      logpull_options: 'fields=RayID,ClientIP,ClientRequestHost,ClientRequestMethod,ClientRequestURI,EdgeResponseStatus,SecurityAction,SecurityRuleID,RequestHeaders,Cookies&timestamps=rfc3339',
    })) as { result: { id: number } };

    const targets: { key: string; label: string; url: string; setup?: Setup }[] = [
      { key: 'a', label: '(a) the worker, directly', url: direct },
      { key: 'b', label: '(b) the edge, no rules', url: edge, setup: 'none' },
      { key: 'c', label: '(c) the edge, OWASP + 100 custom rules', url: edge, setup: 'rules' },
      { key: 'd', label: '(d) (c) + a log push job', url: edge, setup: 'rules+logs' },
    ];
    const results = new Map<string, CannonResult[]>(targets.map((t) => [t.key, []]));
    /** CPU µs per request of the worker's and the platform's processes, each round. */
    const cpu = new Map<string, { worker: number; edge: number }[]>(targets.map((t) => [t.key, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const target of targets) {
        if (target.setup) await configure(base, edge, target.setup, job.result.id);
        await cannon(target.url, WARM_UP_SECONDS);
        const before = { worker: cpuMicros(worker.running.child.pid), edge: cpuMicros(platform.running.child.pid) };
        const result = await cannon(target.url, MEASURE_SECONDS);
        const count = Math.max(1, result.requests.total);
        cpu.get(target.key)!.push({ worker: (cpuMicros(worker.running.child.pid) - before.worker) / count, edge: (cpuMicros(platform.running.child.pid) - before.edge) / count });
        const trouble = result.non2xx + result.errors + result.timeouts;
        if (trouble > 0) throw new Error(`${target.label}: ${trouble} non-2xx answers, errors or timeouts`);
        results.get(target.key)!.push(result);
      }
    }
    const chosen = Object.fromEntries(targets.map((t) => [t.key, median(results.get(t.key)!)])) as Record<'a' | 'b' | 'c' | 'd', CannonResult>;
    for (const target of targets) {
      const m = chosen[target.key as 'a'];
      const spread = results.get(target.key)!.map((r) => round(r.requests.average)).join(' / ');
      console.log(`${target.label.padEnd(42)} ${round(m.requests.average).padStart(7)} req/s   p50 ${round(m.latency.p50, 1).padStart(5)} ms   p99 ${round(m.latency.p99, 1).padStart(5)} ms   (rounds: ${spread})`);
    }
    const cpuOf = (key: string) => {
      const rounds = [...cpu.get(key)!].sort((x, y) => x.worker + x.edge - (y.worker + y.edge));
      return rounds[Math.floor(rounds.length / 2)]!;
    };
    for (const target of targets) {
      const { worker: w, edge: e } = cpuOf(target.key);
      console.log(`${target.label.padEnd(42)} CPU per request: worker ${round(w)} µs + platform ${round(e)} µs = ${round(w + e)} µs`);
    }
    const cpuTotal = (key: string) => cpuOf(key).worker + cpuOf(key).edge;
    console.log(`CPU per request, (a) / (b): ${round((cpuTotal('a') / cpuTotal('b')) * 100)}%, (a) / (c): ${round((cpuTotal('a') / cpuTotal('c')) * 100)}%, (c) / (d): ${round((cpuTotal('c') / cpuTotal('d')) * 100)}% (the shares of throughput where CPU is what runs out)`);
    const share = (x: CannonResult, y: CannonResult) => x.requests.average / y.requests.average;
    const added = chosen.c.latency.p99 - chosen.a.latency.p99;
    console.log(`(b) / (a): ${round(share(chosen.b, chosen.a) * 100)}% (target at least 80%: ${verdict(share(chosen.b, chosen.a) >= 0.8)})`);
    console.log(`(c) / (a): ${round(share(chosen.c, chosen.a) * 100)}% (target at least 50%: ${verdict(share(chosen.c, chosen.a) >= 0.5)})`);
    console.log(`(c) p99 added to (a)'s: ${round(added, 1)} ms (target at most 2 ms: ${verdict(added <= 2)})`);
    console.log(`(d) / (c): ${round(share(chosen.d, chosen.c) * 100)}% (target at least 90%: ${verdict(share(chosen.d, chosen.c) >= 0.9)})`);
    console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
  } finally {
    await Promise.allSettled(children.reverse().map((child) => child.stop()));
    rmSync(directory, { recursive: true, force: true });
  }
}
