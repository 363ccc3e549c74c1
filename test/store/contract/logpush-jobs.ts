import { describe, expect, it } from 'vitest';
import { fixedClock, NotFoundError } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { fixtureId, ZONE_IDS } from './fixtures';

const JOB = {
  name: 'http-logs',
  dataset: 'http_requests',
  destination_conf: 's3://logs/http?region=us-east-1',
  logpull_options: 'fields=ClientIP,RequestHeaders&timestamps=rfc3339',
};

export function logpushJobsContract(harness: () => StoreHarness): void {
  describe('log push jobs', () => {
    it('creates jobs with integer ids after the seeded ones, with defaults filled in', async () => {
      const store = await harness().fresh({ clock: fixedClock('2026-11-21T10:00:00.123456Z') });
      const job = await store.logpushJobs.create(ZONE_IDS.business, JOB);
      expect(job).toEqual({
        id: 3,
        ...JOB,
        output_options: null,
        enabled: false,
        frequency: 'high',
        kind: '',
        last_complete: null,
        last_error: null,
        error_message: null,
        created_on: '2026-11-21T10:00:00.123456Z',
      });
      const next = await store.logpushJobs.create(ZONE_IDS.enterprise, { ...JOB, enabled: true });
      expect(next.id).toBe(4);
      expect(await store.logpushJobs.get(ZONE_IDS.business, 3)).toEqual(job);
      // Output options are kept as given, and cleared by null.
      const output_options = { field_names: ['RayID', 'ClientIP'], output_type: 'csv' as const, record_template: '{{.RayID}}' };
      const structured = await store.logpushJobs.create(ZONE_IDS.business, { ...JOB, output_options });
      expect((await store.logpushJobs.get(ZONE_IDS.business, structured.id))?.output_options).toEqual(output_options);
      expect((await store.logpushJobs.update(ZONE_IDS.business, structured.id, { output_options: null })).output_options).toBeNull();
      expect((await store.logpushJobs.get(ZONE_IDS.business, structured.id))?.output_options).toBeNull();
    });

    it('lists a zone’s jobs oldest first and hides other zones’ jobs', async () => {
      const store = await harness().fresh();
      await store.logpushJobs.create(ZONE_IDS.pro, JOB);
      expect((await store.logpushJobs.list(ZONE_IDS.pro)).map((job) => [job.id, job.dataset])).toEqual([
        [1, 'http_requests'],
        [3, 'http_requests'],
      ]);
      expect(await store.logpushJobs.get(ZONE_IDS.business, 1)).toBeNull();
      expect(await store.logpushJobs.get(ZONE_IDS.pro, 1.5)).toBeNull();
      expect(await store.logpushJobs.list(fixtureId('no-zone'))).toEqual([]);
    });

    it('updates the fields sent and keeps the rest', async () => {
      const store = await harness().fresh();
      const updated = await store.logpushJobs.update(ZONE_IDS.pro, 1, {
        logpull_options: 'fields=ClientIP,Cookies&timestamps=rfc3339',
        enabled: false,
      });
      expect(updated).toMatchObject({
        id: 1,
        name: 'example-org-http-requests',
        dataset: 'http_requests',
        logpull_options: 'fields=ClientIP,Cookies&timestamps=rfc3339',
        enabled: false,
      });
      expect(await store.logpushJobs.get(ZONE_IDS.pro, 1)).toEqual(updated);
    });

    it('refuses jobs of unknown zones and updates of unknown jobs', async () => {
      const store = await harness().fresh();
      await expect(store.logpushJobs.create(fixtureId('no-zone'), JOB)).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.logpushJobs.update(ZONE_IDS.business, 1, { enabled: true })).rejects.toThrow('logpush_job 1 not found');
      // The refused creation used no id.
      expect((await store.logpushJobs.create(ZONE_IDS.pro, JOB)).id).toBe(3);
    });
  });
}
