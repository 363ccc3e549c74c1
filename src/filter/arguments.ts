/**
 * One function argument: a string or integer literal (or byte string), a
 * full condition when it starts with `(`, `not`, `any(` or `all(`, or a value
 * optionally followed by one comparison (`lower(http.host) == "a"` inside a call).
 */
import type { Argument } from './ast';
import { parseComparison } from './comparison';
import { type Cursor, isDigit } from './cursor';
import { parseLogical } from './expressions';
import { lexInt } from './literals/integers';
import { lexBytesLiteral, lexStringLiteral } from './literals/strings';
import { lexComparisonOp, startsWithNot } from './operators';
import { FIELDS, FUNCTIONS } from './scheme';
import { parseValue, peekIdentifier } from './values';

const HEX_BYTES = /^[0-9a-fA-F]{2}[:.-][0-9a-fA-F]/;

function followedByOperator(c: Cursor): boolean {
  const start = c.pos;
  c.skipSpace();
  const found = lexComparisonOp(c) !== undefined;
  c.pos = start;
  return found;
}

export function parseArgument(c: Cursor, depth: number): Argument {
  const first = c.peek();
  const second = c.peek(1);
  if (first === '"' || (first === 'r' && (second === '"' || second === '#'))) return lexStringLiteral(c);
  const name = peekIdentifier(c);
  if (first === '(' || startsWithNot(c) || name === 'any' || name === 'all') return parseLogical(c, depth);
  if (!FIELDS.has(name) && !FUNCTIONS.has(name)) {
    if (HEX_BYTES.test(c.source.slice(c.pos, c.pos + 4))) return lexBytesLiteral(c);
    if (first === '-' || isDigit(first)) return lexInt(c);
  }
  const value = parseValue(c, depth, parseArgument);
  return followedByOperator(c) ? parseComparison(c, value) : value;
}
