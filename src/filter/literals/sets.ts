/**
 * The right side of `in`: a set `{a b c}` (items separated by spaces, no
 * commas; each item read by the left side's type) or a list reference `$name`.
 */
import type { ListReference, SetItem, SetLiteral, Cursor } from '../language';

/**
 * `$name`: lower-case letters, digits, `_` and `.`, not starting or ending
 * with a dot. As in the engine, the name ends at the first other character,
 * and a bad name is reported from just after the `$` to the end.
 */
function lexList(c: Cursor): ListReference {
  const start = c.pos;
  c.pos++;
  const nameStart = c.pos;
  const name = c.takeWhile((ch) => /^[a-z0-9_.]$/.test(ch));
  if (name === '') c.failRest(`invalid list name ${JSON.stringify(c.atEnd ? '' : String.fromCodePoint(c.source.codePointAt(c.pos) ?? 0))}`);
  if (name.startsWith('.') || name.endsWith('.')) c.failRest(`invalid list name ${JSON.stringify(name)}`, nameStart);
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
