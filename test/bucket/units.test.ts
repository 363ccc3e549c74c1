// Rules checked below the bucket API, where a property over many inputs says more than examples.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createBucket, MemoryEngine } from '../../src/bucket';
import { metered } from '../../src/bucket/objects/body-source';
import { StreamHasher } from '../../src/bucket/objects/checksums';
import { compareKeys, keyAfter, keyAfterPrefix } from '../../src/bucket/shared/keys';
import { md5 } from './engines';

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const sign = (n: number) => Math.sign(n);

describe('key order', () => {
  test('compareKeys orders as the bytes of UTF-8 do', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(sign(compareKeys(a, b))).toBe(sign(Buffer.compare(utf8(a), utf8(b))));
      }),
      { numRuns: 2000 },
    );
  });

  test('keyAfter is the next key: nothing fits between', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (key, other) => {
        const after = keyAfter(key);
        expect(compareKeys(key, after)).toBeLessThan(0);
        expect(compareKeys(other, key) <= 0 || compareKeys(other, after) >= 0).toBe(true);
      }),
    );
  });

  test('keyAfterPrefix is above every key with the prefix and not above any other key after it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1 }), fc.string({ unit: 'grapheme' }), (prefix, rest) => {
        const after = keyAfterPrefix(prefix)!;
        expect(compareKeys(prefix + rest, after)).toBeLessThan(0);
        if (!rest.startsWith(prefix) && compareKeys(rest, prefix) > 0) {
          expect(compareKeys(rest, after)).toBeGreaterThanOrEqual(0);
        }
      }),
    );
    expect(keyAfterPrefix('a/')).toBe('a0');
    expect(keyAfterPrefix('\uD7FF')).toBe('\uE000');
    expect(keyAfterPrefix('a\u{10FFFF}')).toBe('b');
    expect(keyAfterPrefix('\u{10FFFF}')).toBeNull();
  });

  test('the memory engine lists any keys in the same order as byte comparison', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.string({ unit: 'grapheme' }), { maxLength: 40 }), async (keys) => {
        const bucket = createBucket({ engine: new MemoryEngine() });
        await Promise.all(keys.map((key) => bucket.put(key, '')));
        const listed = (await bucket.list()).objects.map((object) => object.key);
        expect(listed).toEqual([...keys].sort((a, b) => Buffer.compare(utf8(a), utf8(b))));
      }),
      { numRuns: 50 },
    );
  });
});

describe('metered bodies', () => {
  async function* chunks(...sizes: number[]) {
    for (const size of sizes) yield new Uint8Array(size);
  }

  test('passes bytes through while counting and hashing them', async () => {
    const hasher = new StreamHasher(undefined);
    const seen: number[] = [];
    for await (const chunk of metered(chunks(3, 4), hasher, 7, 'put')) seen.push(chunk.byteLength);
    expect(seen).toEqual([3, 4]);
    expect(hasher.finish().md5).toBe(md5(new Uint8Array(7)));
  });

  test('refuses more bytes than the limit as it streams (100100)', async () => {
    const read = async () => {
      for await (const _ of metered(chunks(3, 4, 1), new StreamHasher(undefined), 7, 'uploadPart')) void _;
    };
    await expect(read()).rejects.toMatchObject({
      code: 100100,
      message: 'uploadPart: Your proposed upload exceeds the maximum allowed object size. (100100)',
    });
  });
});

describe('runtime options', () => {
  const engine = new MemoryEngine();
  test.each([
    [{ compatibilityDate: '2022/08/04' }, 'compatibilityDate must be written YYYY-MM-DD, not 2022/08/04.'],
    [{ compatibilityFlags: 'r2_list_honor_include' }, 'compatibilityFlags must be an array of strings.'],
    [{ minimumPartSize: 0 }, 'minimumPartSize must be a whole number of bytes from 1 to 5363466240, not 0.'],
    [{ minimumPartSize: 1.5 }, 'minimumPartSize must be a whole number of bytes'],
    [{ clock: 1 }, 'clock must be a function returning epoch milliseconds.'],
    [{ directory: '' }, 'directory must be the path of the directory that holds the bucket.'],
  ])('%o is refused', (options, message) => {
    expect(() => createBucket({ engine, ...(options as object) } as never)).toThrow(message);
  });
});
