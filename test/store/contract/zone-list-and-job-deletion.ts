import { describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { MAIN_ACCOUNT_ID, SECOND_ACCOUNT_ID, ZONE_IDS } from './fixtures';

const JOB = { dataset: 'http_requests', destination_conf: 's3://logs/http?region=us-east-1' };

export function zoneListAndJobDeletionContract(harness: () => StoreHarness): void {
  describe('zones: the list filters', () => {
    it('filters names with the real service’s operators, case-insensitive unless asked', async () => {
      const store = await harness().fresh();
      const names = async (filter: Parameters<typeof store.zones.list>[0]) =>
        (await store.zones.list(filter, { order: 'name' })).items.map((zone) => zone.name);
      expect(await names({ name: { operator: 'equal', value: 'EXAMPLE.com' } })).toEqual(['example.com']);
      expect(await names({ name: { operator: 'starts_with', value: 'example-' } })).toEqual(['example-api.com', 'example-blog.com', 'example-shop.com']);
      expect(await names({ name: { operator: 'ends_with', value: '.DEV' } })).toEqual(['sandbox-labs.dev']);
      expect(await names({ name: { operator: 'ends_with_case_sensitive', value: '.DEV' } })).toEqual([]);
      expect(await names({ name: { operator: 'contains', value: 'SHOP' } })).toEqual(['example-shop.com']);
      expect(await names({ name: { operator: 'contains_case_sensitive', value: 'SHOP' } })).toEqual([]);
      expect(await names({ name: { operator: 'not_equal', value: 'example.com' }, account_id: MAIN_ACCOUNT_ID })).toEqual([
        'example-api.com', 'example-blog.com', 'example-shop.com', 'example.net', 'example.org',
      ]);
      expect(await names({ account_name: { operator: 'starts_with', value: 'sandbox' } })).toEqual(['sandbox-labs.dev']);
      expect(await names({ status: 'pending' })).toEqual([]);
    });

    it('matches all filters by default, any with match=any', async () => {
      const store = await harness().fresh();
      const filter = { name: { operator: 'equal', value: 'example.org' }, account_id: SECOND_ACCOUNT_ID } as const;
      expect((await store.zones.list(filter)).items).toEqual([]);
      const any = await store.zones.list({ ...filter, match: 'any' }, { order: 'name' });
      expect(any.items.map((zone) => zone.name)).toEqual(['example.org', 'sandbox-labs.dev']);
    });

    it('orders by account and plan attributes, pages, and keeps only reachable zones', async () => {
      const store = await harness().fresh();
      const byAccount = await store.zones.list({}, { order: 'account.name', direction: 'desc', per_page: 2 });
      expect(byAccount.items[0]?.name).toBe('sandbox-labs.dev');
      expect(byAccount.result_info).toEqual({ page: 1, per_page: 2, count: 2, total_count: 7, total_pages: 4 });
      const byPlan = (await store.zones.list({}, { order: 'plan.id', per_page: 50 })).items.map((zone) => zone.plan.id);
      expect(byPlan).toEqual([...byPlan].sort());
      const within = await store.zones.list({ within: { zone_ids: [ZONE_IDS.pro], account_ids: [SECOND_ACCOUNT_ID] } }, { order: 'name' });
      expect(within.items.map((zone) => zone.name)).toEqual(['example.org', 'sandbox-labs.dev']);
      await expect(store.zones.list({}, { order: 'owner' as never })).rejects.toThrow(InvalidInputError);
    });
  });

  describe('log push jobs: deletion', () => {
    it('deletes a zone’s job and only that; ids are never reused', async () => {
      const store = await harness().fresh();
      const job = await store.logpushJobs.create(ZONE_IDS.business, JOB);
      await expect(store.logpushJobs.delete(ZONE_IDS.pro, job.id)).rejects.toThrow(NotFoundError);
      await store.logpushJobs.delete(ZONE_IDS.business, job.id);
      expect(await store.logpushJobs.get(ZONE_IDS.business, job.id)).toBeNull();
      await expect(store.logpushJobs.delete(ZONE_IDS.business, job.id)).rejects.toThrow(NotFoundError);
      await expect(store.logpushJobs.delete(ZONE_IDS.business, Number.MAX_SAFE_INTEGER + 2)).rejects.toThrow(NotFoundError);
      expect((await store.logpushJobs.create(ZONE_IDS.business, JOB)).id).toBe(job.id + 1);
    });
  });
}
