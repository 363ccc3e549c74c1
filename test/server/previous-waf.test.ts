// The previous WAF's API over HTTP (responses validated against the document): packages, groups,
// rules and URI-based overrides, their bad inputs, and how the migration follows them.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { unwrap } from '../../src/client';
import { apiFailure, ids, startServer, type TestServer } from './harness';
import { everyPreviousWafOperation, expectPreviousWafGone, migrationCalls, owaspRuleOf } from './previous-waf-helpers';

let server: TestServer;
let calls: ReturnType<typeof migrationCalls>;
beforeEach(async () => {
  server = await startServer();
  calls = migrationCalls(server);
});
afterEach(async () => {
  await server.stop();
});

const enterprise = ids.enterpriseZone;
const owasp = { zone_id: enterprise, package_id: ids.enterpriseOwaspPackage };
const managed = { zone_id: enterprise, package_id: ids.enterpriseManagedPackage };
const shop = ids.uriOverrideZone;

const packages = (zone_id: string, query: Record<string, unknown> = {}) =>
  server.api.GET('/zones/{zone_id}/firewall/waf/packages', { params: { path: { zone_id }, query } });
const patchPackage = (path: { zone_id: string; package_id: string }, body: object) =>
  server.api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}', { params: { path }, body: body as never });
const groups = (path: { zone_id: string; package_id: string }, query: Record<string, unknown> = {}) =>
  server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups', { params: { path, query } });
const group = (path: { zone_id: string; package_id: string }, group_id: string) =>
  server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups/{group_id}', { params: { path: { ...path, group_id } } });
const patchGroup = (path: { zone_id: string; package_id: string }, group_id: string, mode: string) =>
  server.api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups/{group_id}', {
    params: { path: { ...path, group_id } },
    body: { mode } as never,
  });
const rules = (path: { zone_id: string; package_id: string }, query: Record<string, unknown> = {}) =>
  server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules', { params: { path, query } });
const rule = (path: { zone_id: string; package_id: string }, waf_rule_id: string) =>
  server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules/{waf_rule_id}', { params: { path: { ...path, waf_rule_id } } });
const patchRule = (path: { zone_id: string; package_id: string }, waf_rule_id: string, mode: string) =>
  server.api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules/{waf_rule_id}', {
    params: { path: { ...path, waf_rule_id } },
    body: { mode } as never,
  });
const overrides = (zone_id: string) => server.api.GET('/zones/{zone_id}/firewall/waf/overrides', { params: { path: { zone_id } } });
const override = (zone_id: string, override_id: string) =>
  server.api.GET('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: { zone_id, override_id } } });
const createOverride = (zone_id: string, body: object) =>
  server.api.POST('/zones/{zone_id}/firewall/waf/overrides', { params: { path: { zone_id } }, body: body as never });
const putOverride = (zone_id: string, override_id: string, body: object) =>
  server.api.PUT('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: { zone_id, override_id } }, body: body as never });
const deleteOverride = (zone_id: string, override_id: string) =>
  server.api.DELETE('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: { zone_id, override_id } } });

/** A refusal's status, codes and first message. */
async function refused(call: Parameters<typeof unwrap>[0]) {
  return refusedUnwrapped(unwrap(call));
}

async function refusedUnwrapped(call: Promise<unknown>) {
  const error = await apiFailure(call);
  return { status: error.status, codes: error.errors.map((e) => e.code), message: error.errors[0]?.message ?? '' };
}

describe('packages', () => {
  it('lists the OWASP package with its global settings and the managed package without them', async () => {
    const { data } = await packages(enterprise);
    expect(data?.result_info).toEqual({ page: 1, per_page: 20, count: 2, total_count: 2, total_pages: 1 });
    const [first, second] = data!.result;
    expect(first).toEqual({
      id: ids.enterpriseOwaspPackage,
      name: 'OWASP ModSecurity Core Rule Set',
      description: 'The OWASP ModSecurity Core Rule Set is a set of generic attack detection rules.',
      zone_id: enterprise,
      detection_mode: 'anomaly',
      sensitivity: 'medium',
      action_mode: 'block',
    });
    expect(second).toMatchObject({ id: ids.enterpriseManagedPackage, detection_mode: 'traditional', zone_id: enterprise });
    expect(Object.keys(second!)).not.toContain('sensitivity');
    expect(Object.keys(second!)).not.toContain('action_mode');
  });

  it('filters by name, orders and pages', async () => {
    expect((await unwrap(packages(enterprise, { name: 'managed' }))).map((p) => p.id)).toEqual([ids.enterpriseManagedPackage]);
    expect((await unwrap(packages(enterprise, { name: 'nothing like it' })))).toEqual([]);
    expect((await unwrap(packages(enterprise, { order: 'name', direction: 'desc' }))).map((p) => p.name)).toEqual([
      'Platform Managed Ruleset',
      'OWASP ModSecurity Core Rule Set',
    ]);
    const { data } = await packages(enterprise, { per_page: 1, page: 2 });
    expect(data?.result.map((p) => p.id)).toEqual([ids.enterpriseManagedPackage]);
    expect(data?.result_info).toEqual({ page: 2, per_page: 1, count: 1, total_count: 2, total_pages: 2 });
  });

  it('changes the OWASP sensitivity and action mode, and the migration config follows', async () => {
    expect(owaspRuleOf(await calls.config(enterprise))).toEqual({ enabled: true, threshold: 40, action: 'block' });
    const updated = await unwrap(patchPackage(owasp, { sensitivity: 'high', action_mode: 'challenge' }));
    expect(updated).toMatchObject({ id: ids.enterpriseOwaspPackage, sensitivity: 'high', action_mode: 'challenge' });
    expect(await unwrap(server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}', { params: { path: owasp } }))).toEqual(updated);
    expect(owaspRuleOf(await calls.config(enterprise))).toEqual({ enabled: true, threshold: 25, action: 'challenge' });
    await unwrap(patchPackage(owasp, { sensitivity: 'off' }));
    expect(owaspRuleOf(await calls.config(enterprise))).toEqual({ enabled: false, threshold: 40, action: 'challenge' });
  });

  it('refuses settings on the managed package (1027), values outside the enums, and unknown packages', async () => {
    expect(await refused(patchPackage(managed, { sensitivity: 'high' }))).toMatchObject({ status: 400, codes: [1027] });
    expect(await refused(patchPackage(owasp, { sensitivity: 'extreme' }))).toMatchObject({ status: 400, codes: [10021], message: expect.stringContaining('sensitivity') });
    expect(await refused(patchPackage(owasp, { action_mode: 'log' }))).toMatchObject({ status: 400, codes: [10021], message: expect.stringContaining('action_mode') });
    expect(await refused(patchPackage(owasp, {}))).toMatchObject({ status: 400, codes: [10021] });
    // Another zone's package is unknown in this one.
    expect(await refused(patchPackage({ zone_id: ids.businessZone, package_id: ids.enterpriseOwaspPackage }, { sensitivity: 'low' }))).toMatchObject({ status: 404, codes: [7003, 7000] });
    expect(await refused(server.api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}', { params: { path: { zone_id: enterprise, package_id: 'f'.repeat(32) } } }))).toMatchObject({ status: 404 });
    expect((await unwrap(packages(enterprise)))[0]).toMatchObject({ sensitivity: 'medium', action_mode: 'block' });
  });
});

describe('groups', () => {
  it('lists the groups of a package with their modes and how many rules differ from their default', async () => {
    const list = await unwrap(groups(owasp));
    expect(list.map((g) => [g.name, g.rules_count, g.modified_rules_count, g.mode])).toEqual([
      ['OWASP Protocol Violations', 2, 1, 'on'], // 960015 is off in the fixtures
      ['OWASP SQL Injection Attacks', 3, 0, 'on'], // 981176 is set to on, its default
      ['OWASP XSS Attacks', 2, 0, 'on'],
      ['OWASP Bad Robots', 1, 0, 'on'],
    ]);
    expect(list.every((g) => g.package_id === ids.enterpriseOwaspPackage && g.allowed_modes.join() === 'on,off')).toBe(true);
    expect((await unwrap(groups(managed))).map((g) => [g.name, g.mode])).toEqual([
      ['Platform Specials', 'on'],
      ['Drupal', 'off'],
      ['WordPress', 'on'],
    ]);
  });

  it('turns a group off and on again, and filters by mode and name', async () => {
    expect(await unwrap(patchGroup(owasp, ids.owaspXssGroup, 'off'))).toMatchObject({ id: ids.owaspXssGroup, mode: 'off' });
    expect(await unwrap(group(owasp, ids.owaspXssGroup))).toMatchObject({ mode: 'off' });
    expect((await unwrap(groups(owasp, { mode: 'off' }))).map((g) => g.id)).toEqual([ids.owaspXssGroup]);
    expect((await unwrap(groups(owasp, { mode: 'off', name: 'SQL', match: 'any' }))).map((g) => g.id)).toEqual([ids.owaspSqliGroup, ids.owaspXssGroup]);
    expect((await unwrap(groups(owasp, { mode: 'off', name: 'SQL' })))).toEqual([]);
    expect((await unwrap(groups(owasp, { order: 'rules_count', direction: 'desc', per_page: 1 }))).map((g) => g.id)).toEqual([ids.owaspSqliGroup]);
    expect(await unwrap(patchGroup(owasp, ids.owaspXssGroup, 'on'))).toMatchObject({ mode: 'on' });
    expect(await unwrap(groups(owasp, { mode: 'off' }))).toEqual([]);
  });

  it('refuses modes other than on and off, and unknown groups', async () => {
    expect(await refused(patchGroup(owasp, ids.owaspXssGroup, 'disable'))).toMatchObject({ status: 400, codes: [10021], message: expect.stringContaining('mode') });
    expect(await refused(patchGroup(owasp, ids.drupalGroup, 'off'))).toMatchObject({ status: 404, codes: [7003, 7000] });
    expect(await refused(group(owasp, 'f'.repeat(32)))).toMatchObject({ status: 404 });
    expect(await refused(groups({ zone_id: enterprise, package_id: 'f'.repeat(32) }))).toMatchObject({ status: 404 });
  });
});

describe('rules', () => {
  it('lists the rules of each package with the modes they allow', async () => {
    const managedRules = await unwrap(rules(managed));
    expect(managedRules.map((r) => [r.id, r.mode, r.default_mode, r.group.name])).toEqual([
      ['100015', 'simulate', 'block', 'Platform Specials'],
      ['100016', 'default', 'challenge', 'Platform Specials'],
      ['100004', 'default', 'block', 'Drupal'],
      ['100005', 'default', 'simulate', 'Drupal'],
      ['100000', 'default', 'block', 'WordPress'],
    ]);
    expect(managedRules[0]!.allowed_modes).toEqual(['default', 'disable', 'simulate', 'block', 'challenge']);
    const owaspRules = await unwrap(rules(owasp, { per_page: 100 }));
    expect(owaspRules).toHaveLength(8);
    expect(owaspRules.find((r) => r.id === '960015')).toMatchObject({ mode: 'off', allowed_modes: ['on', 'off'] });
    expect(Object.keys(owaspRules[0]!)).not.toContain('default_mode');
  });

  it('filters (all or any), orders and pages', async () => {
    expect((await unwrap(rules(managed, { group_id: ids.drupalGroup }))).map((r) => r.id)).toEqual(['100004', '100005']);
    expect((await unwrap(rules(managed, { group_id: ids.drupalGroup, mode: 'simulate' })))).toEqual([]);
    expect((await unwrap(rules(managed, { group_id: ids.drupalGroup, mode: 'simulate', match: 'any' }))).map((r) => r.id)).toEqual(['100015', '100004', '100005']);
    expect((await unwrap(rules(managed, { description: 'file upload' }))).map((r) => r.id)).toEqual(['100005', '100000']);
    expect((await unwrap(rules(managed, { priority: '16' }))).map((r) => r.id)).toEqual(['100005']);
    expect((await unwrap(rules(managed, { order: 'description', direction: 'desc', per_page: 2 }))).map((r) => r.id)).toEqual(['100000', '100016']);
    const { data } = await rules(managed, { per_page: 2, page: 3 });
    expect(data?.result.map((r) => r.id)).toEqual(['100000']);
    expect(data?.result_info).toEqual({ page: 3, per_page: 2, count: 1, total_count: 5, total_pages: 3 });
  });

  it('changes a mode within allowed_modes, and back to the default', async () => {
    expect(await unwrap(patchRule(managed, '100015', 'challenge'))).toMatchObject({ id: '100015', mode: 'challenge' });
    expect(await unwrap(rule(managed, '100015'))).toMatchObject({ mode: 'challenge' });
    expect(await unwrap(patchRule(owasp, '960015', 'on'))).toMatchObject({ mode: 'on' });
    expect((await unwrap(groups(owasp)))[0]).toMatchObject({ modified_rules_count: 0 });
    await unwrap(patchRule(owasp, '973300', 'off'));
    expect((await unwrap(group(owasp, ids.owaspXssGroup)))).toMatchObject({ modified_rules_count: 1 });
  });

  it('refuses modes outside allowed_modes and unknown rules', async () => {
    const owaspBlock = await refused(patchRule(owasp, '960015', 'block'));
    expect(owaspBlock).toMatchObject({ status: 400, codes: [10021] });
    expect(owaspBlock.message).toContain("allowed_modes (on, off)");
    expect(owaspBlock.message).toContain('960015');
    expect(await refused(patchRule(managed, '100015', 'on'))).toMatchObject({ status: 400, codes: [10021], message: expect.stringContaining('default, disable, simulate, block, challenge') });
    expect(await refused(patchRule(managed, '100015', 'explode'))).toMatchObject({ status: 400, codes: [10021], message: expect.stringContaining('mode') });
    expect(await refused(patchRule(managed, '999999', 'block'))).toMatchObject({ status: 404, codes: [7003, 7000] });
    // A rule of the other package is not in this one.
    expect(await refused(rule(managed, '960015'))).toMatchObject({ status: 404 });
    expect(await unwrap(rule(managed, '100015'))).toMatchObject({ mode: 'simulate' });
  });

  it('leaves the migration config alone: OWASP rule- and group-level settings are not migrated (rule 5)', async () => {
    const before = await calls.config(enterprise);
    await unwrap(patchRule(owasp, '950901', 'off'));
    await unwrap(patchGroup(owasp, ids.owaspSqliGroup, 'off'));
    await unwrap(patchRule(managed, '100004', 'disable'));
    await unwrap(patchGroup(managed, ids.drupalGroup, 'on'));
    expect(await calls.config(enterprise)).toEqual(before);
  });
});

describe('URI-based overrides', () => {
  const body = {
    urls: ['example-shop.com/returns/*'],
    rules: { '100015': 'disable', '960015': 'default' },
    groups: { [ids.owaspXssGroup]: 'disable' },
    rewrite_action: { block: 'simulate' },
    paused: true,
    priority: -3,
    description: 'Returns form',
  };

  it('lists and gets the fixtures overrides by priority', async () => {
    const { data } = await overrides(shop);
    expect(data?.result.map((o) => [o.id, o.priority, o.paused])).toEqual([
      [ids.checkoutOverride, 1, false],
      [ids.searchOverride, 2, true],
    ]);
    expect(data?.result_info).toMatchObject({ count: 2, total_count: 2 });
    expect(await unwrap(override(shop, ids.searchOverride))).toEqual({
      id: ids.searchOverride,
      urls: ['example-shop.com/search*'],
      paused: true,
      description: 'Search queries with quotes',
      priority: 2,
      rules: {},
      groups: { [ids.owaspXssGroup]: 'disable' },
      rewrite_action: null,
    });
    expect(await unwrap(overrides(enterprise))).toEqual([]);
  });

  it('creates, replaces and deletes an override', async () => {
    const created = await unwrap(createOverride(enterprise, body));
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), ...body });
    expect(await unwrap(overrides(enterprise))).toEqual([created]);
    const minimal = await unwrap(putOverride(enterprise, created.id, { urls: ['example.com/a'], groups: { [ids.drupalGroup]: 'default' }, id: created.id }));
    expect(minimal).toEqual({ id: created.id, urls: ['example.com/a'], rules: {}, groups: { [ids.drupalGroup]: 'default' }, rewrite_action: null, paused: false, priority: 1, description: '' });
    expect(await unwrap(override(enterprise, created.id))).toEqual(minimal);
    expect(await unwrap(deleteOverride(enterprise, created.id))).toEqual({ id: created.id });
    expect(await refused(override(enterprise, created.id))).toMatchObject({ status: 404, codes: [7003, 7000] });
  });

  it('refuses overrides without urls or without rules and groups, with unknown ids or out-of-range fields', async () => {
    const cases: [string, object, string][] = [
      ['no urls', { rules: { '100015': 'disable' } }, 'urls'],
      ['empty urls', { urls: [], rules: { '100015': 'disable' } }, 'urls'],
      ['no rules nor groups', { urls: ['a.example/*'] }, 'rules or a groups'],
      ['empty rules and groups', { urls: ['a.example/*'], rules: {}, groups: {} }, 'rules or a groups'],
      ['an unknown rule', { urls: ['a.example/*'], rules: { '123456': 'disable' } }, 'rules/123456'],
      ['an unknown group', { urls: ['a.example/*'], groups: { ['f'.repeat(32)]: 'disable' } }, `groups/${'f'.repeat(32)}`],
      ['an action outside the enum', { urls: ['a.example/*'], rules: { '100015': 'log' } }, 'rules/100015'],
      ['a rewrite of an unknown action', { urls: ['a.example/*'], rules: { '100015': 'disable' }, rewrite_action: { log: 'block' } }, 'rewrite_action'],
      ['a priority out of range', { urls: ['a.example/*'], rules: { '100015': 'disable' }, priority: 1_000_000_001 }, 'priority'],
      ['a description over 1024 characters', { urls: ['a.example/*'], rules: { '100015': 'disable' }, description: 'd'.repeat(1025) }, 'description'],
      ['an id chosen by the caller', { urls: ['a.example/*'], rules: { '100015': 'disable' }, id: 'a'.repeat(32) }, 'id'],
    ];
    for (const [what, input, mentions] of cases) {
      const answer = await refused(createOverride(enterprise, input));
      expect({ what, status: answer.status, codes: answer.codes }).toEqual({ what, status: 400, codes: [10021] });
      expect(answer.message, what).toContain(mentions);
    }
    expect(await refused(putOverride(shop, ids.checkoutOverride, { ...body, id: ids.searchOverride }))).toMatchObject({ status: 400, message: expect.stringContaining(ids.searchOverride) });
    expect(await refused(putOverride(shop, ids.checkoutOverride, { urls: ['a.example/*'] }))).toMatchObject({ status: 400 });
    expect(await unwrap(overrides(enterprise))).toEqual([]);
    expect((await unwrap(override(shop, ids.checkoutOverride))).urls).toEqual(['example-shop.com/checkout/*', 'example-shop.com/cart/*']);
  });

  it('answers 404 for unknown overrides and those of another zone', async () => {
    for (const call of [
      override(enterprise, ids.checkoutOverride),
      putOverride(enterprise, ids.checkoutOverride, body),
      deleteOverride(enterprise, ids.checkoutOverride),
      deleteOverride(shop, 'f'.repeat(32)),
    ]) {
      expect(await refused(call)).toMatchObject({ status: 404, codes: [7003, 7000] });
    }
    expect(await unwrap(overrides(shop))).toHaveLength(2);
  });

  it('drives the migration check: false with overrides, true once deleted, false again when one is created', async () => {
    expect(await calls.check(shop)).toEqual({ compatible: false, migration_state: 'start' });
    await unwrap(deleteOverride(shop, ids.checkoutOverride));
    expect(await calls.check(shop)).toEqual({ compatible: false, migration_state: 'start' });
    await unwrap(deleteOverride(shop, ids.searchOverride));
    expect(await calls.check(shop)).toEqual({ compatible: true, migration_state: 'start' });
    const created = await unwrap(createOverride(shop, body));
    expect(await calls.check(shop)).toEqual({ compatible: false, migration_state: 'start' });
    await unwrap(deleteOverride(shop, created.id));
    expect(await calls.check(shop)).toEqual({ compatible: true, migration_state: 'start' });
  });
});

describe('the journey: URI-override zone -> delete overrides -> compatible -> migrate -> previous API refused', () => {
  it('migrates the shop zone once its overrides are gone, then refuses every previous-WAF operation with 410', async () => {
    const listed = await unwrap(overrides(shop));
    expect(await refusedUnwrapped(calls.migrate(shop, 'pending'))).toMatchObject({ status: 400, codes: [20301] });
    for (const { id } of listed) await unwrap(deleteOverride(shop, id));
    expect(await calls.check(shop)).toEqual({ compatible: true, migration_state: 'start' });
    const config = await calls.config(shop);
    // The shop's OWASP package: medium sensitivity, simulate.
    expect(owaspRuleOf(config)).toEqual({ enabled: true, threshold: 40, action: 'log' });
    const migrated = await calls.migrate(shop, 'pending');
    expect(migrated.rules?.map((r) => r.action)).toEqual(config.rules.map((r) => r.action));
    expect(await calls.status(shop)).toMatchObject({ migration_state: 'finished', previous_managed_rules_enabled: false, new_managed_rules_enabled: true });
    await expectPreviousWafGone(server, shop, ids.shopOwaspPackage, ids.checkoutOverride);
    // The migration and the simulator keep working on the migrated zone.
    expect(await calls.check(shop)).toEqual({ compatible: true, migration_state: 'finished' });
    const simulated = await server.api.POST('/zones/{zone_id}/simulate', {
      params: { path: { zone_id: shop } },
      body: { method: 'GET', url: 'https://example-shop.com/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E' },
    });
    expect(simulated.response.status).toBe(200);
  });

  it('answers 410 to a write that the finishing migration overtook after the handler checked the state', async () => {
    await calls.migrate(enterprise, 'pending');
    const before = await server.store.waf.getPreviousConfig(enterprise);
    // The handler reads the state as it was before the migration committed: a race, made certain.
    const getState = server.store.waf.getState.bind(server.store.waf);
    vi.spyOn(server.store.waf, 'getState').mockImplementation(async (zoneId) => {
      const state = await getState(zoneId);
      return state && { ...state, migration_state: 'start' };
    });
    const operations = everyPreviousWafOperation(server, enterprise, ids.enterpriseOwaspPackage, 'f'.repeat(32));
    const answers: Record<string, string> = {};
    for (const name of ['updateWafPackage', 'updateWafGroup', 'updateWafRule', 'createWafOverride']) {
      const { response, error } = await operations[name]!();
      answers[name] = `${response.status} ${(error as { errors: { code: number }[] }).errors.map((e) => e.code).join(',')}`;
    }
    expect(answers).toEqual({ updateWafPackage: '410 20307', updateWafGroup: '410 20307', updateWafRule: '410 20307', createWafOverride: '410 20307' });
    vi.restoreAllMocks();
    expect(await server.store.waf.getPreviousConfig(enterprise)).toEqual(before);
  });

  it('answers 410 on the Pro zone, which already uses the new WAF', async () => {
    await expectPreviousWafGone(server, ids.proZone, 'f'.repeat(32), 'f'.repeat(32));
  });

  it('keeps the previous API working in validation mode, and checks overrides added there before finishing', async () => {
    await calls.migrate(enterprise, 'validation');
    expect(await calls.status(enterprise)).toMatchObject({ migration_state: 'validation', validation_mode: true });
    expect(await unwrap(patchPackage(owasp, { sensitivity: 'low' }))).toMatchObject({ sensitivity: 'low' });
    expect(owaspRuleOf(await calls.config(enterprise))).toMatchObject({ threshold: 60 });
    const created = await unwrap(createOverride(enterprise, { urls: ['example.com/x'], rules: { '100015': 'disable' } }));
    expect(await calls.check(enterprise)).toEqual({ compatible: false, migration_state: 'validation' });
    expect(await refusedUnwrapped(calls.migrate(enterprise, 'pending'))).toMatchObject({ status: 400, codes: [20301] });
    expect((await calls.status(enterprise)).migration_state).toBe('validation');
    await unwrap(deleteOverride(enterprise, created.id));
    await calls.migrate(enterprise, 'pending');
    await expectPreviousWafGone(server, enterprise, ids.enterpriseOwaspPackage, created.id);
    const simulated = await server.api.POST('/zones/{zone_id}/simulate', {
      params: { path: { zone_id: enterprise } },
      body: { method: 'GET', url: 'https://example.com/' },
    });
    expect(simulated.response.status).toBe(200);
  });
});
