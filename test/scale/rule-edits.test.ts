// Rules added and deleted one at a time, at once, through two server processes on one
// PostgreSQL database: no change is lost, each write makes exactly one version, and every
// version is kept once, immutable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { ZONE_IDS } from '../store/contract/fixtures';
import { startInstance, type Instance } from './instances';

const CUSTOM = 'http_request_firewall_custom';
/** The writes queue for one another; these tests are about what they do, not how fast. */
const PATIENT = { DATABASE_LOCK_TIMEOUT_MS: '120000', DATABASE_CONNECT_TIMEOUT_MS: '120000' };

let cluster: PostgresCluster;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  cluster = await startPostgres();
  const databaseUrl = await cluster.createDatabase('rule_edits');
  a = await startInstance({ DATABASE_URL: databaseUrl, ...PATIENT });
  b = await startInstance({ DATABASE_URL: databaseUrl, ...PATIENT });
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await cluster?.stop();
});

const block = (path: string) => ({ action: 'block' as const, expression: `http.request.uri.path eq "${path}"`, description: path });

describe('single-rule writes from two instances', () => {
  it('keeps every rule added and removes every rule deleted, one version per write', async () => {
    const zone_id = ZONE_IDS.business;
    const start = await unwrap(
      a.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
        params: { path: { zone_id, phase: CUSTOM } },
        body: { rules: Array.from({ length: 10 }, (_, i) => block(`/old${i}`)) },
      }),
    );
    const ruleset_id = start.id;
    const adds = Array.from({ length: 20 }, (_, i) =>
      unwrap((i % 2 === 0 ? a : b).api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', { params: { path: { zone_id, ruleset_id } }, body: block(`/new${i}`) })),
    );
    const deletes = start.rules!.map((rule, i) =>
      unwrap(
        (i % 2 === 0 ? b : a).api.DELETE('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', { params: { path: { zone_id, ruleset_id, rule_id: rule.id! } } }),
      ),
    );
    const answers = await Promise.all([...adds, ...deletes]);
    // Every answer is a different version: no two writes were folded into one.
    expect(new Set(answers.map((answer) => answer.version)).size).toBe(30);

    const final = await unwrap(b.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path: { zone_id, ruleset_id } } }));
    expect(final.version).toBe(String(Number(start.version) + 30));
    expect(final.rules!.map((rule) => rule.description).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `/new${i}`).sort());

    const versions = await unwrap(a.api.GET('/zones/{zone_id}/rulesets/{ruleset_id}/versions', { params: { path: { zone_id, ruleset_id } } }));
    expect(versions.map((v) => Number(v.version))).toEqual(Array.from({ length: 31 }, (_, i) => Number(start.version) + i));
    // Each version holds exactly the rules of its moment: one more or one fewer than the one before.
    let previous = start.rules!.length;
    for (const version of versions.slice(1)) {
      const at = await unwrap(
        (Number(version.version) % 2 ? a : b).api.GET('/zones/{zone_id}/rulesets/{ruleset_id}/versions/{ruleset_version}', {
          params: { path: { zone_id, ruleset_id, ruleset_version: version.version } },
        }),
      );
      expect(Math.abs(at.rules!.length - previous)).toBe(1);
      previous = at.rules!.length;
    }
    expect(previous).toBe(20);
  }, 180_000);
});
