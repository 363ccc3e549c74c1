/**
 * The right side of `in`: a set `{a b c}` (items separated by spaces, no
 * commas; each item read by the left side's type) or a list reference `$name`.
 */
import type { ListReference, SetItem, SetLiteral } from '../ast';
import type { Cursor } from '../cursor';

const LIST_NAME = /^[a-z0-9_]+(\.[a-z0-9_]+)*$/;

function lexList(c: Cursor): ListReference {
  const start = c.pos;
  c.pos++;
  const name = c.takeWhile((ch) => /^[A-Za-z0-9_.]$/.test(ch));
  if (!LIST_NAME.test(name)) c.fail(start, c.pos, `invalid list name ${JSON.stringify(name)}`);
  return { kind: 'list', name, span: { start, end: c.pos } };
}

export function lexSetOrList(c: Cursor, lexItem: (c: Cursor) => SetItem): SetLiteral | ListReference {
  if (c.peek() === '$') return lexList(c);
  const start = c.pos;
  c.expect('{');
  const items: SetItem[] = [];
  for (;;) {
    c.skipSpace();
    if (c.eat('}')) return { kind: 'set', items, span: { start, end: c.pos } };
    items.push(lexItem(c));
  }
}
