// The catalogue's accounts and settings, on the data directory and on PostgreSQL: bucket names
// per account, filtering and paging, CORS and lifecycle rules kept per bucket and seen at once by
// another catalogue on the same place, and the runtime honouring the lifecycle rules (upload abort
// age by prefix, object expiry) instead of a fixed 7 days. The directory's own layout (the home
// account in its buckets/ folder, buckets made before settings existed) is tested apart.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BucketCatalogue, BucketCatalogueError, DEFAULT_LIFECYCLE_RULES, HOME_ACCOUNT_ID, type LifecycleRule } from '../../src/bucket';
import { PLACE_KINDS, useCataloguePlaces, type Place } from './catalogue-places';
import { temporaryDirectory } from './engines';

const OTHER = '5a7805061c76ada191ed06f989cc3dac';
const DAY = 24 * 60 * 60 * 1000;
const places = useCataloguePlaces();

async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(BucketCatalogueError);
  return (error as BucketCatalogueError).code;
}

describe.each(PLACE_KINDS)('on %s', (kind) => {
const catalogueAt = (place?: Place, clock?: () => number) =>
  places.open(kind, place, { defaults: { minimumPartSize: 1, ...(clock ? { clock } : {}) } });

describe('accounts', () => {
  test('another account has its own bucket names and objects', async () => {
    const { catalogue, place } = await catalogueAt();
    await catalogue.account(HOME_ACCOUNT_ID).create('shared-name');
    await catalogue.account(OTHER).create('shared-name', { locationHint: 'weur' });
    if (kind === 'disk') {
      expect(existsSync(join(place.dataDir, 'buckets', 'shared-name', 'bucket.json'))).toBe(true);
      expect(existsSync(join(place.dataDir, 'accounts', OTHER, 'buckets', 'shared-name', 'bucket.json'))).toBe(true);
    }
    expect((await catalogue.list()).map((b) => [b.name, b.account, b.location])).toEqual([['shared-name', HOME_ACCOUNT_ID, 'enam']]);
    expect((await catalogue.account(OTHER).get('shared-name')).location).toBe('weur');
    // Objects of one account's bucket are not the other's.
    const home = await catalogue.open('shared-name');
    await home.put('k', 'home');
    const other = await catalogue.account(OTHER).open('shared-name');
    expect(await other.get('k')).toBeNull();
  });

  test('an account id that is not 32 hex characters is refused', async () => {
    const { catalogue } = await catalogueAt();
    expect(() => catalogue.account('../../etc')).toThrow(TypeError);
  });
});

describe('listing', () => {
  test('filters by name, pages with a cursor, both directions, per jurisdiction', async () => {
    const { catalogue } = await catalogueAt();
    const buckets = catalogue.account();
    for (const name of ['logs-a', 'logs-b', 'assets', 'logs-c', 'photos']) await buckets.create(name);
    await buckets.create('eu-logs', { jurisdiction: 'eu' });
    const first = await buckets.list({ nameContains: 'logs', perPage: 2 });
    expect(first.buckets.map((b) => b.name)).toEqual(['logs-a', 'logs-b']);
    const second = await buckets.list({ nameContains: 'logs', perPage: 2, cursor: first.cursor! });
    expect(second.buckets.map((b) => b.name)).toEqual(['logs-c']);
    expect(second.cursor).toBeUndefined();
    expect((await buckets.list({ direction: 'desc', startAfter: 'logs-b' })).buckets.map((b) => b.name)).toEqual(['logs-a', 'assets']);
    expect((await buckets.list({ jurisdiction: 'eu' })).buckets.map((b) => b.name)).toEqual(['eu-logs']);
    await expect(buckets.list({ cursor: 'not-a-cursor' })).rejects.toThrow(RangeError);
    // A bucket is found only through its jurisdiction.
    expect(await codeOf(buckets.get('eu-logs'))).toBe(10006);
    expect((await buckets.get('eu-logs', { jurisdiction: 'eu' })).jurisdiction).toBe('eu');
    // Names are unique per account, whatever the jurisdiction.
    expect(await codeOf(buckets.create('eu-logs'))).toBe(10004);
  });
});

describe('settings', () => {
  test('storage class, CORS and lifecycle rules persist and another catalogue on the same place sees them at once', async () => {
    const { catalogue, place } = await catalogueAt();
    const mine = catalogue.account();
    await mine.create('site');
    const theirs = (await catalogueAt(place)).catalogue.account();
    expect(await theirs.lifecycle('site')).toEqual(DEFAULT_LIFECYCLE_RULES);

    await mine.setStorageClass('site', 'InfrequentAccess');
    expect((await theirs.get('site')).storageClass).toBe('InfrequentAccess');
    const cors = [{ allowed: { origins: ['https://app.example.com'], methods: ['GET' as const] }, maxAgeSeconds: 60 }];
    await mine.setCors('site', cors);
    expect(await theirs.cors('site')).toEqual(cors);
    await theirs.setCors('site', []);
    expect(await mine.cors('site')).toBeNull();
    const rules: LifecycleRule[] = [{ id: 'x', enabled: true, conditions: { prefix: 'tmp/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 60 } } }];
    await theirs.setLifecycle('site', rules);
    expect(await mine.lifecycle('site')).toEqual(rules);
    expect(await codeOf(mine.setCors('nope', cors))).toBe(10006);
  });

  test('deleting a bucket removes its settings with it', async () => {
    const { catalogue } = await catalogueAt();
    const buckets = catalogue.account();
    await buckets.create('gone');
    await buckets.setCors('gone', [{ allowed: { origins: ['*'], methods: ['GET'] } }]);
    await buckets.delete('gone');
    await buckets.create('gone');
    expect(await buckets.cors('gone')).toBeNull();
  });
});

describe('the runtime honours the lifecycle rules', () => {
  test('uploads are aborted at the age of the matching rule, not after a fixed 7 days', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { catalogue } = await catalogueAt(undefined, () => now);
    const buckets = catalogue.account();
    await buckets.create('uploads');
    await buckets.setLifecycle('uploads', [
      { id: 'tmp', enabled: true, conditions: { prefix: 'tmp/' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 3600 } } },
      { id: 'rest', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 2 * 86400 } } },
    ]);
    const bucket = await buckets.open('uploads');
    await bucket.createMultipartUpload('tmp/a');
    await bucket.createMultipartUpload('keep/b');
    now += 2 * 3600 * 1000;
    expect((await bucket.listMultipartUploads()).map((u) => u.key)).toEqual(['keep/b']);
    now += 2 * DAY;
    expect(await bucket.listMultipartUploads()).toEqual([]);
  });

  test('without an abort rule, an upload outlives 7 days; with the default rule it does not', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { catalogue } = await catalogueAt(undefined, () => now);
    const buckets = catalogue.account();
    await buckets.create('kept');
    await buckets.create('default');
    await buckets.setLifecycle('kept', [{ id: 'off', enabled: false, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 60 } } }]);
    const kept = await buckets.open('kept');
    const byDefault = await buckets.open('default');
    await kept.createMultipartUpload('a');
    await byDefault.createMultipartUpload('a');
    now += 8 * DAY;
    expect(await kept.listMultipartUploads()).toHaveLength(1);
    expect(await byDefault.listMultipartUploads()).toHaveLength(0);
  });

  test('objects are deleted once a delete rule expires them, by age or by date', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { catalogue } = await catalogueAt(undefined, () => now);
    const buckets = catalogue.account();
    await buckets.create('expiring');
    await buckets.setLifecycle('expiring', [
      { id: 'logs', enabled: true, conditions: { prefix: 'logs/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 86400 } } },
      { id: 'promo', enabled: true, conditions: { prefix: 'promo/' }, deleteObjectsTransition: { condition: { type: 'Date', date: '2026-01-03T00:00:00Z' } } },
    ]);
    const bucket = await buckets.open('expiring');
    for (const key of ['logs/1', 'promo/1', 'keep/1']) await bucket.put(key, 'x');
    now += DAY + 1000;
    expect((await bucket.list()).objects.map((o) => o.key)).toEqual(['keep/1', 'promo/1']);
    now += DAY;
    expect(await bucket.head('promo/1')).toBeNull();
    expect(await bucket.head('keep/1')).not.toBeNull();
  });
});
});

describe('the data directory only', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  test('a bucket made before settings existed (bucket.json with name and date only) gets the defaults', async () => {
    const dataDir = temporaryDirectory(directories);
    mkdirSync(join(dataDir, 'buckets', 'legacy'), { recursive: true });
    writeFileSync(join(dataDir, 'buckets', 'legacy', 'bucket.json'), JSON.stringify({ name: 'legacy', createdAt: '2025-01-02T03:04:05.000Z' }));
    const catalogue = new BucketCatalogue(dataDir);
    try {
      const buckets = catalogue.account();
      expect(await buckets.get('legacy')).toEqual({
        name: 'legacy',
        account: HOME_ACCOUNT_ID,
        createdAt: new Date('2025-01-02T03:04:05.000Z'),
        location: 'enam',
        jurisdiction: 'default',
        storageClass: 'Standard',
      });
      expect(await buckets.lifecycle('legacy')).toEqual(DEFAULT_LIFECYCLE_RULES);
      expect(await buckets.cors('legacy')).toBeNull();
    } finally {
      await catalogue.close();
    }
  });
});
