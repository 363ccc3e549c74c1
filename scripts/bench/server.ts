// Management API server benchmark, with autocannon on loopback, in one run, three workloads:
//   GET ruleset      getAccountRuleset of the OWASP core ruleset (64 rules, a 25 KB answer);
//   GET entry point  getZoneEntrypointRuleset of the Pro zone's managed phase (1 rule, ~1 KB);
//   PATCH rule       updateZoneRulesetRule toggling `enabled` of that execute rule (a real durable
//                    write, a new version each time);
// against
//   (a) the full server: request validation on, response validation off (as `npm start` runs);
//   (b) the full server with response validation on as well (as the tests run);
//   (c) the same work with no validator: Express routes over the same store, credentials and
//       checks (rule expression through the rules language, the executed ruleset read back);
//   (d) the Prism mock of generated/openapi.yaml (answers from the examples, validates requests);
//   (e) a bare Express app answering the same JSON body (the ceiling of this stack here);
//   (f) (e) with the server's validator in front and nothing else: the ceiling of any server
//       that validates with express-openapi-validator on this machine;
//   (g) the server exactly as `npm start` runs it: the esbuild bundle, configured by the
//       environment (LOG_LEVEL=warn: no log line per request), where (a) to (c) run from source
//       under tsx in this file's child processes;
//   (h) PATCH only: (e) plus the PATCH's durable write made with better-sqlite3 directly, the
//       same statements in one transaction (support/durable-write-floor.ts): the ceiling of any
//       server that keeps one transaction per durable write on this machine;
//   (i) PATCH only: (h) with the validator of (f) in front: the ceiling of any server that
//       also validates requests as this one must.
// Targets for (a): GET ruleset at least 90% of (e); GET entry point at least 70% of (e); PATCH rule
// at least 2.5x (d) and at least 40% of (e).
//
// Every server runs in a child process of its own and autocannon in this one: on 2 cores the
// server under test gets one core and the load generator the other. In-process, autocannon and
// the server would share one event loop and each would slow the other down by an amount that
// differs from target to target (Prism is a separate process anyway), so the ratios would lie.
// Run: `npm run bench -- server` (about five minutes).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import express, { type NextFunction, type Request, type Response } from 'express';
import pino from 'pino';
import { BucketCatalogue } from '../../src/bucket';
import { validate } from '../../src/filter';
import { basePath, createApp, CredentialRegistry, everything, sha256 } from '../../src/server';
import { documentValidator, warmUp } from '../../src/server/app';
import { openSqliteStore, type Store } from '../../src/store';
import { freePort } from '../../test/support/ports';
import { memoryField, resetPeakMemory } from '../../test/support/process-memory';
import { bin, quietEnv, root } from '../tools';
import { startInstance } from '../../test/scale/instances';
import { durableWriteFloorApp } from './support/durable-write-floor';
import { requestHeaders } from './support/request-headers';

type CannonRequest = autocannon.Request;
type CannonResult = autocannon.Result;

/** The full server's targets per workload: a share of bare Express, a multiple of Prism. */
const TARGETS: Record<WorkloadName, { shareOfBare: number; timesPrism?: number }> = {
  'GET ruleset': { shareOfBare: 0.9 },
  'GET entry point': { shareOfBare: 0.7 },
  'PATCH rule': { shareOfBare: 0.4, timesPrism: 2.5 },
};
const WARM_UP_SECONDS = 1;
const MEASURE_SECONDS = 3;
/**
 * The figures of one 2-core machine swing by tens of percent from one minute to the next, so
 * every (target, workload) is measured in each of several rounds, the targets taking turns, and
 * the median round is reported: a slow minute then costs every target alike.
 */
const ROUNDS = 3;
export const CONNECTIONS = 10;
export const TOKEN = 'bench-token-0123456789abcdefghijklmnopqrst';
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const OWASP = '4814384a9e5d4991b9815dcfc25d2f1f';
const PRO_ZONE = '9d6991f5ca85bf43524971c922c4bcfc';
const MANAGED_PHASE = 'http_request_firewall_managed';

type ServerKind = 'validated' | 'validated-responses' | 'no-validator' | 'bare' | 'validator-only' | 'durable-write' | 'validated-durable-write';
export type WorkloadName = 'GET ruleset' | 'GET entry point' | 'PATCH rule';
export const WORKLOADS: readonly WorkloadName[] = ['GET ruleset', 'GET entry point', 'PATCH rule'];

interface Running {
  /** Origin plus the prefix the API lives under (Prism serves the paths at its root). */
  base: string;
  /** The serving process, whose peak memory is reported. */
  pid: number;
  stop(): Promise<void>;
}

interface Target {
  label: string;
  start(): Promise<Running>;
  /** The workloads it answers, when not all. */
  only?: readonly WorkloadName[];
}

type TargetKey = 'validated' | 'responses' | 'noValidator' | 'prism' | 'bare' | 'validatorOnly' | 'bundle' | 'write' | 'validatedWrite';

interface Measurement {
  key: TargetKey;
  target: string;
  workload: WorkloadName;
  result: CannonResult;
}

/** The ids of the PATCH: the Pro zone's managed entry point and its OWASP execute rule. */
interface PatchIds {
  ruleset: string;
  rule: string;
}

export function workloads(ids: PatchIds): Record<WorkloadName, CannonRequest[]> {
  const rulePath = `/zones/${PRO_ZONE}/rulesets/${ids.ruleset}/rules/${ids.rule}`;
  const json = { 'content-type': 'application/json' };
  return {
    'GET ruleset': [{ method: 'GET', path: `/accounts/${ACCOUNT}/rulesets/${OWASP}` }],
    'GET entry point': [{ method: 'GET', path: `/zones/${PRO_ZONE}/rulesets/phases/${MANAGED_PHASE}/entrypoint` }],
    // Alternating bodies: every request really changes the rule.
    'PATCH rule': [
      { method: 'PATCH', path: rulePath, headers: json, body: '{"enabled":false}' },
      { method: 'PATCH', path: rulePath, headers: json, body: '{"enabled":true}' },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// The servers, each started in a child process (this file with `--serve <kind>`)

interface Credentials {
  registry: CredentialRegistry;
}

function credentials(): Credentials {
  const registry = new CredentialRegistry();
  registry.addToken(sha256(TOKEN), { name: 'bench', email: null, scope: everything });
  return { registry };
}

function envelope(result: unknown) {
  return { result, success: true, errors: [], messages: [] };
}

function failure(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ result: null, success: false, errors: [{ code, message }], messages: [] });
}

/** (c): the routes by hand over the same store, with the checks the handlers make, and no validator. */
function noValidatorApp(store: Store, { registry }: Credentials): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: '1mb' }));
  app.use(basePath, (req, res, next) => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !registry.findToken(token)) return failure(res, 403, 10000, 'Authentication error');
    next();
  });
  app.get(`${basePath}/accounts/:account_id/rulesets/:ruleset_id`, async (req, res) => {
    const { account_id, ruleset_id } = req.params;
    if (!(await store.accounts.get(account_id))) return failure(res, 404, 7003, 'Could not route');
    const ruleset = await store.rulesets.get({ account_id }, ruleset_id);
    if (!ruleset) return failure(res, 404, 7003, 'Could not route');
    res.json(envelope(ruleset));
  });
  app.get(`${basePath}/zones/:zone_id/rulesets/phases/:phase/entrypoint`, async (req, res) => {
    const { zone_id, phase } = req.params;
    if (!(await store.zones.get(zone_id))) return failure(res, 404, 7003, 'Could not route');
    const ruleset = await store.rulesets.getEntryPoint({ zone_id }, phase);
    if (!ruleset) return failure(res, 404, 10003, 'no entry point');
    res.json(envelope(ruleset));
  });
  app.patch(`${basePath}/zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id`, async (req, res, next) => {
    const { zone_id, ruleset_id, rule_id } = req.params;
    const zone = await store.zones.get(zone_id);
    if (!zone) return failure(res, 404, 7003, 'Could not route');
    try {
      const ruleset = await store.transaction(async (tx) => {
        const current = await tx.rulesets.get({ zone_id }, ruleset_id);
        const rule = current?.rules.find((r) => r.id === rule_id);
        if (!rule) throw new Error('no such rule');
        const merged = { ...rule, ...(req.body as object) };
        if (!validate(merged.expression).ok) throw new Error('bad expression');
        const executed = merged.action_parameters?.id;
        if (typeof executed === 'string' && !(await tx.rulesets.get({ account_id: zone.account.id }, executed))) {
          throw new Error('unknown managed ruleset');
        }
        return tx.rulesets.updateRule({ zone_id }, ruleset_id, rule_id, req.body);
      });
      res.json(envelope(ruleset));
    } catch (error) {
      next(error);
    }
  });
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => failure(res, 400, 10021, error.message));
  return app;
}

/** The answers of (e) and (f): the same results as the full server's, read once. */
async function fixedAnswers(store: Store) {
  const owasp = await store.rulesets.get({ account_id: ACCOUNT }, OWASP);
  const entryPoint = await store.rulesets.getEntryPoint({ zone_id: PRO_ZONE }, MANAGED_PHASE);
  return { owasp: envelope(owasp), entryPoint: envelope(entryPoint) };
}

/** (e): routing, body parsing and serialization of the same results, nothing else. */
async function bareApp(store: Store): Promise<express.Express> {
  const answers = await fixedAnswers(store);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: '1mb' }));
  app.get(`${basePath}/accounts/:account_id/rulesets/:ruleset_id`, (_req, res) => res.json(answers.owasp));
  app.get(`${basePath}/zones/:zone_id/rulesets/phases/:phase/entrypoint`, (_req, res) => res.json(answers.entryPoint));
  app.patch(`${basePath}/zones/:zone_id/rulesets/:ruleset_id/rules/:rule_id`, (_req, res) => res.json(answers.entryPoint));
  return app;
}

/** The server's validator (same document, same options), warmed up, without response validation. */
async function requestValidator() {
  const validator = documentValidator(false);
  await warmUp(validator);
  return validator;
}

/** (f): (e) with the server's validator (same document, same options) in front. */
async function validatorOnlyApp(store: Store): Promise<express.Express> {
  const answers = await fixedAnswers(store);
  const byOperation: Record<string, unknown> = {
    getAccountRuleset: answers.owasp,
    getZoneEntrypointRuleset: answers.entryPoint,
    updateZoneRulesetRule: answers.entryPoint,
  };
  const validator = await requestValidator();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: '1mb' }));
  app.use(validator);
  app.use(basePath, (req: Request & { openapi?: { schema?: { operationId?: string } } }, res) => {
    const answer = byOperation[req.openapi?.schema?.operationId ?? ''];
    if (!answer) return failure(res, 404, 7003, 'Could not route');
    res.json(answer);
  });
  app.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => failure(res, error.status ?? 500, 10021, error.message));
  return app;
}

async function serve(kind: ServerKind): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'server-bench-'));
  const store = await openSqliteStore({ dataDir });
  const creds = credentials();
  let app: express.Express;
  let closeFloor = () => {};
  if (kind === 'bare') app = await bareApp(store);
  else if (kind === 'validator-only') app = await validatorOnlyApp(store);
  else if (kind === 'no-validator') app = noValidatorApp(store, creds);
  else if (kind === 'durable-write' || kind === 'validated-durable-write') {
    const entryPoint = await store.rulesets.getEntryPoint({ zone_id: PRO_ZONE }, MANAGED_PHASE);
    if (!entryPoint) throw new Error('the Pro zone has no managed entry point');
    const validator = kind === 'validated-durable-write' ? await requestValidator() : undefined;
    const floor = durableWriteFloorApp(dataDir, entryPoint, validator);
    app = floor.app;
    closeFloor = floor.close;
  }
  else {
    const created = createApp({
      store,
      credentials: creds.registry,
      buckets: new BucketCatalogue(dataDir),
      logger: pino({ level: 'silent' }),
      validateResponses: kind === 'validated-responses',
    });
    await created.ready;
    app = created.app;
  }
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.once('disconnect', () => {
    server.closeAllConnections();
    server.close(() => {
      closeFloor();
      void store.close().finally(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
    });
  });
}

const thisFile = fileURLToPath(import.meta.url);

function childServer(kind: ServerKind): Target['start'] {
  return async () => {
    // fork() reuses this process's execArgv, so the child runs under tsx as this one does.
    const child = fork(thisFile, ['--serve', kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message) => resolve((message as { port: number }).port));
      child.once('exit', (code) => reject(new Error(`the ${kind} server exited (code ${code}) before listening`)));
    });
    return { base: `http://127.0.0.1:${port}${basePath}`, pid: child.pid!, stop: () => stopChild(child, () => child.disconnect()) };
  };
}

function stopChild(child: ChildProcess, ask: () => void): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    ask();
  });
}

/** (g): `node scripts/start.mjs` (what `npm start` runs: the bundle) on a new data directory. */
async function startBundle(): Promise<Running> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'server-bench-bundle-'));
  const instance = await startInstance({ API_TOKEN: TOKEN, DATA_DIR: dataDir }, 'bundle');
  const stop = async () => {
    await instance.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { base: instance.baseUrl, pid: instance.child.pid!, stop };
}

async function startPrism(): Promise<Running> {
  const port = await freePort();
  const child = spawn(bin('prism'), ['mock', 'generated/openapi.yaml', '--port', String(port), '--host', '127.0.0.1'], {
    cwd: root,
    env: quietEnv,
    // Prism logs every request; the pipe is drained and dropped.
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Prism exited (code ${child.exitCode}) before listening`);
    const answered = await fetch(`${base}/filters/validate-expr?expression=ssl`, { headers: { authorization: `Bearer ${TOKEN}` } }).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline) throw new Error('Prism did not start within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { base, pid: child.pid!, stop: () => stopChild(child, () => child.kill('SIGTERM')) };
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** One request of each workload must succeed, or the figures would be those of an error path. */
async function checkAnswers(label: string, base: string, requests: CannonRequest[]): Promise<void> {
  for (const request of requests) {
    const response = await fetch(`${base}${request.path}`, {
      method: request.method,
      headers: requestHeaders(`Bearer ${TOKEN}`, request.headers),
      ...(request.body ? { body: request.body } : {}),
    });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${label}: ${request.method} ${request.path} answered ${response.status}: ${body.slice(0, 300)}`);
  }
}

async function measure(base: string, requests: CannonRequest[], duration: number): Promise<CannonResult> {
  const url = new URL(base);
  // autocannon joins each request's path to the origin; the API prefix goes into the paths.
  const prefixed = requests.map((r) => ({ ...r, path: `${url.pathname.replace(/\/$/, '')}${r.path}` }));
  return autocannon({
    url: url.origin,
    connections: CONNECTIONS,
    duration,
    headers: { authorization: `Bearer ${TOKEN}` },
    requests: prefixed,
  });
}

export async function patchIds(base: string): Promise<PatchIds> {
  const response = await fetch(`${base}/zones/${PRO_ZONE}/rulesets/phases/${MANAGED_PHASE}/entrypoint`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  type EntryPoint = { id: string; rules: { id: string; action: string; action_parameters?: { id?: string } }[] };
  const { result } = (await response.json()) as { result: EntryPoint };
  const rule = result.rules.find((r) => r.action === 'execute' && r.action_parameters?.id === OWASP);
  if (!rule) throw new Error('the Pro zone has no OWASP execute rule');
  return { ruleset: result.id, rule: rule.id };
}

const targets: Record<TargetKey, Target> = {
  validated: { label: '(a) full server, request validation', start: childServer('validated') },
  responses: { label: '(b) full server, + response validation', start: childServer('validated-responses') },
  noValidator: { label: '(c) same work, no validator', start: childServer('no-validator') },
  prism: { label: '(d) Prism mock', start: startPrism },
  bare: { label: '(e) bare Express, same JSON', start: childServer('bare') },
  validatorOnly: { label: '(f) Express + validator, fixed answers', start: childServer('validator-only') },
  bundle: { label: '(g) npm start (bundle, LOG_LEVEL=warn)', start: startBundle },
  write: { label: '(h) bare Express + the durable write', start: childServer('durable-write'), only: ['PATCH rule'] },
  validatedWrite: { label: '(i) Express + validator + the write', start: childServer('validated-durable-write'), only: ['PATCH rule'] },
};

const answers = (key: TargetKey, workload: WorkloadName) => targets[key].only?.includes(workload) ?? true;

const round = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (met: boolean) => (met ? 'target met' : 'TARGET MISSED');

function printRow(m: Measurement, rounds: CannonResult[]): void {
  const { result } = m;
  const trouble = rounds.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
  const spread = rounds.map((r) => round(r.requests.average)).join(' / ');
  console.log(
    `${m.target.padEnd(41)} ${m.workload.padEnd(15)} ${round(result.requests.average).padStart(8)} req/s` +
      `   p50 ${round(result.latency.p50, 1).padStart(5)} ms   p99 ${round(result.latency.p99, 1).padStart(5)} ms   (rounds: ${spread})` +
      (trouble > 0 ? `   ${trouble} non-2xx, errors or timeouts` : ''),
  );
}

/** The round with the median throughput. */
function medianRound(rounds: CannonResult[]): CannonResult {
  return [...rounds].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(rounds.length / 2)]!;
}

export async function run(): Promise<void> {
  console.log(
    `management API server: ${CONNECTIONS} connections; ${ROUNDS} rounds of ${MEASURE_SECONDS} s per target and workload ` +
      `(after ${WARM_UP_SECONDS} s of warm-up), the median round reported; each server in its own process, autocannon in this one`,
  );
  // Other work on the machine skews the figures: say how busy it was.
  console.log(`${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start`);
  // Every server runs for the whole benchmark (an idle one costs nothing), so rounds can alternate.
  const running = new Map<TargetKey, Running>();
  const rounds = new Map<string, CannonResult[]>();
  const results: Measurement[] = [];
  try {
    for (const [key, target] of Object.entries(targets) as [TargetKey, Target][]) running.set(key, await target.start());
    const ids = await patchIds(running.get('validated')!.base);
    const work = workloads(ids);
    for (const [key, server] of running) {
      for (const workload of WORKLOADS.filter((w) => answers(key, w))) {
        await checkAnswers(targets[key].label, server.base, work[workload]);
        await measure(server.base, work[workload], WARM_UP_SECONDS);
      }
    }
    // Peak resident memory under the GET load alone: the kernel's high-water mark, reset before
    // each pass's GET rounds and read after them (the PATCH rounds come last in a pass).
    const getPeaks = new Map<TargetKey, number>();
    const gets = WORKLOADS.filter((workload) => workload.startsWith('GET'));
    for (let pass = 0; pass < ROUNDS; pass += 1) {
      for (const server of running.values()) resetPeakMemory(server.pid);
      for (const workload of WORKLOADS) {
        if (workload === WORKLOADS[gets.length]) {
          for (const [key, server] of running) getPeaks.set(key, Math.max(getPeaks.get(key) ?? 0, memoryField(server.pid, 'VmHWM')));
        }
        for (const [key, server] of running) {
          if (!answers(key, workload)) continue;
          const id = `${key} ${workload}`;
          rounds.set(id, [...(rounds.get(id) ?? []), await measure(server.base, work[workload], MEASURE_SECONDS)]);
        }
      }
    }
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0).padStart(5)} MiB`;
    for (const [key, server] of running) {
      // The last pass's PATCH rounds on top of the GET peak: a write's own peak, where higher.
      const lastPass = memoryField(server.pid, 'VmHWM');
      console.log(`peak memory ${targets[key].label.padEnd(40)} GET load ${mib(getPeaks.get(key)!)}   last pass with PATCH ${mib(lastPass)}`);
    }
    const share = (key: TargetKey) => `${round((getPeaks.get(key)! / getPeaks.get('bare')!) * 100)}%`;
    console.log(
      `peak memory under the GET load: the full server ${mib(getPeaks.get('validated')!).trim()} (${share('validated')} of bare Express's ${mib(getPeaks.get('bare')!).trim()}), ` +
        `npm start's bundle ${mib(getPeaks.get('bundle')!).trim()} (${share('bundle')}), Express + validator ${mib(getPeaks.get('validatorOnly')!).trim()} (${share('validatorOnly')})`,
    );
  } finally {
    await Promise.all([...running.values()].map((server) => server.stop()));
  }
  for (const key of Object.keys(targets) as TargetKey[]) {
    for (const workload of WORKLOADS.filter((w) => answers(key, w))) {
      const all = rounds.get(`${key} ${workload}`)!;
      const measurement = { key, target: targets[key].label, workload, result: medianRound(all) };
      results.push(measurement);
      printRow(measurement, all);
    }
  }

  const rate = (key: TargetKey, workload: WorkloadName) =>
    results.find((m) => m.key === key && m.workload === workload)!.result.requests.average;
  console.log('');
  for (const workload of WORKLOADS) {
    const full = rate('validated', workload);
    const shareOfBare = full / rate('bare', workload);
    const timesPrism = full / rate('prism', workload);
    const target = TARGETS[workload];
    const bareVerdict = verdict(shareOfBare >= target.shareOfBare);
    const prismTarget = target.timesPrism;
    const prismVerdict = prismTarget === undefined ? 'no target' : `target >= ${prismTarget}x: ${verdict(timesPrism >= prismTarget)}`;
    console.log(
      `${workload}: full validation = ${round(shareOfBare * 100)}% of bare Express (target >= ${target.shareOfBare * 100}%: ${bareVerdict}), ` +
        `${round(timesPrism, 2)}x Prism (${prismVerdict}); ` +
        `response validation costs ${round((1 - rate('responses', workload) / full) * 100)}%, ` +
        `the validator ${round((1 - full / rate('noValidator', workload)) * 100)}% against the same work without it; ` +
        `Express + validator alone reach ${round(rate('validatorOnly', workload) / rate('prism', workload), 2)}x Prism ` +
        `(${round((rate('validatorOnly', workload) / rate('bare', workload)) * 100)}% of bare Express); ` +
        `npm start's bundle: ${round((rate('bundle', workload) / rate('bare', workload)) * 100)}% of bare Express, ` +
        `${round(rate('bundle', workload) / rate('prism', workload), 2)}x Prism` +
        floorSummary(workload),
    );
  }

  /** What (h) and (i) say of the target: a ceiling below it means no server making the same write meets it here. */
  function floorSummary(workload: WorkloadName): string {
    if (!answers('write', workload)) return '';
    const target = TARGETS[workload].shareOfBare;
    const share = (key: TargetKey) => rate(key, workload) / rate('bare', workload);
    const reach = (key: TargetKey) => (share(key) < target ? `below the ${target * 100}% target` : 'at or above the target');
    return (
      `; the durable write alone (h): ${round(share('write') * 100)}% of bare Express (${reach('write')}), ` +
      `with the validator (i): ${round(share('validatedWrite') * 100)}% (${reach('validatedWrite')}); ` +
      `the full server reaches ${round((rate('validated', workload) / rate('validatedWrite', workload)) * 100)}% of (i)`
    );
  }
}

const [, entry, flag, kind] = process.argv;
if (entry && import.meta.url === pathToFileURL(entry).href) {
  if (flag === '--serve') await serve(kind as ServerKind);
  else await run();
}
