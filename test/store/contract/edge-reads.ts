import { describe, expect, it } from 'vitest';
import { steppingClock } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { MAIN_ACCOUNT_ID, ZONE_IDS } from './fixtures';

const BLOCK = { action: 'block', expression: 'http.request.uri.path eq "/admin"', description: 'No admin' };

export function edgeReadsContract(harness: () => StoreHarness): void {
  describe('what the edge reads', () => {
    it('the change marker moves with every ruleset write, migration and job setting, in another store on the database too', async () => {
      const store = await harness().fresh();
      const other = await harness().reopen();
      try {
        const markers = [await store.changeMarker()];
        const moved = async () => {
          const marker = await other.changeMarker();
          expect(markers).not.toContain(marker);
          markers.push(marker);
        };
        expect(await other.changeMarker()).toBe(markers[0]);
        const { ruleset } = await store.rulesets.putEntryPoint({ zone_id: ZONE_IDS.pro }, 'http_request_firewall_custom', { rules: [BLOCK] });
        await moved();
        await store.rulesets.updateRule({ zone_id: ZONE_IDS.pro }, ruleset.id, ruleset.rules[0]!.id, { enabled: false });
        await moved();
        await store.rulesets.putEntryPoint({ account_id: MAIN_ACCOUNT_ID }, 'http_request_firewall_custom', { rules: [BLOCK] });
        await moved();
        await store.rulesets.delete({ zone_id: ZONE_IDS.pro }, ruleset.id);
        await moved();
        await store.logpushJobs.update(ZONE_IDS.pro, 1, { enabled: false });
        await moved();
        await store.waf.transition(ZONE_IDS.business, { from: ['start'], to: 'finished', old_managed_rules_enabled: false, new_managed_rules_enabled: true });
        await moved();
        // What a delivery records is not a setting: the marker stays.
        await store.logpushJobs.recordDelivery(ZONE_IDS.pro, 1, { error: null });
        expect(await other.changeMarker()).toBe(markers.at(-1));
      } finally {
        await other.close();
      }
    });

    it('records deliveries: a success clears the failure, a failure names the time and the reason', async () => {
      const store = await harness().fresh({ clock: steppingClock('2026-11-23T10:00:00.000000Z', 1_000_000) });
      expect(await store.logpushJobs.recordDelivery(ZONE_IDS.pro, 1, { error: 'error uploading to bucket edge-logs: NoSuchBucket' })).toBe(true);
      const failed = await store.logpushJobs.get(ZONE_IDS.pro, 1);
      expect(failed).toMatchObject({ last_complete: null, error_message: 'error uploading to bucket edge-logs: NoSuchBucket' });
      expect(failed!.last_error).toMatch(/^2026-11-23T10:00:0\d\.000000Z$/);
      expect(await store.logpushJobs.recordDelivery(ZONE_IDS.pro, 1, { error: null })).toBe(true);
      const recovered = await store.logpushJobs.get(ZONE_IDS.pro, 1);
      expect(recovered).toMatchObject({ last_error: null, error_message: null });
      expect(recovered!.last_complete! > failed!.last_error!).toBe(true);
      // Another owner's job, or one deleted meanwhile, records nothing.
      expect(await store.logpushJobs.recordDelivery(ZONE_IDS.enterprise, 1, { error: null })).toBe(false);
      expect(await store.logpushJobs.recordDelivery(ZONE_IDS.pro, 999, { error: null })).toBe(false);
    });
  });
}
