/**
 * The regex dialect of the platform's engine: the syntax of Rust's `regex`
 * crate, compiled with Unicode mode off (`(?u)` turns it on) and byte-oriented
 * matching. This module reads a pattern in that dialect, refusing what the
 * crate refuses with the crate's own message, and translates what it accepts
 * into the RE2 syntax re2js evaluates:
 *
 * - flags `i m s U` pass through; `u`, `x` and `R` are applied here (`x` drops
 *   whitespace and `#` comments; `u` allows `\p{..}`; `R` only changes line
 *   terminators and is dropped);
 * - `\u....`, `\U........`, `\x{..}` become `\x{..}`; `\<`, `\>`, `\b{start}`
 *   and the like become `\b`;
 * - class set operations (`&&`, `--`, `~~`) and nested classes are computed
 *   into plain ranges; `{ 2 , 3 }` loses its spaces; a repetition of a
 *   repetition (`a**`) is grouped, as RE2 needs.
 *
 * Where RE2 cannot say exactly the same thing, the translation is the nearest
 * one (word-start boundaries match any boundary, Unicode binary properties map
 * to their closest category, `\w`/`\d`/`\s` stay ASCII under `(?u)`, class
 * operations on Unicode properties keep their left side, counts above RE2's
 * 1000 are capped, matching is on text rather than bytes). Validation follows
 * the crate's parser and its Unicode-off checks; its nesting limit (250) is
 * counted on groups and classes only, and its compiled-size limit is not
 * estimated.
 */

export interface RegexSyntaxError {
  readonly kind: string;
  /** Character offsets into the pattern, end exclusive. */
  readonly span: readonly [number, number];
  readonly aux?: readonly [number, number];
}

export type Translation = { readonly ok: true; readonly re2: string } | { readonly ok: false; readonly error: RegexSyntaxError };

type Range = readonly [number, number];
const MAX_CHAR = 0x10ffff;
const RE2_MAX_REPEAT = 1000;
const NEST_LIMIT = 250;
const META = new Set('\\.+*?()|[]{}^$#&-~');
const RE2_META = new Set('\\.+*?()|[]{}^$');

const PERL: Readonly<Record<string, readonly Range[]>> = {
  d: [[0x30, 0x39]],
  s: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  w: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
};

const POSIX: Readonly<Record<string, readonly Range[]>> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: PERL.w ?? [],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

/** Unicode general categories by long name (the crate accepts both spellings); RE2 knows the short ones. */
const CATEGORIES: Readonly<Record<string, string>> = {
  letter: 'L', casedletter: 'L', uppercaseletter: 'Lu', lowercaseletter: 'Ll', titlecaseletter: 'Lt', modifierletter: 'Lm',
  otherletter: 'Lo', mark: 'M', combiningmark: 'M', nonspacingmark: 'Mn', spacingmark: 'Mc', enclosingmark: 'Me',
  number: 'N', decimalnumber: 'Nd', letternumber: 'Nl', othernumber: 'No', punctuation: 'P', connectorpunctuation: 'Pc',
  dashpunctuation: 'Pd', openpunctuation: 'Ps', closepunctuation: 'Pe', initialpunctuation: 'Pi', finalpunctuation: 'Pf',
  otherpunctuation: 'Po', symbol: 'S', mathsymbol: 'Sm', currencysymbol: 'Sc', modifiersymbol: 'Sk', othersymbol: 'So',
  separator: 'Z', spaceseparator: 'Zs', lineseparator: 'Zl', paragraphseparator: 'Zp', other: 'C', control: 'Cc',
  format: 'Cf', surrogate: 'Cs', privateuse: 'Co', unassigned: 'Cn',
};

/** Binary properties and other names the crate knows, as the nearest RE2 class. */
const PROPERTIES: Readonly<Record<string, string>> = {
  any: '\\x{0}-\\x{10FFFF}', ascii: '\\x{0}-\\x{7F}', assigned: '\\P{Cn}', alphabetic: '\\pL\\p{Nl}', alpha: '\\pL\\p{Nl}',
  whitespace: '\\s\\p{Z}', wspace: '\\s\\p{Z}', space: '\\s\\p{Z}', uppercase: '\\p{Lu}', upper: '\\p{Lu}',
  lowercase: '\\p{Ll}', lower: '\\p{Ll}', digit: '\\p{Nd}', math: '\\p{Sm}', emoji: '\\p{So}', dash: '\\p{Pd}',
};

const SCRIPT_KEYS = new Set(['script', 'sc', 'scriptextensions', 'scx']);
const CATEGORY_KEYS = new Set(['generalcategory', 'gc']);

/** The crate's loose matching of property names: case, spaces, `_` and `-` do not count. */
function loose(name: string): string {
  return name.toLowerCase().replace(/[\s_-]/g, '');
}

function union(a: readonly Range[], b: readonly Range[]): Range[] {
  const sorted = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function negate(a: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of union(a, [])) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CHAR) out.push([next, MAX_CHAR]);
  return out;
}

const intersect = (a: readonly Range[], b: readonly Range[]): Range[] => negate(union(negate(a), negate(b)));
const difference = (a: readonly Range[], b: readonly Range[]): Range[] => intersect(a, negate(b));

function hex(code: number): string {
  return `\\x{${code.toString(16).toUpperCase()}}`;
}

function rangesText(ranges: readonly Range[]): string {
  return ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('');
}

/** A class of exact ranges; RE2 has no empty class (`[]`), so one that matches nothing is written as such. */
function classText(ranges: readonly Range[]): string {
  return ranges.length === 0 ? `[^${hex(0)}-${hex(MAX_CHAR)}]` : `[${rangesText(ranges)}]`;
}

/** One character as an RE2 literal outside a class. */
function literalText(code: number): string {
  const ch = String.fromCodePoint(code);
  if (RE2_META.has(ch)) return `\\${ch}`;
  return code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0xff) ? hex(code) : ch;
}

/** A class item: exact ranges, or (for Unicode properties) RE2 text that cannot be computed here. */
type ClassPart = { readonly ranges: readonly Range[] } | { readonly text: string; readonly negated: boolean };

/** A parsed class: exact ranges when every part is computable, otherwise the RE2 text of the union. */
interface ClassValue {
  readonly ranges: readonly Range[] | undefined;
  readonly text: string;
}

interface Flags {
  readonly x: boolean;
  readonly u: boolean;
}

type ItemKind = 'atom' | 'repetition' | 'assertion' | 'flags';
interface Item {
  text: string;
  kind: ItemKind;
}

class Failure {
  constructor(readonly error: RegexSyntaxError) {}
}

class RegexReader {
  private readonly chars: readonly string[];
  private pos = 0;
  private captureNames = new Map<string, readonly [number, number]>();
  /** The first error found after parsing succeeds (the crate reports these only for a well-formed pattern). */
  private late: RegexSyntaxError | undefined;
  private readonly openGroups: number[] = [];
  private depth = 0;

  constructor(pattern: string) {
    this.chars = Array.from(pattern);
  }

  translate(): Translation {
    try {
      const text = this.alternation({ x: false, u: false }, true);
      if (this.late) return { ok: false, error: this.late };
      return { ok: true, re2: text };
    } catch (error) {
      if (error instanceof Failure) return { ok: false, error: error.error };
      throw error;
    }
  }

  private get eof(): boolean {
    return this.pos >= this.chars.length;
  }

  private ch(): string {
    return this.chars[this.pos] ?? '';
  }

  private peekAt(offset: number): string {
    return this.chars[this.pos + offset] ?? '';
  }

  private fail(kind: string, start: number, end: number, aux?: readonly [number, number]): never {
    throw new Failure({ kind, span: [start, end], ...(aux ? { aux } : {}) });
  }

  private lateError(kind: string, start: number, end: number): void {
    this.late ??= { kind, span: [start, end] };
  }

  /** Skips whitespace and `#` comments when the `x` flag is on. */
  private skipSpace(flags: Flags): void {
    if (!flags.x) return;
    while (!this.eof) {
      if (/\s/u.test(this.ch())) this.pos++;
      else if (this.ch() === '#') {
        while (!this.eof && this.ch() !== '\n') this.pos++;
        if (!this.eof) this.pos++;
      } else return;
    }
  }

  private bumpAndSkip(flags: Flags): boolean {
    this.pos++;
    this.skipSpace(flags);
    return !this.eof;
  }

  /** `a|b|c` up to the end of the group (or pattern); answers its RE2 text. */
  private alternation(outer: Flags, top: boolean): string {
    let flags = outer;
    const branches: string[] = [];
    let items: Item[] = [];
    for (;;) {
      this.skipSpace(flags);
      if (this.eof) {
        if (!top) {
          const open = this.openGroups[this.openGroups.length - 1] ?? 0;
          this.fail('unclosed group', open, open + 1);
        }
        break;
      }
      const c = this.ch();
      if (c === ')') {
        if (top) this.fail('unopened group', this.pos, this.pos + 1);
        break;
      }
      if (c === '|') {
        branches.push(items.map((i) => i.text).join(''));
        items = [];
        this.pos++;
        continue;
      }
      if (c === '?' || c === '*' || c === '+') {
        this.repeat(items, c);
        continue;
      }
      if (c === '{') {
        this.countedRepeat(items, flags);
        continue;
      }
      if (c === '(') {
        const group = this.group(flags);
        if (group.setFlags) {
          flags = group.setFlags;
          items.push({ text: group.text, kind: 'flags' });
        } else items.push({ text: group.text, kind: 'atom' });
        continue;
      }
      if (c === '[') {
        items.push({ text: this.bracketClass(flags).text, kind: 'atom' });
        continue;
      }
      items.push(this.primitive(flags));
    }
    branches.push(items.map((i) => i.text).join(''));
    return branches.join('|');
  }

  private repeatTarget(items: Item[], opStart: number): Item {
    const last = items.pop();
    if (!last || last.kind === 'flags') this.fail('repetition operator missing expression', opStart, opStart + 1);
    return last;
  }

  /** RE2 refuses a repetition of a repetition or of an assertion, so those are grouped first. */
  private wrap(item: Item): string {
    return item.kind === 'atom' ? item.text : `(?:${item.text})`;
  }

  private repeat(items: Item[], op: string): void {
    const target = this.repeatTarget(items, this.pos);
    this.pos++;
    let lazy = '';
    if (!this.eof && this.ch() === '?') {
      lazy = '?';
      this.pos++;
    }
    items.push({ text: `${this.wrap(target)}${op}${lazy}`, kind: 'repetition' });
  }

  /** Digits with any whitespace around them, as the crate reads repetition counts. */
  private decimal(): { value: number; start: number; end: number } | { empty: true; start: number; end: number } {
    while (!this.eof && /\s/u.test(this.ch())) this.pos++;
    const start = this.pos;
    let digits = '';
    while (!this.eof && /[0-9]/.test(this.ch())) {
      digits += this.ch();
      this.pos++;
    }
    const end = this.pos;
    while (!this.eof && /\s/u.test(this.ch())) this.pos++;
    if (digits === '') return { empty: true, start, end };
    const value = Number(digits);
    if (value > 0xffffffff) this.fail('decimal literal invalid', start, end);
    return { value, start, end };
  }

  private countedRepeat(items: Item[], flags: Flags): void {
    const start = this.pos;
    const target = this.repeatTarget(items, start);
    const unclosed = (): never => this.fail('unclosed counted repetition', start, this.pos);
    if (!this.bumpAndSkip(flags)) unclosed();
    const min = this.decimal();
    if (this.eof) unclosed();
    let max: number | undefined;
    let bounded = false;
    if (this.ch() === ',') {
      if (!this.bumpAndSkip(flags)) unclosed();
      if (this.ch() !== '}') {
        if ('empty' in min) this.fail('repetition quantifier expects a valid decimal', min.start, min.end);
        const upper = this.decimal();
        if ('empty' in upper) this.fail('repetition quantifier expects a valid decimal', upper.start, upper.end);
        max = upper.value;
      }
      bounded = true;
    } else if ('empty' in min) {
      this.fail('repetition quantifier expects a valid decimal', min.start, min.end);
    }
    if ('empty' in min) return unclosed();
    if (this.eof || this.ch() !== '}') unclosed();
    let lazy = '';
    if (this.bumpAndSkip(flags) && this.ch() === '?') {
      lazy = '?';
      this.pos++;
    }
    if (max !== undefined && min.value > max) this.fail('invalid repetition range, the start must be <= the end', start, this.pos);
    const low = Math.min(min.value, RE2_MAX_REPEAT);
    const range = !bounded ? `{${low}}` : max === undefined ? `{${low},}` : `{${low},${Math.min(max, RE2_MAX_REPEAT)}}`;
    items.push({ text: `${this.wrap(target)}${range}${lazy}`, kind: 'repetition' });
  }

  /**
   * The crate's nesting limit. It counts every nested node after a successful
   * parse; here groups and classes are counted as they open, which also bounds
   * the recursion of this reader.
   */
  private enter(open: number): void {
    this.depth++;
    if (this.depth <= NEST_LIMIT) return;
    // The crate parses the whole pattern first: an unclosed group wins over the limit,
    // and the limit's error covers the whole group that goes too deep.
    const unmatched: number[] = [];
    let close: number | undefined;
    for (let at = open; at < this.chars.length && close === undefined; at++) {
      const c = this.chars[at];
      if (c === '\\') at++;
      else if (c === '(') unmatched.push(at);
      else if (c === ')' && unmatched.pop() === open) close = at;
    }
    if (close === undefined) {
      const innermost = unmatched[unmatched.length - 1] ?? open;
      this.fail('unclosed group', innermost, innermost + 1);
    }
    const end = this.chars[open] === '(' ? close + 1 : open + 1;
    this.fail(`exceed the maximum number of nested parentheses/brackets (${NEST_LIMIT})`, open, end);
  }

  private group(outer: Flags): { text: string; setFlags?: Flags } {
    const open = this.pos;
    this.enter(open);
    try {
      return this.groupAt(open, outer);
    } finally {
      this.depth--;
    }
  }

  private groupAt(open: number, outer: Flags): { text: string; setFlags?: Flags } {
    this.pos++;
    this.skipSpace(outer);
    const lookaround = ['?=', '?!', '?<=', '?<!'].find((p) => this.startsWith(p));
    if (lookaround) {
      this.fail('look-around, including look-ahead and look-behind, is not supported', open, this.pos + lookaround.length);
    }
    if (this.startsWith('?P<') || this.startsWith('?<')) {
      this.pos += this.startsWith('?P<') ? 3 : 2;
      this.captureName();
      return { text: `(${this.groupBody(outer, open)})` };
    }
    if (this.startsWith('?')) {
      const innerStart = this.pos;
      this.pos++;
      if (this.eof) this.fail('unclosed group', open, open + 1);
      const parsed = this.flagItems(outer);
      const end = this.ch();
      this.pos++;
      if (end === ')') {
        if (parsed.count === 0) this.fail('repetition operator missing expression', innerStart, innerStart);
        return { text: parsed.re2 === '' ? '' : `(?${parsed.re2})`, setFlags: parsed.flags };
      }
      return { text: `(?${parsed.re2}:${this.groupBody(parsed.flags, open)})` };
    }
    return { text: `(${this.groupBody(outer, open)})` };
  }

  private groupBody(flags: Flags, open: number): string {
    this.openGroups.push(open);
    const text = this.alternation(flags, false);
    this.openGroups.pop();
    this.pos++; // the closing parenthesis
    return text;
  }

  private startsWith(text: string): boolean {
    for (let i = 0; i < text.length; i++) if (this.chars[this.pos + i] !== text[i]) return false;
    return true;
  }

  private captureName(): void {
    const start = this.pos;
    let name = '';
    for (;;) {
      if (this.eof) this.fail('unclosed capture group name', this.pos, this.pos);
      const c = this.ch();
      if (c === '>') break;
      const valid = name === '' ? c === '_' || /\p{Alphabetic}/u.test(c) : c === '_' || c === '.' || c === '[' || c === ']' || /[\p{Alphabetic}\p{N}]/u.test(c);
      if (!valid) this.fail('invalid capture group character', this.pos, this.pos + 1);
      name += c;
      this.pos++;
    }
    if (name === '') this.fail('empty capture group name', start, this.pos);
    const span = [start, this.pos] as const;
    const original = this.captureNames.get(name);
    if (original) this.fail('duplicate capture group name', span[0], span[1], original);
    this.captureNames.set(name, span);
    this.pos++;
  }

  /** `i-u` in `(?i-u)` or `(?i-u:`; answers the new flags and the part RE2 understands. */
  private flagItems(outer: Flags): { flags: Flags; re2: string; count: number } {
    let x = outer.x;
    let u = outer.u;
    let on = '';
    let off = '';
    let negated: number | undefined;
    let danglingNegation: number | undefined;
    const seen = new Map<string, number>();
    let count = 0;
    while (this.ch() !== ':' && this.ch() !== ')') {
      const c = this.ch();
      if (c === '-') {
        if (negated !== undefined) this.fail('flag negation operator repeated', this.pos, this.pos + 1, [negated, negated + 1]);
        negated = this.pos;
        danglingNegation = this.pos;
      } else {
        danglingNegation = undefined;
        if (!'imsUuRx'.includes(c)) this.fail('unrecognized flag', this.pos, this.pos + 1);
        const original = seen.get(c);
        if (original !== undefined) this.fail('duplicate flag', this.pos, this.pos + 1, [original, original + 1]);
        seen.set(c, this.pos);
        const value = negated === undefined;
        if (c === 'x') x = value;
        else if (c === 'u') u = value;
        else if ('imsU'.includes(c)) {
          if (value) on += c;
          else off += c;
        }
      }
      count++;
      this.pos++;
      if (this.eof) this.fail('expected flag but got end of regex', this.pos, this.pos);
    }
    if (danglingNegation !== undefined) this.fail('dangling flag negation operator', danglingNegation, danglingNegation + 1);
    return { flags: { x, u }, re2: off === '' ? on : `${on}-${off}`, count };
  }

  private primitive(flags: Flags): Item {
    const c = this.ch();
    if (c === '\\') return this.escapeItem(flags);
    this.pos++;
    if (c === '.') return { text: '.', kind: 'atom' };
    if (c === '^' || c === '$') return { text: c, kind: 'assertion' };
    return { text: literalText(c.codePointAt(0) ?? 0), kind: 'atom' };
  }

  private escapeItem(flags: Flags): Item {
    const escape = this.escape(flags);
    if ('assertion' in escape) return { text: escape.assertion, kind: 'assertion' };
    if ('code' in escape) return { text: literalText(escape.code), kind: 'atom' };
    if ('ranges' in escape.part) return { text: classText(escape.part.ranges), kind: 'atom' };
    return { text: escape.part.negated ? `[^${escape.part.text}]` : `[${escape.part.text}]`, kind: 'atom' };
  }

  /** One escape, outside or inside a class: a character, a class, or an assertion. */
  private escape(
    flags: Flags,
  ): { code: number; start: number; byte?: boolean } | { part: ClassPart; start: number } | { assertion: string; start: number; end: number } {
    const start = this.pos;
    this.pos++;
    if (this.eof) this.fail('incomplete escape sequence, reached end of pattern prematurely', start, this.pos);
    const c = this.ch();
    if (/[0-9]/.test(c)) this.fail('backreferences are not supported', start, this.pos + 1);
    if (c === 'x' || c === 'u' || c === 'U') {
      const byte = c === 'x' && this.chars[start + 2] !== '{';
      return { code: this.hexEscape(c, flags), start, byte };
    }
    if (c === 'p' || c === 'P') return { part: this.unicodeClass(start, flags), start };
    const perl = PERL[c.toLowerCase()];
    if (perl && 'dswDSW'.includes(c)) {
      this.pos++;
      return { part: { ranges: c === c.toLowerCase() ? perl : negate(perl) }, start };
    }
    this.pos++;
    const code = c.codePointAt(0) ?? 0;
    if (META.has(c) || (code < 0x80 && !/[0-9A-Za-z<>]/.test(c))) return { code, start };
    const specials: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    const special = specials[c];
    if (special !== undefined) return { code: special, start };
    if (c === 'A' || c === 'z' || c === 'B') return { assertion: `\\${c}`, start, end: this.pos };
    if (c === '<' || c === '>') return { assertion: '\\b', start, end: this.pos };
    if (c === 'b') {
      if (!this.eof && this.ch() === '{') this.specialWordBoundary(start, flags);
      return { assertion: '\\b', start, end: this.pos };
    }
    return this.fail('unrecognized escape sequence', start, this.pos);
  }

  private specialWordBoundary(start: number, flags: Flags): void {
    const brace = this.pos;
    if (!this.bumpAndSkip(flags)) this.fail('found either the beginning of a special word boundary or a bounded repetition on a \\b with an opening brace, but no closing brace', start, this.pos);
    const contentStart = this.pos;
    if (!/[A-Za-z-]/.test(this.ch())) {
      this.pos = brace; // a counted repetition of `\b`
      return;
    }
    let name = '';
    while (!this.eof && /[A-Za-z-]/.test(this.ch())) {
      name += this.ch();
      this.bumpAndSkip(flags);
    }
    if (this.eof || this.ch() !== '}') this.fail('special word boundary assertion is either unclosed or contains an invalid character', brace, this.pos);
    const end = this.pos;
    this.pos++;
    if (!['start', 'end', 'start-half', 'end-half'].includes(name)) {
      this.fail('unrecognized special word boundary assertion, valid choices are: start, end, start-half or end-half', contentStart, end);
    }
  }

  private hexEscape(kind: string, flags: Flags): number {
    if (!this.bumpAndSkip(flags)) this.fail('incomplete escape sequence, reached end of pattern prematurely', this.pos, this.pos);
    let digits = '';
    let start = this.pos;
    if (this.ch() === '{') {
      const brace = this.pos;
      start = brace + 1;
      while (this.bumpAndSkip(flags) && this.ch() !== '}') {
        if (!/[0-9A-Fa-f]/.test(this.ch())) this.fail('invalid hexadecimal digit', this.pos, this.pos + 1);
        digits += this.ch();
      }
      if (this.eof) this.fail('incomplete escape sequence, reached end of pattern prematurely', brace, this.pos);
      const end = this.pos;
      this.bumpAndSkip(flags);
      if (digits === '') this.fail('hexadecimal literal empty', brace, this.pos);
      return this.scalar(digits, start, end);
    }
    const count = kind === 'x' ? 2 : kind === 'u' ? 4 : 8;
    for (let i = 0; i < count; i++) {
      if (i > 0 && !this.bumpAndSkip(flags)) this.fail('incomplete escape sequence, reached end of pattern prematurely', this.pos, this.pos);
      if (!/[0-9A-Fa-f]/.test(this.ch())) this.fail('invalid hexadecimal digit', this.pos, this.pos + 1);
      digits += this.ch();
    }
    this.bumpAndSkip(flags);
    return this.scalar(digits, start, this.pos);
  }

  private scalar(digits: string, start: number, end: number): number {
    const code = digits.length > 8 ? Number.NaN : Number.parseInt(digits, 16);
    if (!(code <= MAX_CHAR) || (code >= 0xd800 && code <= 0xdfff)) this.fail('hexadecimal literal is not a Unicode scalar value', start, end);
    return code;
  }

  private unicodeClass(start: number, flags: Flags): ClassPart {
    const negated = this.ch() === 'P';
    if (!this.bumpAndSkip(flags)) this.fail('incomplete escape sequence, reached end of pattern prematurely', this.pos, this.pos);
    let name: string;
    if (this.ch() === '{') {
      name = '';
      while (this.bumpAndSkip(flags) && this.ch() !== '}') name += this.ch();
      if (this.eof) this.fail('incomplete escape sequence, reached end of pattern prematurely', this.pos, this.pos);
      this.pos++;
    } else {
      if (this.ch() === '\\') this.fail('invalid Unicode character class', this.pos, this.pos + 1);
      name = this.ch();
      this.bumpAndSkip(flags);
    }
    if (!flags.u) {
      this.lateError('Unicode not allowed here', start, this.pos);
      return { text: '', negated };
    }
    const text = this.propertyText(name);
    if (text === undefined) {
      this.lateError(/[:=]|!=/.test(name) ? 'Unicode property value not found' : 'Unicode property not found', start, this.pos);
      return { text: '', negated };
    }
    return { text, negated };
  }

  /** The RE2 class body for a property name, or undefined when the crate knows no such property. */
  private propertyText(name: string): string | undefined {
    const separator = /!=|[:=]/.exec(name);
    if (separator) {
      const key = loose(name.slice(0, separator.index));
      const value = name.slice(separator.index + separator[0].length);
      if (separator[0] === '!=') return undefined; // not expressible; the crate reads it, but rarely used
      if (SCRIPT_KEYS.has(key)) return this.script(value);
      if (CATEGORY_KEYS.has(key)) return this.category(value);
      return undefined;
    }
    return this.category(name) ?? PROPERTIES[loose(name)] ?? this.script(name);
  }

  private category(name: string): string | undefined {
    const short = /^[A-Za-z]{1,2}$/.test(name) && isRe2Property(name) ? name : CATEGORIES[loose(name)];
    return short === undefined ? undefined : `\\p{${short}}`;
  }

  private script(name: string): string | undefined {
    const script = SCRIPT_BY_LOOSE.get(loose(name));
    return script === undefined ? undefined : `\\p{${script}}`;
  }

  /** `[...]` with nested classes and set operations; answers its RE2 text. */
  private bracketClass(flags: Flags): ClassValue {
    this.enter(this.pos);
    try {
      return this.bracketClassAt(flags);
    } finally {
      this.depth--;
    }
  }

  private bracketClassAt(flags: Flags): ClassValue {
    const open = this.pos;
    // Once the opening (`[`, `^`, leading `-` or `]`) is read, the error points at it alone.
    let openEnd: number | undefined;
    const unclosed = (): never => this.fail('unclosed character class', open, openEnd ?? this.pos);
    if (!this.bumpAndSkip(flags)) unclosed();
    let negated = false;
    if (this.ch() === '^') {
      negated = true;
      if (!this.bumpAndSkip(flags)) unclosed();
    }
    let parts: ClassPart[] = [];
    while (this.ch() === '-') {
      parts.push({ ranges: [[0x2d, 0x2d]] });
      if (!this.bumpAndSkip(flags)) unclosed();
    }
    if (parts.length === 0 && this.ch() === ']') {
      parts.push({ ranges: [[0x5d, 0x5d]] });
      if (!this.bumpAndSkip(flags)) unclosed();
    }
    openEnd = this.pos;
    let operation: { op: string; left: ClassValue } | undefined;
    const finish = (): ClassValue => {
      const value = classValue(parts);
      if (!operation) return value;
      return combine(operation.op, operation.left, value);
    };
    for (;;) {
      this.skipSpace(flags);
      if (this.eof) unclosed();
      const c = this.ch();
      if (c === ']') {
        this.pos++;
        const value = finish();
        if (value.ranges) {
          const ranges = negated ? negate(value.ranges) : value.ranges;
          return { ranges, text: classText(ranges) };
        }
        if (value.text === '') return { ranges: undefined, text: classText(negated ? negate([]) : []) };
        return { ranges: undefined, text: negated ? `[^${value.text}]` : `[${value.text}]` };
      }
      if (c === '[') {
        const ascii = this.asciiClass();
        if (ascii) parts.push(ascii);
        else {
          const nested = this.bracketClass(flags);
          parts.push(nested.ranges ? { ranges: nested.ranges } : { text: nested.text.slice(1, -1), negated: false });
        }
        continue;
      }
      const op = ['&&', '--', '~~'].find((o) => o[0] === c && this.peekAt(1) === o[1]);
      if (op) {
        this.pos += 2;
        operation = { op, left: finish() };
        parts = [];
        continue;
      }
      parts.push(this.classRange(flags, unclosed));
    }
  }

  private asciiClass(): ClassPart | undefined {
    if (this.peekAt(1) !== ':') return undefined;
    const match = /^\[:(\^?)([a-z]+):\]/.exec(this.chars.slice(this.pos, this.pos + 12).join(''));
    const ranges = match ? POSIX[match[2] ?? ''] : undefined;
    if (!match || !ranges) return undefined;
    this.pos += match[0].length;
    return { ranges: match[1] ? negate(ranges) : ranges };
  }

  /**
   * One item of a class. With Unicode off the crate builds a class of bytes, so
   * a character past ASCII is refused there unless written as a byte (`\xE9`).
   */
  private classItem(flags: Flags): { part: ClassPart; code?: number; start: number; end: number } {
    const start = this.pos;
    if (this.ch() !== '\\') {
      const code = this.ch().codePointAt(0) ?? 0;
      this.pos++;
      if (code > 0x7f && !flags.u) this.lateError('Unicode not allowed here', start, this.pos);
      return { part: { ranges: [[code, code]] }, code, start, end: this.pos };
    }
    const escape = this.escape(flags);
    if ('assertion' in escape) this.fail('invalid escape sequence found in character class', start, this.pos);
    if ('code' in escape) {
      if (escape.code > 0x7f && !escape.byte && !flags.u) this.lateError('Unicode not allowed here', start, this.pos);
      return { part: { ranges: [[escape.code, escape.code]] }, code: escape.code, start, end: this.pos };
    }
    return { part: escape.part, start, end: this.pos };
  }

  private classRange(flags: Flags, unclosed: () => never): ClassPart {
    const first = this.classItem(flags);
    this.skipSpace(flags);
    if (this.eof) unclosed();
    const afterDash = (): string => {
      let at = this.pos + 1;
      while (flags.x && at < this.chars.length && /\s/u.test(this.chars[at] ?? '')) at++;
      return this.chars[at] ?? '';
    };
    if (this.ch() !== '-' || afterDash() === ']' || afterDash() === '-') return first.part;
    if (!this.bumpAndSkip(flags)) unclosed();
    const second = this.classItem(flags);
    if (first.code === undefined) this.fail('invalid range boundary, must be a literal', first.start, first.end);
    if (second.code === undefined) this.fail('invalid range boundary, must be a literal', second.start, second.end);
    if (first.code > second.code) this.fail('invalid character class range, the start must be <= the end', first.start, second.end);
    return { ranges: [[first.code, second.code]] };
  }
}

function classValue(parts: readonly ClassPart[]): ClassValue {
  const exact: Range[] = [];
  let approximate = false;
  let text = '';
  for (const part of parts) {
    if ('ranges' in part) {
      exact.push(...part.ranges);
      text += rangesText(part.ranges);
    } else {
      approximate = true;
      text += part.negated ? part.text.replace(/\\p/g, '\\P') : part.text;
    }
  }
  return approximate ? { ranges: undefined, text } : { ranges: union(exact, []), text };
}

/** A set operation; with a Unicode property on either side the result is approximated by the left side. */
function combine(op: string, left: ClassValue, right: ClassValue): ClassValue {
  if (!left.ranges || !right.ranges) return left.ranges ? { ranges: undefined, text: rangesText(left.ranges) } : left;
  const ranges = op === '&&' ? intersect(left.ranges, right.ranges) : op === '--' ? difference(left.ranges, right.ranges) : union(difference(left.ranges, right.ranges), difference(right.ranges, left.ranges));
  return { ranges, text: rangesText(ranges) };
}

/** General categories RE2 knows by their one- and two-letter names. */
const RE2_CATEGORIES = new Set(
  'C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(' '),
);

function isRe2Property(name: string): boolean {
  return RE2_CATEGORIES.has(name);
}

/** Unicode scripts (the names RE2 and the crate share). */
const SCRIPTS: readonly string[] = (
  'Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki Bopomofo ' +
  'Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee Chorasmian Common ' +
  'Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs ' +
  'Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han Hangul ' +
  'Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi ' +
  'Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki ' +
  'Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean ' +
  'Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi ' +
  'Mongolian Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong ' +
  'Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian ' +
  'Old_Turkic Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi ' +
  'Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo ' +
  'Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana ' +
  'Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square'
).split(' ');
/** Script names are compared loosely (case, `_` ignored); RE2 wants the canonical spelling. */
const SCRIPT_BY_LOOSE: ReadonlyMap<string, string> = new Map(SCRIPTS.map((s) => [loose(s), s]));

/** Reads a pattern in the engine's dialect and translates it to RE2, or answers the crate's error. */
export function translateRegex(pattern: string): Translation {
  return new RegexReader(pattern).translate();
}

/** Carets under the spans that start on one line (`from` is the line's first character offset). */
function notes(spans: readonly (readonly [number, number])[], from: number, length: number, indent: string): string | undefined {
  let out = '';
  for (const [start, end] of spans) {
    if (start < from || start > from + length) continue;
    out += ' '.repeat(Math.max(0, start - from - out.length)) + '^'.repeat(Math.max(1, end - start));
  }
  return out === '' ? undefined : indent + out;
}

/**
 * The crate's error text: the pattern with carets under the span (and under
 * the first occurrence, for duplicates), then the reason. A pattern of several
 * lines is numbered and framed, as the crate does.
 */
export function formatRegexError(pattern: string, error: RegexSyntaxError): string {
  const spans = [error.span, ...(error.aux ? [error.aux] : [])].sort((a, b) => a[0] - b[0]);
  const lines = pattern.split(/\r?\n/);
  const width = lines.length === 1 ? 0 : String(lines.length).length;
  const body: string[] = [];
  let from = 0;
  const all = Array.from(pattern);
  for (const [i, line] of lines.entries()) {
    const length = Array.from(line).length;
    body.push(width === 0 ? `    ${line}` : `${String(i + 1).padStart(width)}: ${line}`);
    const note = notes(spans, from, length, ' '.repeat(width === 0 ? 4 : width + 2));
    if (note !== undefined) body.push(note);
    from += length;
    while (from < all.length && (all[from] === '\r' || all[from] === '\n')) from++;
  }
  if (width === 0) return `regex parse error:\n${body.join('\n')}\nerror: ${error.kind}`;
  const divider = '~'.repeat(79);
  return `regex parse error:\n${divider}\n${body.join('\n')}\n${divider}\nerror: ${error.kind}`;
}
