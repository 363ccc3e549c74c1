import { describe, expect, it } from 'vitest';
import { fixedClock, InvalidInputError, MigrationStateConflictError, NotFoundError } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { fixtureId, MAIN_ACCOUNT_ID, MANY_FIREWALL_RULES, SECOND_ACCOUNT_ID, ZONE_IDS } from './fixtures';

const FINISH = { to: 'finished', old_managed_rules_enabled: false, new_managed_rules_enabled: true } as const;

export function zonesAndWafContract(harness: () => StoreHarness): void {
  describe('zones', () => {
    it('gets the zone record as the API returns it, with its account', async () => {
      const store = await harness().fresh();
      const zone = await store.zones.get(ZONE_IDS.enterprise);
      expect(zone).toMatchObject({
        id: ZONE_IDS.enterprise,
        name: 'example.com',
        status: 'active',
        paused: false,
        type: 'full',
        development_mode: 0,
        original_dnshost: null,
        account: { id: MAIN_ACCOUNT_ID, name: 'Example Corp' },
        plan: { legacy_id: 'enterprise', name: 'Enterprise Website', externally_managed: true, is_subscribed: true },
        meta: { page_rule_quota: 125 },
      });
      expect(Object.keys(zone ?? {}).sort()).toEqual(
        [
          'account', 'activated_on', 'created_on', 'development_mode', 'id', 'meta', 'modified_on', 'name', 'name_servers',
          'original_dnshost', 'original_name_servers', 'original_registrar', 'owner', 'paused', 'permissions', 'plan', 'status', 'type',
        ].sort(),
      );
      expect(await store.zones.get(fixtureId('no-zone'))).toBeNull();
    });

    it('lists the zones of one account', async () => {
      const store = await harness().fresh();
      const second = await store.zones.list({ account_id: SECOND_ACCOUNT_ID });
      expect(second.items.map((zone) => zone.name)).toEqual(['sandbox-labs.dev']);
      const main = await store.zones.list({ account_id: MAIN_ACCOUNT_ID }, { order: 'name', per_page: 4 });
      expect(main.items.map((zone) => zone.name)).toEqual(['example-api.com', 'example-blog.com', 'example-shop.com', 'example.com']);
      expect(main.result_info).toEqual({ page: 1, per_page: 4, count: 4, total_count: 6, total_pages: 2 });
    });
  });

  describe('WAF state and migration', () => {
    it('reports which zones are still on the previous WAF', async () => {
      const store = await harness().fresh();
      for (const id of [ZONE_IDS.enterprise, ZONE_IDS.business, ZONE_IDS.uriOverrides, ZONE_IDS.manyFirewallRules]) {
        expect(await store.waf.getState(id)).toMatchObject({
          zone_id: id,
          migration_state: 'start',
          old_managed_rules_enabled: true,
          new_managed_rules_enabled: false,
        });
      }
      expect(await store.waf.getState(ZONE_IDS.pro)).toMatchObject({
        migration_state: 'finished',
        old_managed_rules_enabled: false,
        new_managed_rules_enabled: true,
      });
      expect(await store.waf.getState(fixtureId('no-zone'))).toBeNull();
    });

    it('moves through validation to finished, stamping the time', async () => {
      const store = await harness().fresh({ clock: fixedClock('2026-11-21T10:00:00.123456Z') });
      const validation = await store.waf.transition(ZONE_IDS.enterprise, {
        from: ['start'],
        to: 'validation',
        old_managed_rules_enabled: true,
        new_managed_rules_enabled: true,
      });
      expect(validation).toEqual({
        zone_id: ZONE_IDS.enterprise,
        migration_state: 'validation',
        old_managed_rules_enabled: true,
        new_managed_rules_enabled: true,
        modified_on: '2026-11-21T10:00:00.123456Z',
      });
      await store.waf.transition(ZONE_IDS.enterprise, { from: ['start', 'validation'], ...FINISH });
      expect(await store.waf.getState(ZONE_IDS.enterprise)).toMatchObject({ migration_state: 'finished', old_managed_rules_enabled: false });
    });

    it('refuses a step from a state the zone is not in, changing nothing', async () => {
      const store = await harness().fresh();
      const error = await store.waf.transition(ZONE_IDS.pro, { from: ['start', 'validation'], ...FINISH }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationStateConflictError);
      expect(error).toMatchObject({ zone_id: ZONE_IDS.pro, expected: ['start', 'validation'], actual: 'finished' });
      await expect(store.waf.transition(fixtureId('no-zone'), { from: ['start'], ...FINISH })).rejects.toBeInstanceOf(NotFoundError);
      await expect(
        store.waf.transition(ZONE_IDS.business, { from: ['start'], ...FINISH, to: 'done' as 'finished' }),
      ).rejects.toBeInstanceOf(InvalidInputError);
      expect((await store.waf.getState(ZONE_IDS.business))?.migration_state).toBe('start');
    });

    it('lets only one of two racing migrations of a zone win', async () => {
      const store = await harness().fresh();
      const other = await harness().reopen();
      const results = await Promise.allSettled([
        store.waf.transition(ZONE_IDS.business, { from: ['start'], ...FINISH }),
        other.waf.transition(ZONE_IDS.business, { from: ['start'], ...FINISH }),
      ]);
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((result) => result.status === 'rejected');
      expect((rejected as PromiseRejectedResult).reason).toBeInstanceOf(MigrationStateConflictError);
    });
  });

  describe('previous WAF configuration', () => {
    it('holds packages, overrides, bypass firewall rules and page rules of a zone', async () => {
      const store = await harness().fresh();
      const config = await store.waf.getPreviousConfig(ZONE_IDS.enterprise);
      expect(config?.packages.map((pkg) => [pkg.name, pkg.detection_mode, pkg.sensitivity, pkg.action_mode])).toEqual([
        ['OWASP ModSecurity Core Rule Set', 'anomaly', 'medium', 'block'],
        ['Platform Managed Ruleset', 'traditional', null, null],
      ]);
      expect(config?.overrides.map((override) => [override.level, override.target_id, override.mode]).sort()).toEqual(
        [
          ['group', fixtureId('legacy-group:drupal'), 'off'],
          ['rule', '100015', 'simulate'],
          ['rule', '960015', 'off'],
          ['rule', '981176', 'on'],
        ].sort(),
      );
      const bypass = config?.firewall_rules.filter((rule) => rule.action === 'bypass');
      expect(bypass?.map((rule) => rule.products)).toEqual([['waf'], ['waf']]);
      expect(config?.firewall_rules[0]).toEqual({
        id: fixtureId('firewall-rule:enterprise-office'),
        expression: '(ip.src in {198.51.100.0/24 2001:db8:100::/48})',
        action: 'bypass',
        products: ['waf'],
        paused: false,
        description: 'Office network skips the WAF',
        priority: 1,
      });
      expect(config?.firewall_rules.find((rule) => rule.paused)?.description).toBe('Watch WordPress probes');
      expect(config?.page_rules.map((rule) => rule.actions)).toEqual([
        [{ id: 'waf', value: 'off' }],
        [{ id: 'disable_security' }],
        [{ id: 'waf', value: 'on' }, { id: 'security_level', value: 'high' }],
      ]);
      expect(config?.uri_overrides).toEqual([]);
      expect(await store.waf.getPreviousConfig(fixtureId('no-zone'))).toBeNull();
    });

    it('keeps the migration-blocking cases of the fixtures', async () => {
      const store = await harness().fresh();
      const many = await store.waf.getPreviousConfig(ZONE_IDS.manyFirewallRules);
      expect(many?.firewall_rules).toHaveLength(MANY_FIREWALL_RULES);
      expect(many?.firewall_rules.map((rule) => rule.priority)).toEqual(
        Array.from({ length: MANY_FIREWALL_RULES }, (_, i) => i + 1),
      );
      const long = await store.waf.getPreviousConfig(ZONE_IDS.longExpression);
      expect(Math.max(...(long?.firewall_rules.map((rule) => rule.expression.length) ?? []))).toBeGreaterThan(4096);
      const shop = await store.waf.getPreviousConfig(ZONE_IDS.uriOverrides);
      expect(shop?.uri_overrides.map((override) => override.urls)).toEqual([
        ['example-shop.com/checkout/*', 'example-shop.com/cart/*'],
        ['example-shop.com/search*'],
      ]);
      expect(shop?.uri_overrides[0]?.rewrite_action).toEqual({ block: 'challenge', challenge: 'challenge', default: 'simulate' });
      expect(shop?.uri_overrides[1]).toMatchObject({ paused: true, rewrite_action: null, rules: {} });
    });

    it('deletes URI-based overrides one at a time', async () => {
      const store = await harness().fresh();
      await store.waf.deleteUriOverride(ZONE_IDS.uriOverrides, fixtureId('uri-override:checkout'));
      expect((await store.waf.getPreviousConfig(ZONE_IDS.uriOverrides))?.uri_overrides.map((o) => o.id)).toEqual([
        fixtureId('uri-override:search'),
      ]);
      await expect(
        store.waf.deleteUriOverride(ZONE_IDS.uriOverrides, fixtureId('uri-override:checkout')),
      ).rejects.toBeInstanceOf(NotFoundError);
      // An override is addressed through its own zone only.
      await expect(
        store.waf.deleteUriOverride(ZONE_IDS.enterprise, fixtureId('uri-override:search')),
      ).rejects.toBeInstanceOf(NotFoundError);
    });
  });
}
