import { describe, expect, it } from 'vitest';
import { NotFoundError, PreviousWafRetiredError, type Store } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { fixtureId, ZONE_IDS } from './fixtures';

const OWASP_PACKAGE = fixtureId(`owasp-package:${ZONE_IDS.enterprise}`);
const MANAGED_PACKAGE = fixtureId(`platform-package:${ZONE_IDS.enterprise}`);
const CHECKOUT_OVERRIDE = fixtureId('uri-override:checkout');

/** Each write of the previous WAF once, on the Enterprise zone and its override `overrideId`. */
function everyWrite(store: Pick<Store, 'waf'>, overrideId: string) {
  const zone = ZONE_IDS.enterprise;
  return {
    updatePackage: () => store.waf.updatePackage(zone, OWASP_PACKAGE, { sensitivity: 'off' }),
    setMode: () => store.waf.setMode(zone, { package_id: MANAGED_PACKAGE, level: 'rule', target_id: '100015', description: 'Content-Type', mode: 'block' }),
    createUriOverride: () => store.waf.createUriOverride(zone, OVERRIDE),
    updateUriOverride: () => store.waf.updateUriOverride(zone, overrideId, { ...OVERRIDE, paused: true }),
    deleteUriOverride: () => store.waf.deleteUriOverride(zone, overrideId),
  };
}

/** Finishes the Enterprise zone's migration to the new WAF, in `store` or in a transaction of it. */
function finish(store: Pick<Store, 'waf'>) {
  return store.waf.transition(ZONE_IDS.enterprise, { from: ['start', 'validation'], to: 'finished', old_managed_rules_enabled: false, new_managed_rules_enabled: true });
}

const OVERRIDE = {
  urls: ['example.com/checkout/*'],
  paused: false,
  description: 'Checkout callbacks',
  priority: -5,
  rules: { '100015': 'disable' },
  groups: {},
  rewrite_action: { block: 'simulate' },
};

/** The writes of the previous WAF's API: package settings, group and rule modes, URI-based overrides. */
export function previousWafContract(harness: () => StoreHarness): void {
  describe('previous WAF writes', () => {
    it('changes the OWASP package settings it is given and keeps the others', async () => {
      const store = await harness().fresh();
      const updated = await store.waf.updatePackage(ZONE_IDS.enterprise, OWASP_PACKAGE, { sensitivity: 'off' });
      expect(updated).toMatchObject({ id: OWASP_PACKAGE, sensitivity: 'off', action_mode: 'block' });
      await store.waf.updatePackage(ZONE_IDS.enterprise, OWASP_PACKAGE, { action_mode: 'simulate' });
      const config = await store.waf.getPreviousConfig(ZONE_IDS.enterprise);
      expect(config?.packages.find((p) => p.id === OWASP_PACKAGE)).toMatchObject({ sensitivity: 'off', action_mode: 'simulate' });
    });

    it('refuses a package of another zone or an unknown one', async () => {
      const store = await harness().fresh();
      await expect(store.waf.updatePackage(ZONE_IDS.business, OWASP_PACKAGE, { sensitivity: 'low' })).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.waf.updatePackage(ZONE_IDS.enterprise, fixtureId('no-package'), { sensitivity: 'low' })).rejects.toBeInstanceOf(NotFoundError);
      expect((await store.waf.getPreviousConfig(ZONE_IDS.business))?.packages[0]).toMatchObject({ sensitivity: 'low', action_mode: 'challenge' });
    });

    it('records, replaces and forgets a mode', async () => {
      const store = await harness().fresh();
      const modes = async () =>
        (await store.waf.getPreviousConfig(ZONE_IDS.enterprise))?.overrides.map((o) => `${o.package_id === OWASP_PACKAGE ? 'owasp' : 'managed'} ${o.level} ${o.target_id} ${o.mode}`);
      const before = await modes();
      expect(before).toContain('managed rule 100015 simulate');
      await store.waf.setMode(ZONE_IDS.enterprise, { package_id: MANAGED_PACKAGE, level: 'rule', target_id: '100015', description: 'Content-Type', mode: 'challenge' });
      await store.waf.setMode(ZONE_IDS.enterprise, { package_id: OWASP_PACKAGE, level: 'group', target_id: fixtureId('legacy-group:owasp-xss'), description: 'XSS', mode: 'off' });
      const after = await modes();
      expect(after).toContain('managed rule 100015 challenge');
      expect(after).not.toContain('managed rule 100015 simulate');
      expect(after).toContain(`owasp group ${fixtureId('legacy-group:owasp-xss')} off`);
      expect(after).toHaveLength(before!.length + 1);
      await store.waf.setMode(ZONE_IDS.enterprise, { package_id: MANAGED_PACKAGE, level: 'rule', target_id: '100015', description: 'Content-Type', mode: null });
      expect(await modes()).not.toContain('managed rule 100015 challenge');
      expect(await modes()).toHaveLength(before!.length);
      await expect(
        store.waf.setMode(ZONE_IDS.business, { package_id: MANAGED_PACKAGE, level: 'rule', target_id: '100015', description: '', mode: 'block' }),
      ).rejects.toBeInstanceOf(NotFoundError);
    });

    it('creates, replaces and deletes URI-based overrides, each change read back at once', async () => {
      const store = await harness().fresh();
      const created = await store.waf.createUriOverride(ZONE_IDS.enterprise, OVERRIDE);
      expect(created.id).toMatch(/^[0-9a-f]{32}$/);
      expect(created).toEqual({ id: created.id, ...OVERRIDE });
      expect((await store.waf.getPreviousConfig(ZONE_IDS.enterprise))?.uri_overrides).toEqual([created]);
      const replaced = { ...OVERRIDE, urls: ['example.com/pay/*'], paused: true, rules: {}, groups: { [fixtureId('legacy-group:drupal')]: 'disable' }, rewrite_action: null };
      expect(await store.waf.updateUriOverride(ZONE_IDS.enterprise, created.id, replaced)).toEqual({ id: created.id, ...replaced });
      expect((await store.waf.getPreviousConfig(ZONE_IDS.enterprise))?.uri_overrides).toEqual([{ id: created.id, ...replaced }]);
      await store.waf.deleteUriOverride(ZONE_IDS.enterprise, created.id);
      expect((await store.waf.getPreviousConfig(ZONE_IDS.enterprise))?.uri_overrides).toEqual([]);
    });

    it('keeps overrides to their zone', async () => {
      const store = await harness().fresh();
      await expect(store.waf.createUriOverride(fixtureId('no-zone'), OVERRIDE)).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.waf.updateUriOverride(ZONE_IDS.enterprise, CHECKOUT_OVERRIDE, OVERRIDE)).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.waf.deleteUriOverride(ZONE_IDS.enterprise, CHECKOUT_OVERRIDE)).rejects.toBeInstanceOf(NotFoundError);
      expect((await store.waf.getPreviousConfig(ZONE_IDS.uriOverrides))?.uri_overrides.map((o) => o.id)).toContain(CHECKOUT_OVERRIDE);
    });

    it('refuses every write once the zone finished its migration, changing nothing', async () => {
      const store = await harness().fresh();
      const override = await store.waf.createUriOverride(ZONE_IDS.enterprise, OVERRIDE);
      await finish(store);
      const before = await store.waf.getPreviousConfig(ZONE_IDS.enterprise);
      const writes = everyWrite(store, override.id);
      const refusals: Record<string, unknown> = {};
      for (const [name, write] of Object.entries(writes)) {
        const error = await write().then(() => 'written', (e: unknown) => e);
        refusals[name] = error instanceof PreviousWafRetiredError ? error.zone_id : error;
      }
      expect(refusals).toEqual(Object.fromEntries(Object.keys(writes).map((name) => [name, ZONE_IDS.enterprise])));
      expect(await store.waf.getPreviousConfig(ZONE_IDS.enterprise)).toEqual(before);
    });

    it('refuses a write that waited for the migration finishing the zone, instead of landing after it', async () => {
      const store = await harness().fresh();
      const override = await store.waf.createUriOverride(ZONE_IDS.enterprise, OVERRIDE);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let migrating!: () => void;
      const started = new Promise<void>((resolve) => (migrating = resolve));
      const migration = store.transaction(async (tx) => {
        await finish(tx);
        migrating();
        await held;
      });
      await started;
      // Issued while the migration is written but not committed: each waits for it.
      const writes = Object.entries(everyWrite(store, override.id)).map(([name, write]) => write().then(() => [name, 'written'], (e: unknown) => [name, e]));
      release();
      await migration;
      for (const [name, outcome] of await Promise.all(writes)) expect(outcome, String(name)).toBeInstanceOf(PreviousWafRetiredError);
      expect((await store.waf.getPreviousConfig(ZONE_IDS.enterprise))?.uri_overrides).toEqual([override]);
    });

    it('rolls an override back with the transaction that created it', async () => {
      const store = await harness().fresh();
      await expect(
        store.transaction(async (tx) => {
          await tx.waf.createUriOverride(ZONE_IDS.enterprise, OVERRIDE);
          throw new Error('abandon');
        }),
      ).rejects.toThrow('abandon');
      expect((await store.waf.getPreviousConfig(ZONE_IDS.enterprise))?.uri_overrides).toEqual([]);
    });
  });
}
