/**
 * Integer text to value with the engine's checks and reason texts (those of
 * Rust's `from_str_radix`): digits are read left to right and the first
 * problem met is the one reported.
 */
export type RadixResult = { readonly ok: true; readonly value: bigint } | { readonly ok: false; readonly reason: string };

export const I64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n, signed: true } as const;
export const U8 = { min: 0n, max: 255n, signed: false } as const;

interface Bounds {
  readonly min: bigint;
  readonly max: bigint;
  readonly signed: boolean;
}

function failure(what: string, radix: number): RadixResult {
  return { ok: false, reason: `${what} while parsing with radix ${radix}` };
}

export function parseRadix(text: string, radix: number, bounds: Bounds): RadixResult {
  if (text === '') return failure('cannot parse integer from empty string', radix);
  let digits = text;
  let negative = false;
  if (text[0] === '+' || (bounds.signed && text[0] === '-')) {
    if (text.length === 1) return failure('invalid digit found in string', radix);
    negative = text[0] === '-';
    digits = text.slice(1);
  }
  const big = BigInt(radix);
  let value = 0n;
  for (const char of digits) {
    const digit = Number.parseInt(char, radix);
    if (Number.isNaN(digit)) return failure('invalid digit found in string', radix);
    value = value * big + (negative ? -BigInt(digit) : BigInt(digit));
    if (value > bounds.max) return failure('number too large to fit in target type', radix);
    if (value < bounds.min) return failure('number too small to fit in target type', radix);
  }
  return { ok: true, value };
}
