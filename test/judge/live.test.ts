// The live judgment: deployments read from the store, compiled once per ruleset version, judged
// untraced exactly as traced, and refreshed in every process sharing the database when the store's
// change marker moves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Judgment, LiveDeployments, RulesetCompiler, judge, readDeployment, requestFields, type EdgeRequest, type ZoneDeployment } from '../../src/judge';
import { openSqliteStore, type Store } from '../../src/store';
import { PRO, ZONE_IDS, deploy, owaspRule } from '../simulator/helpers';
import { waitUntil } from '../support/wait';

const CUSTOM = 'http_request_firewall_custom';
const MANAGED = 'http_request_firewall_managed';

function request(path: string, query: string | null = null, extra: Partial<EdgeRequest> = {}): EdgeRequest {
  return {
    method: 'GET',
    target: { scheme: 'https', host: 'example.org', port: 443, explicitPort: false, rawPath: path, rawQuery: query, droppedFragment: null },
    version: 'HTTP/1.1',
    headers: [['Host', 'example.org'], ['User-Agent', 'curl/8.5.0']],
    cookies: [],
    body: '',
    bodySize: 0,
    clientIp: '203.0.113.7',
    timestampMs: Date.parse('2026-11-21T10:00:00Z'),
    rayId: '0123456789abcdef',
    ...extra,
  };
}

let dir: string;
let writer: Store;
let reader: Store;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'live-judge-'));
  writer = await openSqliteStore({ dataDir: dir });
  reader = await openSqliteStore({ dataDir: dir });
});
afterAll(async () => {
  await Promise.all([writer?.close(), reader?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function deploymentOf(store: Store, zoneId = PRO): Promise<ZoneDeployment> {
  return (await readDeployment(store, zoneId, new RulesetCompiler()))!;
}

describe('one judgment, traced or not', () => {
  it('decides the same: the OWASP score against the threshold, the rule that ended the request', async () => {
    await deploy(writer, MANAGED, [owaspRule({ level: 2, threshold: 25 })]);
    await deploy(writer, CUSTOM, [{ action: 'log', expression: 'true', description: 'Log all' }]);
    const deployment = await deploymentOf(writer);
    const attack = requestFields(request('/search', 'q=1%27%20union%20select%20password%20from%20users--'), {});
    const live = judge(deployment, attack, null);
    const traced = judge(deployment, attack, null, { trace: true });
    expect(live.phases).toEqual([]);
    expect(traced.phases.map((phase) => phase.status)).toEqual(['evaluated', 'evaluated', 'not_reached']);
    expect(live.terminated).toEqual(traced.terminated);
    expect(live.terminated).toMatchObject({ status: 403, rule: { phase: MANAGED, action: 'block' } });
    expect(live.matched).toEqual(traced.matched);
    expect(live.scores).toEqual(traced.scores);
    expect(live.scores[0]!.score.total).toBeGreaterThan(25);
    const benign = judge(deployment, requestFields(request('/products'), {}), null);
    expect(benign.terminated).toBeNull();
    expect(benign.matched[0]!.description).toBe('Log all');
  });

  it('compiles a ruleset version once for every zone that runs it', async () => {
    const compiler = new RulesetCompiler();
    const pro = (await readDeployment(writer, PRO, compiler))!;
    await deploy(writer, MANAGED, [owaspRule({ level: 4 })]);
    const again = (await readDeployment(writer, PRO, compiler))!;
    const owasp = (d: ZoneDeployment) => d.phases.get(MANAGED)![0]!.executions.values().next().value!.target;
    expect(owasp(again)).toBe(owasp(pro));
    expect(again.phases.get(MANAGED)![0]!.compiled).not.toBe(pro.phases.get(MANAGED)![0]!.compiled);
  });

  it('reports a rule it cannot evaluate instead of passing over it (the edge answers 500)', async () => {
    // The store holds what a state file or an older version wrote; the API would refuse this expression.
    await deploy(writer, CUSTOM, [{ action: 'block', expression: 'http.request.uri.path eq', description: 'Broken' }]);
    const judgment = new Judgment(await deploymentOf(writer)).requestPhases(requestFields(request('/'), {}));
    expect(judgment.terminated).toBeNull();
    expect(judgment.failures).toHaveLength(1);
    expect(judgment.failures[0]!.rule.description).toBe('Broken');
    expect(judgment.failures[0]!.message).toContain('Filter parsing error');
    // A value of the wrong type for a field fails at run time, and is reported the same way.
    await deploy(writer, CUSTOM, [{ action: 'block', expression: 'ip.src.asnum eq 64500', description: 'ASN' }]);
    const wrongType = new Judgment(await deploymentOf(writer)).requestPhases(requestFields(request('/'), { 'ip.src.asnum': 'AS64500' }));
    expect(wrongType.failures[0]!.message).toMatch(/failed while evaluated: .*ip\.src\.asnum/);
  });
});

describe('live deployments', () => {
  it('reads a zone once, answers it without a promise, and null for a zone the store does not hold', async () => {
    const live = new LiveDeployments(reader);
    await live.start();
    try {
      const first = await live.get(PRO);
      expect(live.get(PRO)).toBe(first);
      expect(await live.get('00000000000000000000000000000000')).toBeNull();
    } finally {
      await live.close();
    }
  });

  it('applies a change another store (another process) writes, within a second, without being asked', async () => {
    await deploy(writer, CUSTOM, []);
    const live = new LiveDeployments(reader);
    await live.start();
    try {
      const verdict = () => {
        const deployment = live.get(PRO) as ZoneDeployment;
        return judge(deployment, requestFields(request('/admin'), {}), null).terminated?.rule.description ?? null;
      };
      await live.get(PRO);
      expect(verdict()).toBeNull();
      const written = Date.now();
      await deploy(writer, CUSTOM, [{ action: 'block', expression: 'http.request.uri.path eq "/admin"', description: 'No admin' }]);
      await waitUntil('the new rule to apply', () => verdict() === 'No admin', 1000, 10);
      expect(Date.now() - written).toBeLessThan(1000);
      // A zone still on the previous WAF runs no managed rules until its migration finishes.
      const managedActive = async () => ((await live.get(ZONE_IDS.business)) as ZoneDeployment).managedRulesActive;
      expect(await managedActive()).toBe(false);
      await writer.waf.transition(ZONE_IDS.business, { from: ['start'], to: 'finished', old_managed_rules_enabled: false, new_managed_rules_enabled: true });
      await waitUntil('the migration to apply', async () => (await managedActive()) === true, 1000, 10);
    } finally {
      await live.close();
    }
  });
});
