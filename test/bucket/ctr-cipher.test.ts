// The counter-mode arithmetic that lets a read decrypt from any byte: against OpenSSL's own
// AES-256-CTR run from the segment's start, including initial counter blocks whose increment
// carries across bytes and wraps the 128-bit counter, across segment boundaries, and through a
// source read in chunks that do not fall on blocks.
import { createCipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { openBytes, type CipherSegment } from '../../src/bucket/ctr-cipher';
import type { ChunkSource } from '../../src/bucket/engine';

const raw = randomBytes(32);
const key = createSecretKey(raw);
const sealed = (plain: Buffer, iv: Buffer) => createCipheriv('aes-256-ctr', raw, iv).update(plain);

/** A source handing out `bytes` in chunks of `size`. */
function chunked(bytes: Buffer, size: number): ChunkSource {
  let at = 0;
  return {
    async next() {
      if (at >= bytes.length) return null;
      const chunk = bytes.subarray(at, at + size);
      at += chunk.length;
      return chunk;
    },
    async readInto(view) {
      const chunk = bytes.subarray(at, at + Math.min(size, view.byteLength));
      view.set(chunk);
      at += chunk.length;
      return chunk.length;
    },
    close() {},
  };
}

async function drain(source: ChunkSource, via: 'next' | 'readInto'): Promise<Buffer> {
  const out: Buffer[] = [];
  if (via === 'next') for (let chunk = await source.next(); chunk; chunk = await source.next()) out.push(Buffer.from(chunk));
  else {
    for (;;) {
      const view = Buffer.alloc(7);
      const count = await source.readInto(view);
      if (count === 0) break;
      out.push(view.subarray(0, count));
    }
  }
  return Buffer.concat(out);
}

describe('openBytes', () => {
  const ivs = {
    random: randomBytes(16),
    'carrying across bytes': Buffer.concat([randomBytes(8), Buffer.alloc(8, 0xff)]),
    'wrapping the whole counter': Buffer.alloc(16, 0xff),
  };

  test.each(Object.entries(ivs))('decrypts from any offset of a segment whose initial counter block is %s', (_name, iv) => {
    const plain = randomBytes(5000);
    const stored = sealed(plain, iv);
    const segments: CipherSegment[] = [{ start: 0, size: plain.length, iv }];
    for (const offset of [0, 1, 15, 16, 17, 4095, 4096, 4999]) {
      const read = openBytes(stored.subarray(offset), key, segments, offset) as Uint8Array;
      expect(Buffer.from(read).equals(plain.subarray(offset))).toBe(true);
    }
  });

  test.each(['next', 'readInto'] as const)('decrypts across segments, each with its own counter, read in odd chunks through %s', async (via) => {
    const parts = [randomBytes(1000), randomBytes(1000), randomBytes(333)];
    const segmentIvs = [ivs.random, ivs['carrying across bytes'], ivs['wrapping the whole counter']];
    const stored = Buffer.concat(parts.map((part, index) => sealed(part, segmentIvs[index]!)));
    let start = 0;
    const segments = parts.map((part, index) => {
      const segment = { start, size: part.length, iv: segmentIvs[index]! };
      start += part.length;
      return segment;
    });
    const plain = Buffer.concat(parts);
    for (const [offset, length] of [[0, 2333], [990, 30], [999, 1002], [2000, 333]] as const) {
      const source = openBytes(chunked(stored.subarray(offset, offset + length), 13), key, segments, offset) as ChunkSource;
      expect((await drain(source, via)).equals(plain.subarray(offset, offset + length))).toBe(true);
    }
  });

  test('refuses to read past the end of the segments rather than answer bytes it cannot decrypt', () => {
    const segments: CipherSegment[] = [{ start: 0, size: 10, iv: ivs.random }];
    expect(() => openBytes(Buffer.alloc(11), key, segments, 0)).toThrow('The bytes read go past the end of the encrypted object.');
  });
});
