import { describe, expect, it } from 'vitest';
import { fixedClock, NotFoundError } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { fixtureId, MAIN_ACCOUNT_ID, SECOND_ACCOUNT_ID, ZONE_IDS } from './fixtures';

const JOB = {
  name: 'gateway-dns',
  dataset: 'gateway_dns',
  destination_conf: 's3://logs/gateway_dns?region=us-east-1',
  logpull_options: 'fields=Datetime,QueryName&timestamps=rfc3339',
};

export function accountLogpushJobsContract(harness: () => StoreHarness): void {
  describe('account log push jobs', () => {
    it('takes ids from the one sequence of zone and account jobs', async () => {
      const store = await harness().fresh({ clock: fixedClock('2026-11-23T10:00:00.500000Z') });
      const job = await store.accountLogpushJobs.create(MAIN_ACCOUNT_ID, JOB);
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
        created_on: '2026-11-23T10:00:00.500000Z',
      });
      expect((await store.logpushJobs.create(ZONE_IDS.pro, { dataset: 'http_requests', destination_conf: 's3://z?region=x' })).id).toBe(4);
      expect((await store.accountLogpushJobs.create(SECOND_ACCOUNT_ID, JOB)).id).toBe(5);
      expect(await store.accountLogpushJobs.get(MAIN_ACCOUNT_ID, 3)).toEqual(job);
    });

    it('keeps account and zone jobs apart, and each account’s jobs to itself', async () => {
      const store = await harness().fresh();
      await store.accountLogpushJobs.create(MAIN_ACCOUNT_ID, JOB);
      await store.accountLogpushJobs.create(MAIN_ACCOUNT_ID, { ...JOB, dataset: 'audit_logs', logpull_options: null });
      expect((await store.accountLogpushJobs.list(MAIN_ACCOUNT_ID)).map((job) => [job.id, job.dataset])).toEqual([
        [3, 'gateway_dns'],
        [4, 'audit_logs'],
      ]);
      expect(await store.accountLogpushJobs.list(SECOND_ACCOUNT_ID)).toEqual([]);
      expect(await store.accountLogpushJobs.get(SECOND_ACCOUNT_ID, 3)).toBeNull();
      // The seeded zone job 1 is not an account job, and account job 3 is no zone's.
      expect(await store.accountLogpushJobs.get(MAIN_ACCOUNT_ID, 1)).toBeNull();
      expect(await store.logpushJobs.get(ZONE_IDS.pro, 3)).toBeNull();
      expect((await store.logpushJobs.list(ZONE_IDS.pro)).map((job) => job.id)).toEqual([1]);
    });

    it('updates the fields sent and deletes, only through the owning account', async () => {
      const store = await harness().fresh();
      const job = await store.accountLogpushJobs.create(MAIN_ACCOUNT_ID, JOB);
      const updated = await store.accountLogpushJobs.update(MAIN_ACCOUNT_ID, job.id, { enabled: true, name: null });
      expect(updated).toEqual({ ...job, enabled: true, name: null });
      expect(await store.accountLogpushJobs.get(MAIN_ACCOUNT_ID, job.id)).toEqual(updated);
      await expect(store.accountLogpushJobs.update(SECOND_ACCOUNT_ID, job.id, { enabled: false })).rejects.toThrow(`logpush_job ${job.id} not found`);
      await expect(store.accountLogpushJobs.delete(SECOND_ACCOUNT_ID, job.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.accountLogpushJobs.delete(MAIN_ACCOUNT_ID, 1)).rejects.toThrow('logpush_job 1 not found');
      await expect(store.logpushJobs.delete(ZONE_IDS.pro, job.id)).rejects.toBeInstanceOf(NotFoundError);
      await store.accountLogpushJobs.delete(MAIN_ACCOUNT_ID, job.id);
      expect(await store.accountLogpushJobs.list(MAIN_ACCOUNT_ID)).toEqual([]);
      expect(await store.logpushJobs.get(ZONE_IDS.pro, 1)).not.toBeNull();
    });

    it('gives concurrent creations in accounts and zones distinct ids, and loses none', async () => {
      const store = await harness().fresh();
      const created = await Promise.all([
        ...[MAIN_ACCOUNT_ID, SECOND_ACCOUNT_ID, MAIN_ACCOUNT_ID, SECOND_ACCOUNT_ID].map((account) => store.accountLogpushJobs.create(account, JOB)),
        store.logpushJobs.create(ZONE_IDS.pro, { dataset: 'http_requests', destination_conf: 's3://z?region=x' }),
      ]);
      const ids = created.map((job) => job.id);
      expect(new Set(ids).size).toBe(5);
      expect(ids.every((id) => id > 2)).toBe(true);
      const listed = [...(await store.accountLogpushJobs.list(MAIN_ACCOUNT_ID)), ...(await store.accountLogpushJobs.list(SECOND_ACCOUNT_ID))];
      expect(listed.map((job) => job.id).sort((a, b) => a - b)).toEqual(ids.slice(0, 4).sort((a, b) => a - b));
    });

    it('refuses jobs of unknown accounts without using an id', async () => {
      const store = await harness().fresh();
      await expect(store.accountLogpushJobs.create(fixtureId('no-account'), JOB)).rejects.toThrow(NotFoundError);
      await expect(store.accountLogpushJobs.create(ZONE_IDS.pro, JOB)).rejects.toThrow(`account ${ZONE_IDS.pro} not found`);
      expect((await store.accountLogpushJobs.create(MAIN_ACCOUNT_ID, JOB)).id).toBe(3);
    });
  });
}
