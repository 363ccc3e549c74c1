/**
 * The nesting limit. Parentheses, `not` and function calls each open a level;
 * the parser recurses only when it opens one, so the limit also bounds its
 * stack depth (long flat chains like `a or b or c ...` are read in a loop).
 */
import type { Cursor } from '../language';

export const MAX_NESTING_DEPTH = 128;

/** The depth inside a construct opened at `start..end`, or the limit's error. */
export function enterLevel(c: Cursor, depth: number, start: number, end: number): number {
  if (depth >= MAX_NESTING_DEPTH) {
    c.fail(start, end, `maximum nesting depth exceeded (limit: ${MAX_NESTING_DEPTH})`);
  }
  return depth + 1;
}
