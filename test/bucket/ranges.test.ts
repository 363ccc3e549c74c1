import { describe, expect } from 'vitest';
import type { OpenBucket, Range } from '../../src/bucket';
import { eachEngine, expectBucketError, test } from './engines';

const UNSATISFIABLE = 'get: The requested range is not satisfiable (10039)';

eachEngine(({ open }) => {
  const withObject = async (): Promise<OpenBucket> => {
    const bucket = open();
    await bucket.put('k', '0123456789');
    return bucket;
  };
  const read = async (bucket: OpenBucket, range: Range | Headers) => {
    const object = (await bucket.get('k', { range }))!;
    return { text: await object.text(), range: object.range };
  };

  describe('as a Range object', () => {
    test.each([
      [{ offset: 3 }, '3456789', { offset: 3, length: 7 }],
      [{ length: 3 }, '012', { offset: 0, length: 3 }],
      [{ offset: 2, length: 3 }, '234', { offset: 2, length: 3 }],
      [{ suffix: 3 }, '789', { offset: 7, length: 3 }],
      [{ offset: 8, length: 5 }, '89', { offset: 8, length: 2 }],
      [{ suffix: 50 }, '0123456789', { offset: 0, length: 10 }],
      [{ offset: 9 }, '9', { offset: 9, length: 1 }],
    ] as [Range, string, Range][])('%o serves %s and reports it', async (range, text, served) => {
      expect(await read(await withObject(), range)).toEqual({ text, range: served });
    });

    test.each([[{ offset: 10 }], [{ offset: 11, length: 1 }], [{ length: 0 }], [{ offset: 2, length: 0 }], [{ suffix: 0 }]])(
      '%o is unsatisfiable (10039)',
      async (range) => {
        await expectBucketError((await withObject()).get('k', { range: range as Range }), 10039, UNSATISFIABLE);
      },
    );

    test('any range of an empty object is unsatisfiable', async () => {
      const bucket = open();
      await bucket.put('empty', '');
      await expectBucketError(bucket.get('empty', { range: { suffix: 1 } }), 10039, UNSATISFIABLE);
      await expectBucketError(bucket.get('empty', { range: { offset: 0 } }), 10039, UNSATISFIABLE);
    });

    test('negative or fractional numbers are RangeErrors; suffix with offset or length a TypeError', async () => {
      const bucket = await withObject();
      const attempt = (range: unknown) => bucket.get('k', { range: range as Range });
      await expect(attempt({ offset: -1 })).rejects.toThrow(
        new RangeError('Invalid range. Starting offset (-1) must be greater than or equal to 0.'),
      );
      await expect(attempt({ length: 1.5 })).rejects.toThrow(
        new RangeError('Invalid range. Length (1.5) must be an integer, not floating point.'),
      );
      await expect(attempt({ suffix: -2 })).rejects.toThrow(RangeError);
      await expect(attempt({ suffix: 2, offset: 1 })).rejects.toThrow(new TypeError('Suffix is incompatible with offset.'));
      await expect(attempt({ suffix: 2, length: 1 })).rejects.toThrow(new TypeError('Suffix is incompatible with length.'));
      await expect(attempt({ offset: '1' })).rejects.toThrow(TypeError);
      await expect(attempt('bytes=0-1')).rejects.toThrow('range must be a Range object or Headers, not a string.');
    });
  });

  describe('as Headers', () => {
    const range = (value: string) => new Headers({ Range: value });

    test.each([
      ['bytes=1-3', '123', { offset: 1, length: 3 }],
      ['bytes=7-', '789', { offset: 7, length: 3 }],
      ['bytes=-2', '89', { offset: 8, length: 2 }],
      ['bytes=5-100', '56789', { offset: 5, length: 5 }],
    ])('%s serves %s', async (header, text, served) => {
      expect(await read(await withObject(), range(header))).toEqual({ text, range: served });
    });

    test.each([['bytes=0-1,3-4'], ['items=0-1'], ['bytes=4-2'], ['bytes=-']])(
      'the malformed or multiple range %s is ignored: the whole object is served',
      async (header) => {
        expect((await read(await withObject(), range(header))).text).toBe('0123456789');
      },
    );

    test('Headers without Range serve the whole object', async () => {
      expect((await read(await withObject(), new Headers())).text).toBe('0123456789');
    });

    test.each([['bytes=10-'], ['bytes=-0']])('%s is unsatisfiable (10039)', async (header) => {
      await expectBucketError((await withObject()).get('k', { range: range(header) }), 10039, UNSATISFIABLE);
    });
  });

  test('ranges of a large object cross chunk boundaries exactly', async () => {
    const bucket = open();
    const bytes = Buffer.alloc(2.5 * 1024 * 1024).map((_, i) => (i * 13) % 256);
    await bucket.put('large', bytes);
    for (const { offset, length } of [
      { offset: 1024 * 1024 - 10, length: 20 },
      { offset: 5, length: 2 * 1024 * 1024 },
      { offset: 2.5 * 1024 * 1024 - 1, length: 1 },
    ]) {
      const object = (await bucket.get('large', { range: { offset, length } }))!;
      expect(Buffer.from(await object.arrayBuffer()).equals(bytes.subarray(offset, offset + length))).toBe(true);
    }
  });

  test('a range combines with a condition: a failed condition serves no body and reports the whole object', async () => {
    const bucket = await withObject();
    const object = await bucket.get('k', { range: { offset: 1 }, onlyIf: { etagMatches: 'other' } });
    expect(object && 'body' in object).toBe(false);
    expect(object?.range).toEqual({ offset: 0, length: 10 });
  });
});
