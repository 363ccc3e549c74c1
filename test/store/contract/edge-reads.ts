import { describe, expect, it } from 'vitest';
import { SecretBox, steppingClock } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { MAIN_ACCOUNT_ID, ZONE_IDS } from './fixtures';

const box = new SecretBox(Buffer.alloc(32, 5));
const R2 = 'r2://edge-logs/http/{DATE}?account-id=023e105f4ecef8ad9ca31a8372d0c353&access-key-id=LOGKEY&secret-access-key=the-secret-value';

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

    it('seals a destination that carries credentials, answers it as written, and never holds its secret in plain text', async () => {
      const store = await harness().fresh({ secrets: box });
      const job = await store.logpushJobs.create(ZONE_IDS.pro, { dataset: 'http_requests', destination_conf: R2, enabled: true });
      expect(job.destination_conf).toBe(R2);
      expect((await store.logpushJobs.get(ZONE_IDS.pro, job.id))!.destination_conf).toBe(R2);
      expect((await store.logpushJobs.update(ZONE_IDS.pro, job.id, { enabled: false })).destination_conf).toBe(R2);
      const plain = await store.logpushJobs.create(ZONE_IDS.pro, { dataset: 'http_requests', destination_conf: 's3://logs/x?region=us-east-1' });
      const rows: string[] = [];
      await store.dump.export((entry) => void rows.push(JSON.stringify(entry)));
      expect(rows.join('\n')).not.toContain('the-secret-value');
      // A destination without credentials is kept as written.
      expect(rows.join('\n')).toContain('s3://logs/x?region=us-east-1');
      const stranger = await harness().reopen({ secrets: new SecretBox(Buffer.alloc(32, 6)) });
      try {
        expect((await stranger.logpushJobs.get(ZONE_IDS.pro, job.id))!.destination_conf).toMatch(/^\(a destination sealed under another secrets key: /);
        expect((await stranger.logpushJobs.get(ZONE_IDS.pro, plain.id))!.destination_conf).toBe('s3://logs/x?region=us-east-1');
      } finally {
        await stranger.close();
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
