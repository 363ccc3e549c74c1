import { describe, expect, it } from 'vitest';
import { InvalidInputError, MAX_PER_PAGE } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { fixtureId, ZONE_IDS } from './fixtures';

export function certificatePacksContract(harness: () => StoreHarness): void {
  describe('certificate packs', () => {
    it('lists a zone’s packs with their certificates, 20 per page by default', async () => {
      const store = await harness().fresh();
      const page = await store.certificatePacks.list(ZONE_IDS.enterprise);
      expect(page.result_info).toEqual({ page: 1, per_page: 20, count: 20, total_count: 25, total_pages: 2 });
      const universal = page.items[0];
      expect(universal).toMatchObject({
        type: 'universal',
        status: 'active',
        hosts: ['example.com', '*.example.com'],
        validity_days: 90,
        certificate_authority: 'lets_encrypt',
      });
      expect(universal?.certificates.map((certificate) => certificate.signature)).toEqual(['ECDSAWithSHA256', 'SHA256WithRSA']);
      expect(universal?.primary_certificate).toBe(universal?.certificates[0]?.id);
      expect(universal?.certificates.every((certificate) => certificate.zone_id === ZONE_IDS.enterprise)).toBe(true);
      const createdOn = page.items.map((pack) => pack.created_on);
      expect(createdOn).toEqual([...createdOn].sort());
    });

    it('pages to the end and answers an empty page past it', async () => {
      const store = await harness().fresh();
      const seen = new Set<string>();
      for (let page = 1; page <= 3; page += 1) {
        const result = await store.certificatePacks.list(ZONE_IDS.enterprise, { page, per_page: 10 });
        result.items.forEach((pack) => seen.add(pack.id));
        expect(result.result_info).toEqual({
          page,
          per_page: 10,
          count: [10, 10, 5][page - 1],
          total_count: 25,
          total_pages: 3,
        });
      }
      expect(seen.size).toBe(25);
      const past = await store.certificatePacks.list(ZONE_IDS.enterprise, { page: 4, per_page: 10 });
      expect(past.items).toEqual([]);
      expect(past.result_info).toEqual({ page: 4, per_page: 10, count: 0, total_count: 25, total_pages: 3 });
    });

    it('filters by status, with `all` meaning every status', async () => {
      const store = await harness().fresh();
      const pending = await store.certificatePacks.list(ZONE_IDS.enterprise, { status: 'pending_validation', per_page: 50 });
      expect(pending.result_info.total_count).toBe(2);
      expect(pending.items.every((pack) => pack.status === 'pending_validation' && pack.certificates.length === 0)).toBe(true);
      expect(pending.items.every((pack) => pack.primary_certificate === null)).toBe(true);
      const all = await store.certificatePacks.list(ZONE_IDS.enterprise, { status: 'all' });
      expect(all.result_info.total_count).toBe(25);
      expect((await store.certificatePacks.list(ZONE_IDS.enterprise, { status: 'no_such_status' })).result_info.total_count).toBe(0);
    });

    it('orders by the asked attribute and direction', async () => {
      const store = await harness().fresh();
      const newest = await store.certificatePacks.list(ZONE_IDS.enterprise, { order: 'created_on', direction: 'desc', per_page: 3 });
      const oldest = await store.certificatePacks.list(ZONE_IDS.enterprise, { order: 'created_on', direction: 'asc', per_page: 25 });
      expect(newest.items.map((pack) => pack.id)).toEqual(oldest.items.slice(-3).reverse().map((pack) => pack.id));
      const byStatus = await store.certificatePacks.list(ZONE_IDS.enterprise, { order: 'status', per_page: 25 });
      const statuses = byStatus.items.map((pack) => pack.status);
      expect(statuses).toEqual([...statuses].sort());
    });

    it('refuses bad paging with a clear error', async () => {
      const store = await harness().fresh();
      const cases: [object, RegExp][] = [
        [{ page: 0 }, /page must be a whole number of at least 1, got 0/],
        [{ page: 1.5 }, /page must be a whole number/],
        [{ per_page: 0 }, new RegExp(`per_page must be a whole number from 1 to ${MAX_PER_PAGE}, got 0`)],
        [{ per_page: MAX_PER_PAGE + 1 }, /per_page must be a whole number/],
        [{ order: 'hosts' }, /cannot order by "hosts"; use one of created_on, status, type, id/],
        [{ direction: 'sideways' }, /direction must be asc or desc, got "sideways"/],
        [{ page: Number.MAX_SAFE_INTEGER, per_page: 1000 }, /too large/],
      ];
      for (const [request, message] of cases) {
        const error = await store.certificatePacks.list(ZONE_IDS.enterprise, request).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidInputError);
        expect((error as Error).message).toMatch(message);
      }
    });

    it('gets one pack of a zone, and nothing through another zone', async () => {
      const store = await harness().fresh();
      const id = fixtureId(`certificate-pack:${ZONE_IDS.business}:0`);
      expect((await store.certificatePacks.get(ZONE_IDS.business, id))?.hosts).toEqual(['example.net', '*.example.net']);
      expect(await store.certificatePacks.get(ZONE_IDS.enterprise, id)).toBeNull();
      expect((await store.certificatePacks.list(fixtureId('no-zone'))).items).toEqual([]);
    });
  });
}
