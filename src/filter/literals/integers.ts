/**
 * Integer literals: 64-bit, decimal (optionally negative), `0x` hexadecimal,
 * and octal when written with a leading `0`; `a..b` ranges inside sets.
 */
import { type IntLiteral, type IntRangeItem, type Cursor, isHexDigit } from '../language';
import { I64, parseRadix } from './radix';

function digitsValue(c: Cursor, from: number, radix: number): bigint {
  const parsed = parseRadix(c.slice(from), radix, I64);
  if (!parsed.ok) c.fail(from, c.pos, parsed.reason);
  return parsed.value;
}

/** Reads the digits of any radix up to 16 first, so that errors cover the whole token. */
function takeDigits(c: Cursor): void {
  const from = c.pos;
  if (c.takeWhile(isHexDigit) === '') c.failRest('expected digit', from);
}

export function lexInt(c: Cursor): IntLiteral {
  const start = c.pos;
  let value: bigint;
  if (c.eat('0x')) {
    const digits = c.pos;
    takeDigits(c);
    value = digitsValue(c, digits, 16);
  } else if (c.peek() === '0') {
    takeDigits(c);
    value = digitsValue(c, start, 8);
  } else {
    c.eat('-');
    takeDigits(c);
    value = digitsValue(c, start, 10);
  }
  return { kind: 'int', value, span: { start, end: c.pos } };
}

export function lexIntSetItem(c: Cursor): IntLiteral | IntRangeItem {
  const first = lexInt(c);
  if (!c.eat('..')) return first;
  const last = lexInt(c);
  if (last.value < first.value) c.fail(first.span.start, c.pos, 'incompatible range bounds');
  return { kind: 'int-range', from: first.value, to: last.value, span: { start: first.span.start, end: c.pos } };
}
