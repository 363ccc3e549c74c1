import { invalidObjectName, type BucketAction } from './errors';
import { MAX_KEY_BYTES } from './limits';

const LONE_SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Checks a key argument and returns it as stored: keys are UTF-8 on the platform, so a lone
 * surrogate becomes U+FFFD exactly as the platform's string conversion does.
 */
export function requireKey(key: unknown, action: BucketAction): string {
  if (typeof key !== 'string') {
    throw new TypeError(`${action}: the key must be a string, not ${describe(key)}.`);
  }
  const stored = LONE_SURROGATE.test(key) ? Buffer.from(key, 'utf8').toString('utf8') : key;
  if (Buffer.byteLength(stored, 'utf8') > MAX_KEY_BYTES) throw invalidObjectName(action);
  return stored;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// UTF-16 order differs from code point (= UTF-8 byte) order only between surrogates and
// U+E000..U+FFFF; this shift moves the surrogates above them.
const codePointRank = (unit: number) =>
  unit >= 0xd800 ? (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000) : unit;

/** Orders keys as the platform lists them: by the bytes of their UTF-8 encoding. */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

export const maxKey = (a: string, b: string) => (compareKeys(a, b) >= 0 ? a : b);

/** The smallest key greater than `key`. */
export const keyAfter = (key: string) => `${key}\u0000`;

/**
 * The smallest key greater than every key starting with `prefix`, or null when there is none
 * (a prefix made only of U+10FFFF).
 */
export function keyAfterPrefix(prefix: string): string | null {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return null;
}
