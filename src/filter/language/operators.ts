/**
 * Operator tokens and which comparison operators each left-hand type accepts.
 * Both spellings of each operator are accepted; the tree keeps the word form.
 * Like the engine, operators match by prefix, longest spelling first.
 */
import type { ComparisonOp, LogicalOp } from './ast';
import type { Cursor } from './cursor';
import type { FilterType } from './types';

const COMPARISON_SPELLINGS: ReadonlyArray<readonly [string, ComparisonOp]> = [
  ['in', 'in'],
  ['eq', 'eq'],
  ['==', 'eq'],
  ['ne', 'ne'],
  ['!=', 'ne'],
  ['ge', 'ge'],
  ['>=', 'ge'],
  ['le', 'le'],
  ['<=', 'le'],
  ['gt', 'gt'],
  ['>', 'gt'],
  ['lt', 'lt'],
  ['<', 'lt'],
  ['&', 'bitwise_and'],
  ['bitwise_and', 'bitwise_and'],
  ['contains', 'contains'],
  ['~', 'matches'],
  ['matches', 'matches'],
  ['wildcard', 'wildcard'],
  ['strict wildcard', 'strict wildcard'],
];

const LOGICAL_SPELLINGS: ReadonlyArray<readonly [string, LogicalOp]> = [
  ['or', 'or'],
  ['||', 'or'],
  ['xor', 'xor'],
  ['^^', 'xor'],
  ['and', 'and'],
  ['&&', 'and'],
];

/** Tightest first: `and` binds before `xor`, which binds before `or`. */
export const PRECEDENCE: Readonly<Record<LogicalOp, number>> = { and: 3, xor: 2, or: 1 };

const ALLOWED: Readonly<Record<string, readonly ComparisonOp[]>> = {
  Bytes: ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'contains', 'matches', 'wildcard', 'strict wildcard', 'in'],
  Int: ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'in', 'bitwise_and'],
  // Ordering is not documented for addresses, so it is refused.
  Ip: ['eq', 'ne', 'in'],
};

export function operatorAllowed(type: FilterType, op: ComparisonOp): boolean {
  return typeof type === 'string' && (ALLOWED[type] ?? []).includes(op);
}

function lexSpelling<T>(c: Cursor, spellings: ReadonlyArray<readonly [string, T]>): T | undefined {
  for (const [text, value] of spellings) if (c.eat(text)) return value;
  return undefined;
}

export function lexComparisonOp(c: Cursor): ComparisonOp | undefined {
  return lexSpelling(c, COMPARISON_SPELLINGS);
}

export function lexLogicalOp(c: Cursor): LogicalOp | undefined {
  return lexSpelling(c, LOGICAL_SPELLINGS);
}

export function lexNot(c: Cursor): boolean {
  return c.eat('not') || c.eat('!');
}

export function startsWithNot(c: Cursor): boolean {
  return c.startsWith('not') || c.startsWith('!');
}
