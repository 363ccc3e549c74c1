import { describe, expect } from 'vitest';
import type { ListOptions, ListResult, OpenBucket } from '../../src/bucket';
import { eachEngine, expectBucketError, test } from './engines';

const keysOf = (page: ListResult) => page.objects.map((object) => object.key);

/** Every page of a listing, following cursors. */
async function allPages(bucket: OpenBucket, options: ListOptions): Promise<ListResult[]> {
  const pages: ListResult[] = [];
  let cursor = options.cursor;
  do {
    const page = await bucket.list({ ...options, cursor });
    pages.push(page);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return pages;
}

eachEngine(({ open }) => {
  const withKeys = async (keys: string[], options = {}) => {
    const bucket = open(options);
    // In batches: a thousand calls at once through Miniflare's proxy can fail on a loaded machine.
    for (let start = 0; start < keys.length; start += 100) {
      await Promise.all(keys.slice(start, start + 100).map((key) => bucket.put(key, key)));
    }
    return bucket;
  };

  test('an empty bucket lists nothing and is not truncated', async () => {
    const page = await open().list();
    expect(page).toEqual({ objects: [], delimitedPrefixes: [], truncated: false });
    expect('cursor' in page).toBe(false);
  });

  test('keys come in byte order of their UTF-8 encoding', async () => {
    const bucket = await withKeys(['b', '😀', 'a', '\uFFFF', 'é', 'A', 'a0', '']);
    expect(keysOf(await bucket.list())).toEqual(['', 'A', 'a', 'a0', 'b', 'é', '\uFFFF', '😀']);
  });

  test('listed objects carry their metadata fields', async () => {
    const bucket = open();
    const stored = await bucket.put('k', 'value');
    const [listed] = (await bucket.list()).objects;
    expect(listed).toMatchObject({ key: 'k', size: 5, etag: stored.etag, version: stored.version, storageClass: 'Standard' });
    expect(listed!.uploaded).toEqual(stored.uploaded);
    expect(listed!.checksums.toJSON()).toEqual(stored.checksums.toJSON());
    expect(listed).toHaveProperty('range', undefined);
  });

  describe('limit', () => {
    test('defaults to 1000 and pages beyond it', async () => {
      const bucket = await withKeys(Array.from({ length: 1001 }, (_, i) => `key-${String(i).padStart(4, '0')}`));
      const first = await bucket.list();
      expect(first.objects).toHaveLength(1000);
      expect(first.truncated).toBe(true);
      const second = await bucket.list({ cursor: first.truncated ? first.cursor : '' });
      expect(keysOf(second)).toEqual(['key-1000']);
      expect(second.truncated).toBe(false);
    });

    test('is a whole number from 1 to 1000', async () => {
      const bucket = open();
      for (const limit of [0, 1001, 1.5, -3]) {
        await expectBucketError(bucket.list({ limit }), 10022, 'list: MaxKeys params must be positive integer <= 1000. (10022)');
      }
      await expect(bucket.list({ limit: '10' as never })).rejects.toThrow('limit must be a number, not a string.');
      expect((await bucket.list({ limit: 1000 })).truncated).toBe(false);
    });

    test('truncated and cursor appear only while more remains', async () => {
      const bucket = await withKeys(['a', 'b', 'c', 'd']);
      const pages = await allPages(bucket, { limit: 2 });
      expect(pages.map(keysOf)).toEqual([['a', 'b'], ['c', 'd']]);
      expect(pages.map((page) => page.truncated)).toEqual([true, false]);
      expect('cursor' in pages[1]!).toBe(false);
    });
  });

  describe('prefix, startAfter and cursor', () => {
    test('prefix keeps the keys that start with it', async () => {
      const bucket = await withKeys(['a', 'ab', 'abc', 'abd', 'ac', 'b']);
      expect(keysOf(await bucket.list({ prefix: 'ab' }))).toEqual(['ab', 'abc', 'abd']);
      expect(keysOf(await bucket.list({ prefix: 'z' }))).toEqual([]);
    });

    test('startAfter is exclusive and combines with prefix', async () => {
      const bucket = await withKeys(['a', 'ab', 'abc', 'abd', 'b']);
      expect(keysOf(await bucket.list({ startAfter: 'ab' }))).toEqual(['abc', 'abd', 'b']);
      expect(keysOf(await bucket.list({ startAfter: 'abc', prefix: 'ab' }))).toEqual(['abd']);
      expect(keysOf(await bucket.list({ startAfter: '0', prefix: 'ab' }))).toEqual(['ab', 'abc', 'abd']);
    });

    test('with a cursor and startAfter, listing resumes at the later of the two', async () => {
      const bucket = await withKeys(['a', 'b', 'c', 'd', 'e']);
      const first = await bucket.list({ limit: 2 });
      const cursor = first.truncated ? first.cursor : '';
      expect(keysOf(await bucket.list({ cursor, startAfter: 'c' }))).toEqual(['d', 'e']);
      expect(keysOf(await bucket.list({ cursor, startAfter: 'a' }))).toEqual(['c', 'd', 'e']);
    });

    test('a cursor stays correct while keys are added and deleted', async () => {
      const bucket = await withKeys(['a', 'b', 'c', 'd']);
      const first = await bucket.list({ limit: 2 });
      expect(keysOf(first)).toEqual(['a', 'b']);
      await bucket.put('aa', 'before the cursor');
      await bucket.put('e', 'after the cursor');
      await bucket.put('bb', 'just after the cursor');
      await bucket.delete('c');
      const rest = await allPages(bucket, { limit: 2, cursor: first.truncated ? first.cursor : '' });
      expect(rest.flatMap(keysOf)).toEqual(['bb', 'd', 'e']);
    });

    test('an unknown cursor yields an empty page, not an error', async () => {
      const bucket = await withKeys(['a', 'b', 'c']);
      const first = await bucket.list({ limit: 1 });
      const real = first.truncated ? first.cursor : '';
      const tampered = real.slice(0, -2) + (real.endsWith('A') ? 'BB' : 'AA');
      for (const cursor of ['garbage', '', tampered, 'AAAAAAAAAAAAAAAAAAAA']) {
        expect(await bucket.list({ cursor })).toEqual({ objects: [], delimitedPrefixes: [], truncated: false });
      }
    });

    test('options of the wrong type are argument errors', async () => {
      const bucket = open();
      await expect(bucket.list({ prefix: 1 as never })).rejects.toThrow('prefix must be a string, not a number.');
      await expect(bucket.list({ startAfter: {} as never })).rejects.toThrow(TypeError);
      await expect(bucket.list({ cursor: 3 as never })).rejects.toThrow(TypeError);
      await expect(bucket.list({ delimiter: ['/'] as never })).rejects.toThrow(TypeError);
      await expect(bucket.list('a' as never)).rejects.toThrow('list options must be an object, not a string.');
    });
  });

  describe('delimiter', () => {
    const tree = ['a/b/c', 'a/b/d', 'a/e', 'f', 'g/h', 'gz'];

    test('without a prefix, a/b/c is grouped under the prefix a/', async () => {
      const page = await (await withKeys(tree)).list({ delimiter: '/' });
      expect(page.delimitedPrefixes).toEqual(['a/', 'g/']);
      expect(keysOf(page)).toEqual(['f', 'gz']);
    });

    test('with the prefix a/, a/b/c is grouped under a/b/', async () => {
      const page = await (await withKeys(tree)).list({ delimiter: '/', prefix: 'a/' });
      expect(page.delimitedPrefixes).toEqual(['a/b/']);
      expect(keysOf(page)).toEqual(['a/e']);
    });

    test('limit counts objects plus prefixes, and a cursor resumes after a whole group', async () => {
      const bucket = await withKeys(['a/1', 'a/2', 'b/1', 'b/2', 'c', 'd/1', 'e']);
      const pages = await allPages(bucket, { delimiter: '/', limit: 2 });
      expect(pages.map((page) => [page.delimitedPrefixes, keysOf(page)])).toEqual([
        [['a/', 'b/'], []],
        [['d/'], ['c']],
        [[], ['e']],
      ]);
      expect(pages.map((page) => page.truncated)).toEqual([true, true, false]);
    });

    test('a delimiter of several characters, and the empty delimiter (none)', async () => {
      const bucket = await withKeys(['x--y--z', 'x--w', 'x-v']);
      expect((await bucket.list({ delimiter: '--' })).delimitedPrefixes).toEqual(['x--']);
      expect(keysOf(await bucket.list({ delimiter: '--' }))).toEqual(['x-v']);
      expect(keysOf(await bucket.list({ delimiter: '' }))).toEqual(['x--w', 'x--y--z', 'x-v']);
    });

    test('a group of many keys takes one entry', async () => {
      const bucket = await withKeys([...Array.from({ length: 300 }, (_, i) => `dir/${i}`), 'file']);
      const page = await bucket.list({ delimiter: '/', limit: 2 });
      expect(page.delimitedPrefixes).toEqual(['dir/']);
      expect(keysOf(page)).toEqual(['file']);
      expect(page.truncated).toBe(false);
    });
  });

  describe('include', () => {
    const stored = async (options = {}) => {
      const bucket = open(options);
      await bucket.put('with', 'v', { httpMetadata: { contentType: 'text/plain' }, customMetadata: { a: '1' } });
      await bucket.put('without', 'v');
      return bucket;
    };
    const shown = (page: ListResult) =>
      page.objects.map((object) => [object.key, object.httpMetadata, object.customMetadata]);

    test('is honoured from the compatibility date 2022-08-04: metadata only when named', async () => {
      const bucket = await stored({ compatibilityDate: '2022-08-04' });
      expect(shown(await bucket.list())).toEqual([
        ['with', undefined, undefined],
        ['without', undefined, undefined],
      ]);
      expect(shown(await bucket.list({ include: ['httpMetadata'] }))).toEqual([
        ['with', { contentType: 'text/plain' }, undefined],
        ['without', {}, undefined],
      ]);
      expect(shown(await bucket.list({ include: ['customMetadata'] }))).toEqual([
        ['with', undefined, { a: '1' }],
        ['without', undefined, {}],
      ]);
      expect(shown(await bucket.list({ include: ['httpMetadata', 'customMetadata'] }))).toEqual([
        ['with', { contentType: 'text/plain' }, { a: '1' }],
        ['without', {}, {}],
      ]);
    });

    test('is honoured when no date is given', async () => {
      const bucket = await stored();
      expect(shown(await bucket.list({ include: ['customMetadata'] }))[0]).toEqual(['with', undefined, { a: '1' }]);
    });

    test('before 2022-08-04 both kinds are listed whatever include says', async () => {
      const bucket = await stored({ compatibilityDate: '2022-08-03' });
      const both = [
        ['with', { contentType: 'text/plain' }, { a: '1' }],
        ['without', {}, {}],
      ];
      expect(shown(await bucket.list())).toEqual(both);
      expect(shown(await bucket.list({ include: [] }))).toEqual(both);
      expect(shown(await bucket.list({ include: ['customMetadata'] }))).toEqual(both);
    });

    test('the list-honour-include flag honours it before that date', async () => {
      const bucket = await stored({ compatibilityDate: '2021-01-01', compatibilityFlags: ['r2_list_honor_include'] });
      expect(shown(await bucket.list())[0]).toEqual(['with', undefined, undefined]);
    });

    test('writing HTTP metadata that was not listed is an argument error', async () => {
      const bucket = await stored();
      const [object] = (await bucket.list()).objects;
      expect(() => object!.writeHttpMetadata(new Headers())).toThrow(
        "HTTP metadata unknown for key `with`. Did you forget to add 'httpMetadata' to `include` when listing?",
      );
    });

    test('unknown values are a RangeError', async () => {
      const bucket = open();
      await expect(bucket.list({ include: ['body' as never] })).rejects.toThrow(new RangeError('Unsupported include value body'));
      await expect(bucket.list({ include: 'httpMetadata' as never })).rejects.toThrow('include must be an array, not a string.');
    });

    test('a page holds fewer entries than its limit when the metadata is large; looping gets all', async () => {
      const bucket = open();
      const customMetadata = { big: 'm'.repeat(8000) };
      await Promise.all(Array.from({ length: 200 }, (_, i) => bucket.put(`k${String(i).padStart(3, '0')}`, '', { customMetadata })));
      const first = await bucket.list({ include: ['customMetadata'] });
      expect(first.objects.length).toBeGreaterThan(0);
      expect(first.objects.length).toBeLessThan(200);
      expect(first.truncated).toBe(true);
      const pages = await allPages(bucket, { include: ['customMetadata'] });
      expect(pages.flatMap(keysOf)).toEqual(Array.from({ length: 200 }, (_, i) => `k${String(i).padStart(3, '0')}`));
    });
  });
});
