// The catalogue's rules (names, creation, listing, opening, deletion) on both of its storages:
// the data directory and a PostgreSQL database. What only the directory does (its layout, the
// leftovers of a crash) is tested apart below.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BucketCatalogue, BucketCatalogueError } from '../../src/bucket';
import { PLACE_KINDS, useCataloguePlaces } from './catalogue-places';
import { temporaryDirectory } from './engines';

const places = useCataloguePlaces();

async function expectCatalogueError(promise: Promise<unknown>, code: number, message: string | RegExp) {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(BucketCatalogueError);
  expect((error as BucketCatalogueError).code).toBe(code);
  expect((error as BucketCatalogueError).message).toMatch(message);
}

describe.each(PLACE_KINDS)('on %s', (kind) => {
  const catalogueAt = (place?: Parameters<typeof places.open>[1], defaults = {}) => places.open(kind, place, { defaults });

  describe('bucket names', () => {
    test.each(['abc', 'a-b', '0-9', 'a'.repeat(63), 'my-bucket-2024'])('%s is valid', async (name) => {
      const { catalogue } = await catalogueAt();
      expect((await catalogue.create(name)).name).toBe(name);
      expect((await catalogue.list()).map((bucket) => bucket.name)).toEqual([name]);
    });

    test.each(['ab', 'a'.repeat(64), 'Abc', '-abc', 'abc-', 'a_b', 'a.b', 'a b', '', '../up', 'ab/c'])(
      '%j is refused (10005)',
      async (name) => {
        const { catalogue, place } = await catalogueAt();
        await expectCatalogueError(catalogue.create(name), 10005, /^The specified bucket name is not valid: /);
        await expectCatalogueError(catalogue.open(name), 10005, /lower-case letters, digits and hyphens/);
        expect(await catalogue.list()).toEqual([]);
        if (kind === 'disk') expect(readdirSync(join(place.dataDir, 'buckets'))).toEqual([]);
      },
    );

    test('a name that is not a string is refused (10005)', async () => {
      const { catalogue } = await catalogueAt();
      await expectCatalogueError(catalogue.create(42 as never), 10005, 'The specified bucket name is not valid: 42.');
    });
  });

  describe('create, list, open, delete', () => {
    test('buckets are created and listed by name, with their creation time', async () => {
      const { catalogue, place } = await catalogueAt();
      const before = Date.now();
      const created = await catalogue.create('photos');
      expect(created.createdAt.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      await catalogue.create('archive');
      if (kind === 'disk') expect(existsSync(join(place.dataDir, 'buckets', 'photos'))).toBe(true);
      const listed = await catalogue.list();
      expect(listed.map((bucket) => bucket.name)).toEqual(['archive', 'photos']);
      expect(listed[1]!.createdAt).toEqual(created.createdAt);
    });

    test('creating an existing bucket is refused (10004)', async () => {
      const { catalogue } = await catalogueAt();
      await catalogue.create('photos');
      await expectCatalogueError(catalogue.create('photos'), 10004, 'The bucket you tried to create already exists, and you own it: photos.');
      expect((await catalogue.list()).map((bucket) => bucket.name)).toEqual(['photos']);
    });

    test('of two catalogues creating one name at once, exactly one succeeds', async () => {
      const { catalogue, place } = await catalogueAt();
      const { catalogue: other } = await catalogueAt(place);
      const outcomes = await Promise.allSettled([catalogue.create('racing'), other.create('racing')]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await other.list()).map((bucket) => bucket.name)).toEqual(['racing']);
    });

    test('an opened bucket keeps its objects, seen by every catalogue of the same place', async () => {
      const { catalogue, place } = await catalogueAt();
      await catalogue.create('photos');
      const bucket = await catalogue.open('photos');
      await bucket.put('cat.jpg', Buffer.alloc(50_000, 1));
      const { catalogue: other } = await catalogueAt(place);
      expect((await other.list()).map((b) => b.name)).toEqual(['photos']);
      expect((await (await other.open('photos')).head('cat.jpg'))!.size).toBe(50_000);
      if (kind === 'disk') expect(readdirSync(join(place.dataDir, 'buckets', 'photos', 'blobs'))).toHaveLength(1);
    });

    test('open applies the catalogue defaults and the options of the call', async () => {
      const { catalogue } = await catalogueAt(undefined, { compatibilityDate: '2022-01-01' });
      await catalogue.create('b-1');
      const old = await catalogue.open('b-1');
      await old.put('k', 'v', { customMetadata: { a: '1' } });
      expect((await old.list()).objects[0]!.customMetadata).toEqual({ a: '1' });
      const current = await catalogue.open('b-1', { compatibilityDate: '2024-01-01' });
      expect((await current.list()).objects[0]!.customMetadata).toBeUndefined();
    });

    test('opening or deleting a missing bucket is refused (10006)', async () => {
      const { catalogue } = await catalogueAt();
      await expectCatalogueError(catalogue.open('nothing'), 10006, 'The specified bucket does not exist: nothing.');
      await expectCatalogueError(catalogue.delete('nothing'), 10006, 'The specified bucket does not exist: nothing.');
    });

    test('delete refuses a bucket with objects or uploads in progress (10008), then removes it once empty', async () => {
      const { catalogue, place } = await catalogueAt();
      await catalogue.create('photos');
      const bucket = await catalogue.open('photos');
      await bucket.put('cat.jpg', 'meow');
      const message = 'The bucket you tried to delete is not empty: photos still holds objects or multipart uploads in progress.';
      await expectCatalogueError(catalogue.delete('photos'), 10008, message);
      await bucket.delete('cat.jpg');
      const upload = await bucket.createMultipartUpload('big');
      await expectCatalogueError(catalogue.delete('photos'), 10008, message);
      await upload.abort();

      await catalogue.delete('photos');
      expect(await catalogue.list()).toEqual([]);
      if (kind === 'disk') expect(readdirSync(join(place.dataDir, 'buckets'))).toEqual([]);
      await expectCatalogueError(catalogue.open('photos'), 10006, /does not exist/);
      await catalogue.create('photos');
      expect((await (await catalogue.open('photos')).list()).objects).toEqual([]);
    });

    test('a bucket deleted and created again through another catalogue is the new one, empty', async () => {
      const { catalogue, place } = await catalogueAt();
      const { catalogue: other } = await catalogueAt(place);
      await catalogue.create('again');
      const kept = await catalogue.bucket('again');
      await kept.put('old', 'x');
      await kept.delete('old');
      const upload = await kept.createMultipartUpload('abandoned');
      await upload.abort();
      await other.delete('again');
      await expectCatalogueError(catalogue.bucket('again'), 10006, /does not exist/);
      await other.create('again');
      const fresh = await catalogue.bucket('again');
      expect(fresh).not.toBe(kept);
      await (await other.bucket('again')).put('new', 'y');
      expect((await fresh.list()).objects.map((o) => o.key)).toEqual(['new']);
    });
  });
});

describe('on disk only', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  test('a deletion interrupted by a crash is finished when a catalogue opens', async () => {
    const dataDir = temporaryDirectory(directories);
    mkdirSync(join(dataDir, 'buckets', '.deleting-0123', 'blobs'), { recursive: true });
    await new BucketCatalogue(dataDir).close();
    expect(readdirSync(join(dataDir, 'buckets'))).toEqual([]);
  });

  test('a data directory must be a path', () => {
    expect(() => new BucketCatalogue('')).toThrow('dataDir must be a directory path.');
  });
});
