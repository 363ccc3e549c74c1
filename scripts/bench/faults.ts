// What rate limits and faults cost the management API when they are on, with autocannon on
// loopback, against the server with both off (the default, as `npm start` runs it) measured in
// the same run:
//   (a) both off: no rules, no rate limit (the baseline);
//   (b) 20 fault rules, none matching the workload (each request is tried against all 20);
//   (c) the rate limit on, with a budget the run never spends;
//   (d) both.
// Workload: getZoneEntrypointRuleset of the Pro zone's managed phase (~1 KB answer), the API's
// cheapest read, where a per-request cost shows most. Each server runs in a child process (the
// servers get one core, autocannon the other); rounds alternate the targets and the median round
// is reported. Run: `npm run bench -- faults` (about a minute).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pino from 'pino';
import { BucketCatalogue } from '../../src/bucket';
import { basePath, createApp, CredentialRegistry, everything, sha256 } from '../../src/server';
import { openSqliteStore } from '../../src/store';

type Kind = 'off' | 'rules' | 'rate-limit' | 'both';
const KINDS: Record<Kind, string> = {
  off: '(a) both off (default)',
  rules: '(b) 20 fault rules, none matching',
  'rate-limit': '(c) rate limit on',
  both: '(d) both',
};
const TOKEN = 'bench-token-0123456789abcdefghijklmnopqrst';
const PATH = '/zones/9d6991f5ca85bf43524971c922c4bcfc/rulesets/phases/http_request_firewall_managed/entrypoint';
const CONNECTIONS = 10;
const WARM_UP_SECONDS = 1;
const MEASURE_SECONDS = 3;
const ROUNDS = 5;

/** Rules on other operations: the step tries them all and lets the request through. */
const NON_MATCHING = Array.from({ length: 20 }, (_, i) => ({
  name: `other-${i}`,
  match: i % 2 === 0 ? { operationId: 'listZones' } : { method: 'DELETE', path: `/zones/*/rulesets/r${i}` },
  status: 503,
}));

async function serve(kind: Kind): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-bench-'));
  const store = await openSqliteStore({ dataDir });
  const credentials = new CredentialRegistry();
  credentials.addToken(sha256(TOKEN), { name: 'bench', email: 'user@example.com', scope: everything });
  const { app, ready } = createApp({
    buckets: new BucketCatalogue(dataDir),
    store,
    credentials,
    logger: pino({ level: 'silent' }),
    ...(kind === 'rules' || kind === 'both' ? { faultRules: { list: NON_MATCHING, source: 'bench' } } : {}),
    ...(kind === 'rate-limit' || kind === 'both' ? { rateLimit: { requests: 1_000_000_000, windowSeconds: 300 } } : {}),
  });
  await ready;
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.once('disconnect', () => {
    server.closeAllConnections();
    server.close(() => void store.close().finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }));
  });
}

const thisFile = fileURLToPath(import.meta.url);

async function start(kind: Kind): Promise<{ base: string; child: ChildProcess }> {
  // fork() reuses this process's execArgv, so the child runs under tsx as this one does.
  const child = fork(thisFile, ['--serve', kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the ${kind} server exited (code ${code}) before listening`)));
  });
  return { base: `http://127.0.0.1:${port}`, child };
}

function measure(base: string, duration: number): Promise<autocannon.Result> {
  return autocannon({ url: `${base}${basePath}${PATH}`, connections: CONNECTIONS, duration, headers: { authorization: `Bearer ${TOKEN}` } });
}

const round = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function run(): Promise<void> {
  console.log(`rate limits and faults: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${MEASURE_SECONDS} s per target (median round reported)`);
  console.log(`${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start`);
  const kinds = Object.keys(KINDS) as Kind[];
  const servers = new Map<Kind, { base: string; child: ChildProcess }>();
  const rounds = new Map<Kind, autocannon.Result[]>();
  try {
    for (const kind of kinds) servers.set(kind, await start(kind));
    for (const [kind, { base }] of servers) {
      const response = await fetch(`${base}${basePath}${PATH}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      if (response.status !== 200) throw new Error(`${KINDS[kind]} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
      await measure(base, WARM_UP_SECONDS);
    }
    for (let pass = 0; pass < ROUNDS; pass += 1) {
      for (const [kind, { base }] of servers) rounds.set(kind, [...(rounds.get(kind) ?? []), await measure(base, MEASURE_SECONDS)]);
    }
  } finally {
    for (const { child } of servers.values()) child.disconnect();
  }
  const median = (kind: Kind) => [...rounds.get(kind)!].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(ROUNDS / 2)]!;
  const baseline = median('off').requests.average;
  for (const kind of kinds) {
    const result = median(kind);
    const trouble = rounds.get(kind)!.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
    console.log(
      `${KINDS[kind].padEnd(36)} ${round(result.requests.average).padStart(7)} req/s  ${round((result.requests.average / baseline) * 100).padStart(4)}% of (a)` +
        `   p50 ${round(result.latency.p50, 1).padStart(5)} ms   p99 ${round(result.latency.p99, 1).padStart(5)} ms` +
        `   (rounds: ${rounds.get(kind)!.map((r) => round(r.requests.average)).join(' / ')})` +
        (trouble > 0 ? `   ${trouble} non-2xx, errors or timeouts` : ''),
    );
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
}

const [, entry, flag, kind] = process.argv;
if (entry && import.meta.url === pathToFileURL(entry).href) {
  if (flag === '--serve') await serve(kind as Kind);
  else await run();
}
