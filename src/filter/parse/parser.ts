/**
 * Entry of the parser: the length limit, trimming, the whole input consumed,
 * and a Boolean result.
 */
import { type Expression, Cursor, FilterError, typeName } from '../language';
import { parseLogical } from './expressions';

export const MAX_EXPRESSION_LENGTH = 4096;

/** Offset of the character (code point) after the first `limit` ones, or undefined if there are no more. */
function offsetAfter(text: string, limit: number): number | undefined {
  if (text.length <= limit) return undefined;
  let offset = 0;
  for (let count = 0; count < limit; count++) {
    offset += (text.codePointAt(offset) ?? 0) > 0xffff ? 2 : 1;
  }
  return offset < text.length ? offset : undefined;
}

export function parseExpression(source: string): Expression {
  const overflow = offsetAfter(source, MAX_EXPRESSION_LENGTH);
  if (overflow !== undefined) {
    throw new FilterError(
      source,
      { start: overflow, end: source.length },
      `expression is longer than the limit of ${MAX_EXPRESSION_LENGTH} characters`,
    );
  }
  const start = source.length - source.trimStart().length;
  const c = new Cursor(source, start, Math.max(start, source.trimEnd().length));
  const expr = parseLogical(c, 0);
  // As in the engine, the type is checked before leftover input, and reported where reading stopped.
  if (expr.type !== 'Bool') c.failRest(`expected value of type Bool, but got ${typeName(expr.type)}`);
  if (!c.atEnd) c.failRest('unrecognised input');
  return expr;
}
