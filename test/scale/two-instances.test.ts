// Several server processes on one PostgreSQL database, sharing nothing else: what one writes
// the other reads at once, concurrent writes are neither lost nor doubled, a raced WAF
// migration happens once, and a killed instance loses no acknowledged write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { KNOWN_MIGRATIONS } from '../../src/store/schema/migrations';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { waitUntil } from '../support/wait';
import { ZONE_IDS } from '../store/contract/fixtures';
import { startInstance, type Instance } from './instances';

const CUSTOM = 'http_request_firewall_custom';
const MANAGED = 'http_request_firewall_managed';
const MIGRATION_FINISHED = 20305;

/**
 * 200 writes to one ruleset queue for one another: on a busy machine the last wait longer than
 * the default 5 s, and would get a 503 (busy, retry). These tests are about what the writes do,
 * not how fast, so the instances wait as long as it takes.
 */
const PATIENT = { DATABASE_LOCK_TIMEOUT_MS: '120000', DATABASE_CONNECT_TIMEOUT_MS: '120000' };

let cluster: PostgresCluster;
let databaseUrl: string;
let a: Instance;
let b: Instance;

beforeAll(async () => {
  cluster = await startPostgres();
  databaseUrl = await cluster.createDatabase('scale');
  // Both start on the empty database at once: they race to migrate and to seed it.
  [a, b] = await Promise.all([startInstance({ DATABASE_URL: databaseUrl, ...PATIENT }), startInstance({ DATABASE_URL: databaseUrl, ...PATIENT })]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await cluster?.stop();
});

interface RulesetBody {
  result: { id: string; version: string; rules: { id: string; version: string; description: string }[] };
}

/** An entry point of `count` distinct rules, so that concurrent patches each have a rule of their own. */
async function entryPointWithRules(through: Instance, zoneId: string, count: number) {
  const rules = Array.from({ length: count }, (_, i) => ({
    action: 'block' as const,
    expression: `http.request.uri.path eq "/r${i}"`,
    description: `rule ${i}`,
  }));
  return unwrap(through.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: zoneId, phase: CUSTOM } }, body: { rules } }));
}

function customEntryPoint(through: Instance, zoneId: string) {
  return unwrap(through.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: zoneId, phase: CUSTOM } } }));
}

function patchRule(through: Instance, zoneId: string, rulesetId: string, ruleId: string, description: string) {
  return through.fetch(`/zones/${zoneId}/rulesets/${rulesetId}/rules/${ruleId}`, { method: 'PATCH', body: JSON.stringify({ description }) });
}

/** Time for the tests of hundreds of queued writes on a loaded machine. */
const QUEUED_WRITES_TIMEOUT_MS = 120_000;

describe('two instances on one database', () => {
  it('started together, migrated and seeded the database once', async () => {
    expect(await cluster.query(databaseUrl, 'select name from store_migration')).toEqual(KNOWN_MIGRATIONS.map((name) => ({ name })));
    expect(await cluster.query(databaseUrl, 'select count(*)::int as n from accounts')).toEqual([{ n: 2 }]);
    expect(await cluster.query(databaseUrl, 'select count(*)::int as n from logpush_jobs')).toEqual([{ n: 2 }]);
  });

  it('reads through one instance what was written through the other, at once', async () => {
    const entry = await unwrap(a.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ZONE_IDS.pro, phase: MANAGED } } }));
    const rule = entry.rules![0]!;
    const patched = await unwrap(
      a.api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
        params: { path: { zone_id: ZONE_IDS.pro, ruleset_id: entry.id, rule_id: rule.id! } },
        body: { description: 'written through a' },
      }),
    );
    const seen = await unwrap(b.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ZONE_IDS.pro, phase: MANAGED } } }));
    expect(seen).toEqual(patched);
    expect(seen.rules![0]!.description).toBe('written through a');

    const created = await entryPointWithRules(b, ZONE_IDS.uriOverrides, 3);
    const listed = await unwrap(a.api.GET('/zones/{zone_id}/rulesets', { params: { path: { zone_id: ZONE_IDS.uriOverrides } } }));
    expect(listed.map((ruleset) => ruleset.id)).toContain(created.id);
    expect(await customEntryPoint(a, ZONE_IDS.uriOverrides)).toEqual(created);
  });

  it('applies 200 concurrent rule patches spread over both: one version each, in order, none lost', async () => {
    const created = await entryPointWithRules(a, ZONE_IDS.pro, 200);
    const start = Number(created.version);
    const responses = await Promise.all(
      created.rules!.map((rule, i) => patchRule(i % 2 === 0 ? a : b, ZONE_IDS.pro, created.id, rule.id!, `patched ${i}`)),
    );
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const answers = await Promise.all(responses.map((response) => response.json() as Promise<RulesetBody>));

    // Each patch got its own version, and the ruleset it answered holds exactly the patches up to it.
    const versions = answers.map((answer) => Number(answer.result.version));
    expect([...versions].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => start + 1 + i));
    for (const answer of answers) {
      const applied = answer.result.rules.filter((rule) => rule.description.startsWith('patched ')).length;
      expect(applied).toBe(Number(answer.result.version) - start);
    }

    const final = await customEntryPoint(b, ZONE_IDS.pro);
    expect(final.version).toBe(String(start + 200));
    expect(final.rules!.map((rule) => rule.description)).toEqual(Array.from({ length: 200 }, (_, i) => `patched ${i}`));
    expect(new Set(final.rules!.map((rule) => rule.version))).toEqual(new Set(['2']));
  }, QUEUED_WRITES_TIMEOUT_MS);

  it('completes a WAF migration raced from both instances once and only once', async () => {
    const config = await unwrap(
      a.api.GET('/zones/{zone_id}/waf_migration/config', { params: { path: { zone_id: ZONE_IDS.business }, query: { phase_two: '1' } } }),
    );
    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).fetch(`/zones/${ZONE_IDS.business}/rulesets/phases/${MANAGED}/entrypoint?waf_migration=pending&phase_two=1`, {
          method: 'PUT',
          body: JSON.stringify(config),
        }),
      ),
    );
    const bodies = await Promise.all(attempts.map((response) => response.json() as Promise<{ errors: { code: number }[] }>));
    expect(attempts.filter((response) => response.status === 200)).toHaveLength(1);
    const refused = bodies.filter((_, i) => attempts[i]!.status !== 200);
    expect(refused.map((body) => [body.errors[0]?.code])).toEqual(refused.map(() => [MIGRATION_FINISHED]));
    expect(attempts.filter((response) => response.status === 400)).toHaveLength(9);

    const status = await unwrap(b.api.GET('/zones/{zone_id}/waf_migration/status', { params: { path: { zone_id: ZONE_IDS.business } } }));
    expect(status.migration_state).toBe('finished');
    const entry = await unwrap(b.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ZONE_IDS.business, phase: MANAGED } } }));
    expect(entry.version).toBe('1');
  });

  it('loses no acknowledged write and leaves no half change when an instance is killed mid-write', async () => {
    const doomed = await startInstance({ DATABASE_URL: databaseUrl, ...PATIENT });
    const created = await entryPointWithRules(b, ZONE_IDS.enterprise, 300);
    const start = Number(created.version);
    const acknowledged = new Set<number>();
    let next = 0;
    let inFlight = 0;
    let inFlightAtKill = -1;
    const writer = async () => {
      while (next < created.rules!.length && inFlightAtKill < 0) {
        const i = next++;
        inFlight += 1;
        try {
          const response = await patchRule(doomed, ZONE_IDS.enterprise, created.id, created.rules![i]!.id!, `before the kill ${i}`);
          await response.json();
          if (response.status === 200) acknowledged.add(i);
        } catch {
          return; // the instance died under this request
        } finally {
          inFlight -= 1;
        }
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    await waitUntil('50 acknowledged writes before the kill', () => acknowledged.size >= 50, 30_000, 5);
    inFlightAtKill = inFlight;
    await doomed.kill();
    await Promise.all(writers);
    expect(inFlightAtKill).toBeGreaterThan(0);

    const after = await customEntryPoint(b, ZONE_IDS.enterprise);
    const changed = after.rules!.filter((rule) => rule.description!.startsWith('before the kill '));
    for (const i of acknowledged) {
      expect(after.rules![i]!.description).toBe(`before the kill ${i}`);
    }
    // Every change is whole: one version per changed rule, the changed rules at their second version.
    expect(Number(after.version)).toBe(start + changed.length);
    for (const rule of after.rules!) {
      expect(rule.version).toBe(rule.description!.startsWith('before the kill ') ? '2' : '1');
    }
    // Nothing the dead instance held blocks the survivors.
    const survivor = await patchRule(a, ZONE_IDS.enterprise, created.id, created.rules![299]!.id!, 'after the kill');
    expect(survivor.status).toBe(200);
    expect(((await survivor.json()) as RulesetBody).result.version).toBe(String(start + changed.length + 1));
  }, QUEUED_WRITES_TIMEOUT_MS);
});
