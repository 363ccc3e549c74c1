// Calls of the previous WAF's API and of the migration shared by the suites that drive them.
import { expect } from 'vitest';
import { unwrap } from '../../src/client';
import { ids, type TestServer } from './harness';

export const managedPhase = 'http_request_firewall_managed';

export function migrationCalls(server: TestServer) {
  const check = (zone_id: string) =>
    unwrap(server.api.GET('/zones/{zone_id}/waf_migration/check', { params: { path: { zone_id }, query: { phase_two: '1' } } }));
  const config = (zone_id: string) =>
    unwrap(server.api.GET('/zones/{zone_id}/waf_migration/config', { params: { path: { zone_id }, query: { phase_two: '1' } } }));
  const status = (zone_id: string) => unwrap(server.api.GET('/zones/{zone_id}/waf_migration/status', { params: { path: { zone_id } } }));
  /** The entry point PUT that migrates, with the zone's equivalent configuration unless rules are given. */
  const migrate = async (zone_id: string, waf_migration: 'pending' | '1' | 'validation' | '2', rules?: unknown[]) => {
    const body = rules ? { name: 'default', rules } : await config(zone_id);
    return unwrap(
      server.api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
        params: { path: { zone_id, phase: managedPhase }, query: { waf_migration, phase_two: '1' } },
        body: body as never,
      }),
    );
  };
  const entryPoint = (zone_id: string) =>
    server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: managedPhase } } });
  return { check, config, status, migrate, entryPoint };
}

/** The OWASP rule of a migration config (the execute rule of the OWASP ruleset). */
export function owaspRuleOf(config: { rules: { action: string; action_parameters?: unknown; enabled?: boolean }[] }) {
  const rule = config.rules.find((r) => r.action === 'execute' && (r.action_parameters as { id?: string }).id === ids.owasp);
  expect(rule).toBeDefined();
  const overrides = (rule!.action_parameters as { overrides: { rules: { score_threshold: number; action: string }[] } }).overrides;
  return { enabled: rule!.enabled, threshold: overrides.rules[0]!.score_threshold, action: overrides.rules[0]!.action };
}

/** One request for every previous-WAF operation on a zone, each answering its status. */
export function everyPreviousWafOperation(server: TestServer, zone_id: string, packageId: string, overrideId: string) {
  const pkg = { zone_id, package_id: packageId };
  const ovr = { zone_id, override_id: overrideId };
  const body = { urls: ['a.example/*'], rules: { '100015': 'disable' as const } };
  const calls: Record<string, () => Promise<{ response: Response; error?: unknown }>> = {
    listWafPackages: () => server.api.GET('/zones/{zone_id}/firewall/waf/packages', { params: { path: { zone_id } } }),
    getWafPackage: () => server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}', { params: { path: pkg } }),
    updateWafPackage: () =>
      server.api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}', { params: { path: pkg }, body: { sensitivity: 'low' } }),
    listWafGroups: () => server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups', { params: { path: pkg } }),
    getWafGroup: () =>
      server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups/{group_id}', {
        params: { path: { ...pkg, group_id: ids.owaspXssGroup } },
      }),
    updateWafGroup: () =>
      server.api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups/{group_id}', {
        params: { path: { ...pkg, group_id: ids.owaspXssGroup } },
        body: { mode: 'off' },
      }),
    listWafRules: () => server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules', { params: { path: pkg } }),
    getWafRule: () =>
      server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules/{waf_rule_id}', {
        params: { path: { ...pkg, waf_rule_id: '960015' } },
      }),
    updateWafRule: () =>
      server.api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules/{waf_rule_id}', {
        params: { path: { ...pkg, waf_rule_id: '960015' } },
        body: { mode: 'off' },
      }),
    listWafOverrides: () => server.api.GET('/zones/{zone_id}/firewall/waf/overrides', { params: { path: { zone_id } } }),
    getWafOverride: () => server.api.GET('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: ovr } }),
    createWafOverride: () => server.api.POST('/zones/{zone_id}/firewall/waf/overrides', { params: { path: { zone_id } }, body }),
    updateWafOverride: () => server.api.PUT('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: ovr }, body }),
    deleteWafOverride: () => server.api.DELETE('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: ovr } }),
  };
  return calls;
}

/** Every previous-WAF operation on the zone answers 410 with code 20307, naming the zone. */
export async function expectPreviousWafGone(server: TestServer, zone_id: string, packageId: string, overrideId: string) {
  const answers: Record<string, string> = {};
  for (const [operation, call] of Object.entries(everyPreviousWafOperation(server, zone_id, packageId, overrideId))) {
    const { response, error } = await call();
    const envelope = error as { success: boolean; result: unknown; errors: { code: number; message: string }[] };
    expect(envelope.success, operation).toBe(false);
    expect(envelope.result, operation).toBeNull();
    expect(envelope.errors[0]!.message, operation).toContain(zone_id);
    answers[operation] = `${response.status} ${envelope.errors.map((e) => e.code).join(',')}`;
  }
  expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((operation) => [operation, '410 20307'])));
  expect(Object.keys(answers)).toHaveLength(14);
}
