// What worker code sees of streams and ranges exactly as on the platform: a stream is stored only
// when its length is known, and every result carries `range`, shaped by the compatibility date.
import { describe, expect } from 'vitest';
import { FixedLengthStream } from '../../src/bucket';
import { eachEngine, expectBucketError, test } from './engines';

const UNKNOWN_LENGTH =
  'Provided readable stream must have a known length (request/response body or readable half of FixedLengthStream)';

/** A stream of unknown length that records whether anything pulled from it. */
function unknownLength(text: string) {
  const state = { pulled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled = true;
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  }, { highWaterMark: 0 }); // pulled only when read
  return { stream, state };
}

function fixed(text: string, announced = new TextEncoder().encode(text).byteLength) {
  const stream = new FixedLengthStream(announced);
  const writer = stream.writable.getWriter();
  void writer.write(new TextEncoder().encode(text)).catch(() => {});
  void writer.close().catch(() => {});
  return stream.readable;
}

eachEngine(({ open }) => {
  describe('streams of unknown length', () => {
    test('put and uploadPart refuse them before reading a byte, and store nothing', async () => {
      const bucket = open();
      const { stream, state } = unknownLength('abc');
      await expect(bucket.put('k', stream)).rejects.toThrow(new TypeError(UNKNOWN_LENGTH));
      expect(state.pulled).toBe(false);
      expect(await bucket.head('k')).toBeNull();
      const upload = await bucket.createMultipartUpload('m');
      await expect(upload.uploadPart(1, unknownLength('abc').stream)).rejects.toThrow(new TypeError(UNKNOWN_LENGTH));
    });

    test('the readable half of a FixedLengthStream has a known length', async () => {
      const bucket = open();
      expect((await bucket.put('k', fixed('hello'))).size).toBe(5);
      expect(await (await bucket.get('k'))!.text()).toBe('hello');
      const piped = new Blob(['piped']).stream().pipeThrough(new FixedLengthStream(5));
      expect((await bucket.put('p', piped)).size).toBe(5);
    });

    test('the body of a read has a known length: it is stored again as it is, whole or ranged', async () => {
      const bucket = open();
      await bucket.put('source', '0123456789');
      expect((await bucket.put('copy', (await bucket.get('source'))!.body)).size).toBe(10);
      expect(await (await bucket.get('copy'))!.text()).toBe('0123456789');
      const ranged = (await bucket.get('source', { range: { offset: 2, length: 3 } }))!;
      expect((await bucket.put('part', ranged.body)).size).toBe(3);
      expect(await (await bucket.get('part'))!.text()).toBe('234');
    });

    test('a FixedLengthStream that gets fewer or more bytes than announced fails the put', async () => {
      const bucket = open();
      await expect(bucket.put('short', fixed('abc', 5))).rejects.toThrow(
        new TypeError('FixedLengthStream did not see all expected bytes before close().'),
      );
      await expect(bucket.put('long', fixed('abcdef', 5))).rejects.toThrow(
        new TypeError('Attempt to write too many bytes through a FixedLengthStream.'),
      );
      expect((await bucket.list()).objects).toEqual([]);
    });

    test('a length beyond what a single put takes is refused before reading', async () => {
      const bucket = open();
      await expectBucketError(
        bucket.put('k', new FixedLengthStream(5 * 1024 ** 3).readable),
        100100,
        expect.stringContaining('(100100)'),
      );
    });
  });

  describe('range on every result', () => {
    test('head, a whole read and a failed condition report the whole object; a ranged read what it served', async () => {
      const bucket = open();
      await bucket.put('k', '0123456789');
      expect((await bucket.head('k'))!.range).toEqual({ offset: 0, length: 10 });
      const whole = (await bucket.get('k'))!;
      expect(whole.range).toEqual({ offset: 0, length: 10 });
      await whole.body.cancel();
      expect((await bucket.get('k', { onlyIf: { etagMatches: 'other' } }))!.range).toEqual({ offset: 0, length: 10 });
      const suffix = (await bucket.get('k', { range: { suffix: 3 } }))!;
      expect([suffix.range, await suffix.text()]).toEqual([{ offset: 7, length: 3 }, '789']);
    });

    test('put, complete and listed objects carry range, undefined', async () => {
      const bucket = open();
      const stored = await bucket.put('k', 'x');
      const upload = await bucket.createMultipartUpload('m');
      const completed = await upload.complete([await upload.uploadPart(1, 'part')]);
      const [listed] = (await bucket.list({ limit: 1 })).objects;
      for (const object of [stored, completed, listed!]) {
        expect(Object.keys(object)).toContain('range');
        expect(object.range).toBeUndefined();
      }
    });

    test('before 2025-12-03 a range has offset and length only', async () => {
      const bucket = open({ compatibilityDate: '2025-12-02' });
      await bucket.put('k', '0123456789');
      const read = (await bucket.get('k', { range: { suffix: 3 } }))!;
      expect(Object.keys(read.range!).sort()).toEqual(['length', 'offset']);
      await read.body.cancel();
      const flagged = open({ compatibilityDate: '2025-12-02', compatibilityFlags: ['enable_fast_jsg_struct'] });
      await flagged.put('k', 'abc');
      expect(Object.keys((await flagged.head('k'))!.range!).sort()).toEqual(['length', 'offset', 'suffix']);
    });

    test('from 2025-12-03 (enable_fast_jsg_struct) it also carries suffix: undefined, unless the flag is disabled', async () => {
      const bucket = open({ compatibilityDate: '2025-12-03' });
      await bucket.put('k', '0123456789');
      const read = (await bucket.get('k', { range: { offset: 2, length: 3 } }))!;
      expect(Object.keys(read.range!).sort()).toEqual(['length', 'offset', 'suffix']);
      expect(read.range).toEqual({ offset: 2, length: 3, suffix: undefined });
      expect('suffix' in read.range!).toBe(true);
      await read.body.cancel();
      expect(Object.keys((await bucket.head('k'))!.range!).sort()).toEqual(['length', 'offset', 'suffix']);
      const disabled = open({ compatibilityDate: '2026-07-01', compatibilityFlags: ['disable_fast_jsg_struct'] });
      await disabled.put('k', 'abc');
      expect(Object.keys((await disabled.head('k'))!.range!).sort()).toEqual(['length', 'offset']);
    });
  });
});
