// The WAF migration state machine and rules 1-8 of the spec, over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { apiFailure, ids, startServer, type TestServer } from './harness';

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.stop();
});

const phase = 'http_request_firewall_managed';


const check = (zone_id: string) =>
  unwrap(server.api.GET('/zones/{zone_id}/waf_migration/check', { params: { path: { zone_id }, query: { phase_two: '1' } } }));
const config = (zone_id: string) =>
  unwrap(server.api.GET('/zones/{zone_id}/waf_migration/config', { params: { path: { zone_id }, query: { phase_two: '1' } } }));
const status = (zone_id: string) => unwrap(server.api.GET('/zones/{zone_id}/waf_migration/status', { params: { path: { zone_id } } }));

async function migrate(zone_id: string, waf_migration: 'pending' | '1' | 'validation' | '2', rules?: unknown[]) {
  const body = rules ? { name: 'default', rules } : await config(zone_id);
  return unwrap(
    server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
      params: { path: { zone_id, phase }, query: { waf_migration, phase_two: '1' } },
      body: body as never,
    }),
  );
}

describe('check and status', () => {
  it('reports compatible zones in state start, and false for URI-based overrides (rule 1)', async () => {
    expect(await check(ids.enterpriseZone)).toEqual({ compatible: true, migration_state: 'start' });
    expect(await check(ids.uriOverrideZone)).toEqual({ compatible: false, migration_state: 'start' });
    expect(await check(ids.proZone)).toEqual({ compatible: true, migration_state: 'finished' });
  });

  it('reports the previous WAF on, the new off, before migrating', async () => {
    expect(await status(ids.businessZone)).toEqual({
      migration_state: 'start',
      previous_managed_rules_enabled: true,
      new_managed_rules_enabled: false,
      validation_mode: false,
      paranoia_level: null,
    });
  });
});

describe('config', () => {
  it('derives the new configuration from the previous one (rules 4-6)', async () => {
    const result = await config(ids.enterpriseZone);
    expect(result.name).toBe('default');
    const executes = result.rules.filter((r) => r.action === 'execute');
    expect(executes.map((r) => r.action_parameters.id)).toEqual([ids.managed, ids.owasp]);
    const owasp = executes[1]!;
    expect(owasp).toMatchObject({ id: '', version: '', ref: '', expression: 'true', enabled: true });
    // PL2: the tags of levels 3 and 4 disabled; the previous medium sensitivity and block action.
    expect(owasp.action_parameters.overrides).toEqual({
      categories: [
        { category: 'paranoia-level-3', enabled: false },
        { category: 'paranoia-level-4', enabled: false },
      ],
      rules: [{ id: ids.owaspLastRule, score_threshold: 40, action: 'block' }],
    });
    // Firewall rules bypassing the WAF and page rules turning it off become skip rules first.
    const skips = result.rules.filter((r) => r.action === 'skip');
    expect(skips.length).toBeGreaterThanOrEqual(3);
    expect(skips.map((r) => r.expression)).toContain('(ip.src in {198.51.100.0/24 2001:db8:100::/48})');
    expect(skips.map((r) => r.expression)).toContain('http.request.full_uri wildcard "*example.com/wp-admin/*"');
    expect(result.rules.indexOf(skips[0]!)).toBeLessThan(result.rules.indexOf(executes[0]!));
  });
});

describe('the migration state machine', () => {
  it('finishes on a Business zone with waf_migration=pending: new on, old off, PL2 (rules 2, 6)', async () => {
    const ruleset = await migrate(ids.businessZone, 'pending');
    expect(ruleset.phase).toBe(phase);
    expect(ruleset.rules!.filter((r) => r.action === 'execute')).toHaveLength(2);
    expect(await status(ids.businessZone)).toEqual({
      migration_state: 'finished',
      previous_managed_rules_enabled: false,
      new_managed_rules_enabled: true,
      validation_mode: false,
      paranoia_level: 2,
    });
    // Irreversible: no second migration, and the entry point is now an ordinary one.
    const again = await apiFailure(migrate(ids.businessZone, '1'), 400);
    expect(again.codes).toEqual([20305]);
    expect(again.errors[0]!.message).toMatch(/irreversible/);
    const plain = await unwrap(
      server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
        params: { path: { zone_id: ids.businessZone, phase } },
        body: { rules: ruleset.rules!.map(({ last_updated: _l, ...rule }) => rule) as never },
      }),
    );
    expect(Number(plain.version)).toBe(Number(ruleset.version) + 1);
  });

  it('refuses validation mode outside Enterprise (rule 2)', async () => {
    const error = await apiFailure(migrate(ids.businessZone, 'validation'), 400);
    expect(error.codes).toEqual([20302]);
    expect(error.errors[0]!.message).toMatch(/Enterprise zones only/);
    expect((await status(ids.businessZone)).migration_state).toBe('start');
  });

  it('runs validation mode on Enterprise, then finishes with pending (rule 3)', async () => {
    await migrate(ids.enterpriseZone, '2');
    expect(await status(ids.enterpriseZone)).toMatchObject({
      migration_state: 'validation',
      previous_managed_rules_enabled: true,
      new_managed_rules_enabled: true,
      validation_mode: true,
    });
    // Without the parameter the managed entry point stays closed while validating.
    const closed = await apiFailure(
      unwrap(
        server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
          params: { path: { zone_id: ids.enterpriseZone, phase } },
          body: { rules: [] },
        }),
      ),
      400,
    );
    expect(closed.codes).toEqual([20306]);
    await migrate(ids.enterpriseZone, 'pending');
    expect(await status(ids.enterpriseZone)).toMatchObject({ migration_state: 'finished', previous_managed_rules_enabled: false, validation_mode: false });
  });

  it('refuses writing the managed entry point of a zone on the previous WAF without the parameter', async () => {
    const error = await apiFailure(
      unwrap(
        server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
          params: { path: { zone_id: ids.enterpriseZone, phase } },
          body: { rules: [{ action: 'execute', expression: 'true', action_parameters: { id: ids.owasp } }] },
        }),
      ),
      400,
    );
    expect(error.codes).toEqual([20306]);
    expect(error.errors[0]!.message).toMatch(/still uses the previous WAF managed rules.*waf_migration=pending/);
    const created = await apiFailure(
      unwrap(server.api.POST('/zones/{zone_id}/rulesets', { params: { path: { zone_id: ids.enterpriseZone } }, body: { name: 'x', kind: 'zone', phase } })),
      400,
    );
    expect(created.codes).toEqual([20306]);
  });

  it('refuses zones with URI-based overrides, more than 200 firewall rules, or a rule over 4 KB', async () => {
    const rules = [{ action: 'execute', expression: 'true', action_parameters: { id: ids.owasp } }];
    const incompatible = await apiFailure(migrate(ids.uriOverrideZone, 'pending', rules), 400);
    expect(incompatible.codes).toEqual([20301]);
    expect(incompatible.errors[0]!.message).toMatch(/URI-based WAF overrides; delete them first/);
    const many = await apiFailure(migrate(ids.manyRulesZone, 'pending', rules), 400);
    expect(many.codes).toEqual([20303]);
    expect(many.errors[0]!.message).toMatch(/230 firewall rules .* at most 200 .* contact support/);
    const long = await apiFailure(migrate(ids.longExpressionZone, 'pending', rules), 400);
    expect(long.codes).toEqual([20304]);
    expect(long.errors[0]!.message).toMatch(/longer than the 4 KB .* contact support/);
    for (const zone of [ids.uriOverrideZone, ids.manyRulesZone, ids.longExpressionZone]) {
      expect((await status(zone)).migration_state).toBe('start');
    }
  });

  it('requires phase_two=1 and the managed phase for waf_migration', async () => {
    const noPhaseTwo = await apiFailure(
      unwrap(
        server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
          params: { path: { zone_id: ids.businessZone, phase }, query: { waf_migration: 'pending' } },
          body: { rules: [] },
        }),
      ),
      400,
    );
    expect(noPhaseTwo.errors[0]!.message).toMatch(/phase_two=1 must accompany waf_migration/);
    const otherPhase = await apiFailure(
      unwrap(
        server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
          params: { path: { zone_id: ids.businessZone, phase: 'http_log_custom_fields' }, query: { waf_migration: 'pending', phase_two: '1' } },
          body: { rules: [] },
        }),
      ),
      400,
    );
    expect(otherPhase.errors[0]!.message).toMatch(/applies only to the http_request_firewall_managed entry point/);
  });

  it('migrates once when raced: exactly one of two concurrent requests wins', async () => {
    const body = await config(ids.businessZone);
    const attempt = () =>
      server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
        params: { path: { zone_id: ids.businessZone, phase }, query: { waf_migration: 'pending', phase_two: '1' } },
        body: body as never,
      });
    const results = await Promise.all([attempt(), attempt(), attempt()]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 400, 400]);
    const entry = await unwrap(server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.businessZone, phase } } }));
    expect(entry.version).toBe('1');
  });
});
