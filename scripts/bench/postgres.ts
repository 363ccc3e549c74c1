// Store engines under the management API, with autocannon on loopback, in one run: a GET of a
// ruleset (getAccountRuleset of the OWASP ruleset, 64 rules) and a PATCH of a rule
// (updateZoneRulesetRule toggling `enabled` of the Pro zone's execute rule: a real write, a new
// version each time, every write on the same ruleset) against
//   (a) one server on SQLite (the default store, WAL, synchronous=NORMAL): the baseline;
//   (b) one server on PostgreSQL;
//   (c) two servers on the same PostgreSQL database, autocannon spreading its connections over both;
//   (d), (e) as (b) and (c) with synchronous_commit=off set through the database URL.
// Servers run as `npm start` runs them (child processes configured by the environment). PostgreSQL
// is a throwaway server on disk with its default durability (every commit flushed to disk before
// it is acknowledged) except in (d) and (e). Writes to one ruleset queue on that ruleset's lock,
// held until the commit is flushed, so the flush time bounds the PATCH of one rule; a third workload
// (`PATCH zones`) gives each connection a zone of its own (one connection per seeded zone), whose
// writes wait on no other's: (c)/(b) shows what a second instance adds to writes of different zones.
// On 2 cores the instances, PostgreSQL and autocannon share the same two cores: (c) shows what a
// second instance costs or gains on one machine, not what it gains on a machine of its own.
// Run: `npx tsx scripts/bench/postgres.ts` (about two minutes).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OWASP_RULESET_ID } from '../../fixtures/generator/owasp';
import { MAIN_ACCOUNT_ID, ZONE_IDS } from '../../fixtures/generator/zones';
import { instanceToken, startInstance, type Instance } from '../../test/scale/instances';
import { startPostgres, type PostgresCluster } from '../../test/support/postgres';
import autocannon from 'autocannon';
import { requestHeaders } from './support/request-headers';

type CannonRequest = autocannon.Request;
type CannonResult = autocannon.Result;

const WARM_UP_SECONDS = 1;
const MEASURE_SECONDS = 4;
const ROUNDS = 2;
const CONNECTIONS = 10;
const ACCOUNT = MAIN_ACCOUNT_ID;
const OWASP = OWASP_RULESET_ID;
const PRO_ZONE = ZONE_IDS.pro;
const MANAGED_PHASE = 'http_request_firewall_managed';

const WORKLOADS = ['GET ruleset', 'PATCH rule', 'PATCH zones'] as const;
type WorkloadName = (typeof WORKLOADS)[number];

/** Commits acknowledged before they reach the disk: PostgreSQL's counterpart of SQLite's synchronous=NORMAL trade. */
const ASYNC_COMMIT = '?options=-c%20synchronous_commit%3Doff';

interface Setup {
  label: string;
  engine: 'sqlite' | 'postgres';
  instances: 1 | 2;
  /** Appended to the database URL. */
  urlSuffix?: string;
}

const setups: Setup[] = [
  { label: '(a) SQLite, one instance', engine: 'sqlite', instances: 1 },
  { label: '(b) PostgreSQL, one instance', engine: 'postgres', instances: 1 },
  { label: '(c) PostgreSQL, two instances', engine: 'postgres', instances: 2 },
  { label: '(d) as (b), asynchronous commit', engine: 'postgres', instances: 1, urlSuffix: ASYNC_COMMIT },
  { label: '(e) as (c), asynchronous commit', engine: 'postgres', instances: 2, urlSuffix: ASYNC_COMMIT },
];

async function startSetup(setup: Setup, cluster: PostgresCluster): Promise<{ instances: Instance[]; cleanUp(): void }> {
  if (setup.engine === 'sqlite') {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'postgres-bench-sqlite-'));
    return { instances: [await startInstance({ DATA_DIR: dataDir })], cleanUp: () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const url = `${await cluster.createDatabase('bench')}${setup.urlSuffix ?? ''}`;
  const instances = await Promise.all(Array.from({ length: setup.instances }, () => startInstance({ DATABASE_URL: url })));
  return { instances, cleanUp: () => undefined };
}

interface RuleTarget {
  zone: string;
  ruleset: string;
  rule: string;
}

/** Per connection, the requests it cycles through (connection i gets list i modulo their number). */
type Workload = CannonRequest[][];

/** Alternating bodies: every request really changes the rule. */
function toggleRule({ zone, ruleset, rule }: RuleTarget): CannonRequest[] {
  const rulePath = `/client/v4/zones/${zone}/rulesets/${ruleset}/rules/${rule}`;
  const json = { 'content-type': 'application/json' };
  return [
    { method: 'PATCH', path: rulePath, headers: json, body: '{"enabled":false}' },
    { method: 'PATCH', path: rulePath, headers: json, body: '{"enabled":true}' },
  ];
}

function workloads(target: RuleTarget, zoneTargets: RuleTarget[]): Record<WorkloadName, Workload> {
  return {
    'GET ruleset': [[{ method: 'GET', path: `/client/v4/accounts/${ACCOUNT}/rulesets/${OWASP}` }]],
    'PATCH rule': [toggleRule(target)],
    'PATCH zones': zoneTargets.map(toggleRule),
  };
}

/** The Pro zone's managed entry point and its OWASP execute rule, the target of the PATCH. */
async function patchTarget(instance: Instance): Promise<RuleTarget> {
  const response = await instance.fetch(`/zones/${PRO_ZONE}/rulesets/phases/${MANAGED_PHASE}/entrypoint`);
  type EntryPoint = { id: string; rules: { id: string; action: string; action_parameters?: { id?: string } }[] };
  const { result } = (await response.json()) as { result: EntryPoint };
  const rule = result.rules.find((r) => r.action === 'execute' && r.action_parameters?.id === OWASP);
  if (!rule) throw new Error('the Pro zone has no OWASP execute rule');
  return { zone: PRO_ZONE, ruleset: result.id, rule: rule.id };
}

/** A custom-phase entry point of one rule in every seeded zone: the targets of `PATCH zones`. */
async function zoneTargets(instance: Instance): Promise<RuleTarget[]> {
  const body = JSON.stringify({ rules: [{ action: 'block', expression: 'http.request.uri.path eq "/bench"' }] });
  return Promise.all(
    Object.values(ZONE_IDS).map(async (zone) => {
      const response = await instance.fetch(`/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`, { method: 'PUT', body });
      if (response.status !== 200) throw new Error(`PUT of zone ${zone}'s custom entry point answered ${response.status}: ${await response.text()}`);
      const { result } = (await response.json()) as { result: { id: string; rules: { id: string }[] } };
      return { zone, ruleset: result.id, rule: result.rules[0]!.id };
    }),
  );
}

/** One request of each workload through each instance must succeed, or the figures would be those of an error path. */
async function checkAnswers(label: string, instances: Instance[], workload: Workload): Promise<void> {
  for (const instance of instances) {
    for (const request of workload.flat()) {
      const response = await fetch(`${instance.origin}${request.path}`, {
        method: request.method,
        headers: requestHeaders(`Bearer ${instanceToken}`, request.headers),
        ...(request.body ? { body: request.body } : {}),
      });
      const body = await response.text();
      if (response.status !== 200) throw new Error(`${label}: ${request.method} ${request.path} answered ${response.status}: ${body.slice(0, 300)}`);
    }
  }
}

function measure(instances: Instance[], workload: Workload, duration: number): Promise<CannonResult> {
  let next = 0;
  return autocannon({
    // autocannon spreads connection i over url[i % n]; its published typings only know one url.
    url: instances.map((instance) => instance.origin) as unknown as string,
    // One list for all: the usual connections; one list each: a connection per list.
    connections: workload.length === 1 ? CONNECTIONS : workload.length,
    duration,
    headers: { authorization: `Bearer ${instanceToken}` },
    requests: workload[0]!,
    setupClient: (client) => client.setRequests(workload[next++ % workload.length]!),
  });
}

const round = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function printRow(label: string, workload: WorkloadName, result: CannonResult): void {
  const trouble = result.non2xx + result.errors + result.timeouts;
  console.log(
    `${label.padEnd(32)} ${workload.padEnd(12)} ${round(result.requests.average).padStart(7)} req/s` +
      `   p50 ${round(result.latency.p50, 1).padStart(6)} ms   p99 ${round(result.latency.p99, 1).padStart(6)} ms` +
      (trouble > 0 ? `   (${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts)` : ''),
  );
}

export async function run(): Promise<void> {
  console.log(
    `store engines under the API server: ${CONNECTIONS} connections, ${WARM_UP_SECONDS} s warm-up then ${MEASURE_SECONDS} s ` +
      `per setup and workload, in ${ROUNDS} interleaved rounds (the best of each kept); servers as child processes, autocannon in this one`,
  );
  // Other work on the machine skews the figures: say how busy it was.
  console.log(`${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start`);
  const cluster = await startPostgres({ durable: true });
  const running: { setup: Setup; instances: Instance[]; cleanUp(): void; requests: Record<WorkloadName, Workload> }[] = [];
  const best = new Map<string, CannonResult>();
  try {
    for (const setup of setups) {
      const started = await startSetup(setup, cluster);
      const target = await patchTarget(started.instances[0]!);
      running.push({ setup, ...started, requests: workloads(target, await zoneTargets(started.instances[0]!)) });
    }
    for (const { setup, instances, requests } of running) {
      for (const workload of WORKLOADS) await checkAnswers(setup.label, instances, requests[workload]);
    }
    // A burst of other work on the machine then spoils one round of a setup, not its figure.
    for (let pass = 1; pass <= ROUNDS; pass += 1) {
      for (const { setup, instances, requests } of running) {
        for (const workload of WORKLOADS) {
          await measure(instances, requests[workload], WARM_UP_SECONDS);
          const result = await measure(instances, requests[workload], MEASURE_SECONDS);
          const key = `${setup.label} ${workload}`;
          if (result.requests.average > (best.get(key)?.requests.average ?? -1)) best.set(key, result);
        }
      }
    }
  } finally {
    await Promise.all(running.flatMap(({ instances }) => instances.map((instance) => instance.stop())));
    for (const { cleanUp } of running) cleanUp();
    await cluster.stop();
  }

  for (const setup of setups) {
    for (const workload of WORKLOADS) printRow(setup.label, workload, best.get(`${setup.label} ${workload}`)!);
  }
  console.log('');
  const rate = (setup: number, workload: WorkloadName) => best.get(`${setups[setup]!.label} ${workload}`)!.requests.average;
  for (const workload of WORKLOADS) {
    const sqlite = rate(0, workload);
    const ratios = setups.slice(1).map((setup, i) => `${setup.label.slice(0, 3)} ${round(rate(i + 1, workload) / sqlite, 2)}x`);
    console.log(
      `${workload} against (a) SQLite: ${ratios.join(', ')}; a second instance: ` +
        `${round(rate(2, workload) / rate(1, workload), 2)}x (c/b), ${round(rate(4, workload) / rate(3, workload), 2)}x (e/d)`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
