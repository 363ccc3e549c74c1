/**
 * A position in the expression and the small lexing steps every part of the
 * parser shares. Like the engine, parsing works on the trimmed expression while
 * positions stay offsets into the original text, so errors point at it.
 */
import { FilterError } from './errors';

export class Cursor {
  pos: number;
  /** Offset just past the last non-space character of the expression. */
  readonly end: number;

  constructor(
    readonly source: string,
    start: number,
    end: number,
  ) {
    this.pos = start;
    this.end = end;
  }

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  /** The character `offset` places ahead, or '' past the end. */
  peek(offset = 0): string {
    const at = this.pos + offset;
    return at < this.end ? (this.source[at] ?? '') : '';
  }

  startsWith(text: string): boolean {
    return this.pos + text.length <= this.end && this.source.startsWith(text, this.pos);
  }

  eat(text: string): boolean {
    if (!this.startsWith(text)) return false;
    this.pos += text.length;
    return true;
  }

  /** Only space, CR and LF separate tokens, as in the engine (tabs are not whitespace). */
  skipSpace(): void {
    while (this.pos < this.end) {
      const c = this.source.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0d && c !== 0x0a) return;
      this.pos++;
    }
  }

  /** Consumes `text` or fails with the engine's `expected literal "text"`. */
  expect(text: string): void {
    if (!this.eat(text)) this.failRest(`expected literal ${JSON.stringify(text)}`);
  }

  /** The characters from here while `test` holds (possibly ''), without consuming them. */
  peekWhile(test: (c: string) => boolean): string {
    let at = this.pos;
    while (at < this.end && test(this.source[at] ?? '')) at++;
    return this.source.slice(this.pos, at);
  }

  /** Consumes characters while `test` holds and returns them (possibly ''). */
  takeWhile(test: (c: string) => boolean): string {
    const start = this.pos;
    while (this.pos < this.end && test(this.source[this.pos] ?? '')) this.pos++;
    return this.source.slice(start, this.pos);
  }

  slice(start: number, end = this.pos): string {
    return this.source.slice(start, end);
  }

  fail(start: number, end: number, reason: string): never {
    throw new FilterError(this.source, { start, end }, reason);
  }

  /** Fails with a span from here to the end of the expression (the engine's "rest of input"). */
  failRest(reason: string, from = this.pos): never {
    return this.fail(from, this.end, reason);
  }
}

function inRange(c: string, low: number, high: number): boolean {
  const code = c.charCodeAt(0);
  return c.length === 1 && code >= low && code <= high;
}

export const isDigit = (c: string): boolean => inRange(c, 0x30, 0x39);
export const isHexDigit = (c: string): boolean => isDigit(c) || inRange(c, 0x41, 0x46) || inRange(c, 0x61, 0x66);
export const isIdentifierChar = (c: string): boolean =>
  isDigit(c) || inRange(c, 0x41, 0x5a) || inRange(c, 0x61, 0x7a) || c === '_';
