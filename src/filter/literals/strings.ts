/**
 * String literals: quoted (`"a\"b\x41\101"`), raw (`r"..."`, `r#"..."#`) and
 * byte strings (`61:62-63.64`). Values are binary strings (see bytes.ts).
 */
import { type BytesLiteral, utf8ToBinary, type Cursor } from '../language';
import { U8, parseRadix } from './radix';

const MAX_RAW_HASHES = 255;

/** The end offset of `count` characters (code points) from `from`, or how many there are. */
function takeChars(c: Cursor, from: number, count: number): { end: number } | { found: number } {
  let at = from;
  for (let taken = 0; taken < count; taken++) {
    if (at >= c.end) return { found: taken };
    at += (c.source.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
  }
  return { end: at };
}

/** One byte written with a fixed number of digits (`\xHH`, `\OOO`, or `HH` of a byte string). */
function fixedByte(c: Cursor, from: number, digits: number, radix: number): string {
  const taken = takeChars(c, from, digits);
  if ('found' in taken) c.fail(from, c.end, `expected ${digits} characters, but found ${taken.found}`);
  const parsed = parseRadix(c.slice(from, taken.end), radix, U8);
  if (!parsed.ok) c.fail(from, taken.end, parsed.reason);
  c.pos = taken.end;
  return String.fromCharCode(Number(parsed.value));
}

function lexQuoted(c: Cursor): string {
  const bodyStart = c.pos + 1;
  c.pos = bodyStart;
  let out = '';
  let runStart = bodyStart;
  for (;;) {
    if (c.pos >= c.end) c.fail(bodyStart, c.end, 'could not find an ending quote');
    const char = c.source[c.pos];
    if (char === '"') {
      out += utf8ToBinary(c.slice(runStart));
      c.pos++;
      return out;
    }
    if (char !== '\\') {
      c.pos++;
      continue;
    }
    out += utf8ToBinary(c.slice(runStart));
    const escape = c.pos + 1;
    if (escape >= c.end) c.fail(bodyStart, c.end, 'could not find an ending quote');
    const kind = c.source[escape] ?? '';
    if (kind === '"' || kind === '\\') {
      out += kind;
      c.pos = escape + 1;
    } else if (kind === 'x') {
      out += fixedByte(c, escape + 1, 2, 16);
    } else if (kind >= '0' && kind <= '7') {
      out += fixedByte(c, escape, 3, 8);
    } else {
      const width = (c.source.codePointAt(escape) ?? 0) > 0xffff ? 2 : 1;
      c.fail(escape, escape + width, 'expected ", xHH or OOO after \\');
    }
    runStart = c.pos;
  }
}

/** A raw string's text and hash count; the cursor is on the `r`. Shared with regexes. */
export function lexRawText(c: Cursor): { text: string; hashes: number; contentStart: number } {
  const afterR = c.pos + 1;
  c.pos = afterR;
  c.takeWhile((ch) => ch === '#');
  const hashes = c.pos - afterR;
  if (hashes > MAX_RAW_HASHES) {
    c.fail(afterR, c.end, `invalid raw string hash count, there can't be more than ${MAX_RAW_HASHES} #s`);
  }
  if (c.peek() !== '"') c.failRest('expected " or #');
  const contentStart = c.pos + 1;
  const close = `"${'#'.repeat(hashes)}`;
  const closeAt = c.source.indexOf(close, contentStart);
  if (closeAt === -1 || closeAt + close.length > c.end) c.fail(afterR, c.end, 'could not find an ending quote');
  c.pos = closeAt + close.length;
  return { text: c.slice(contentStart, closeAt), hashes, contentStart };
}

function lexHexBytes(c: Cursor): string {
  const separator = (required: boolean): boolean => {
    const char = c.peek();
    if (char === ':' || char === '-' || char === '.') {
      c.pos++;
      return true;
    }
    if (!required) return false;
    if (c.atEnd) c.failRest('expected 1 characters, but found 0');
    const width = (c.source.codePointAt(c.pos) ?? 0) > 0xffff ? 2 : 1;
    return c.fail(c.pos, c.pos + width, 'expected byte separator');
  };
  let out = fixedByte(c, c.pos, 2, 16);
  separator(true);
  do out += fixedByte(c, c.pos, 2, 16);
  while (separator(false));
  return out;
}

function literal(c: Cursor, start: number, value: string, style: BytesLiteral['style'], hashes = 0): BytesLiteral {
  return { kind: 'bytes', value, style, hashes, span: { start, end: c.pos } };
}

/** `"..."` or `r"..."`: what wildcards and function arguments accept. */
export function lexStringLiteral(c: Cursor): BytesLiteral {
  const start = c.pos;
  const first = c.peek();
  if (first === '"') return literal(c, start, lexQuoted(c), 'quoted');
  if (first === 'r') {
    const raw = lexRawText(c);
    return literal(c, start, utf8ToBinary(raw.text), 'raw', raw.hashes);
  }
  if (c.atEnd) c.failRest('unrecognised input');
  return c.failRest('expected " or r');
}

/** A string where the platform takes bytes: quoted, raw, or `HH:HH...`. */
export function lexBytesLiteral(c: Cursor): BytesLiteral {
  const first = c.peek();
  if (first === '"' || first === 'r' || c.atEnd) return lexStringLiteral(c);
  const start = c.pos;
  return literal(c, start, lexHexBytes(c), 'hex');
}
