/**
 * Regex literals after `matches`. In a quoted literal backslashes pass through
 * to the regex (only `\"` outside a character class loses its backslash); raw
 * strings pass verbatim. Patterns are checked against the engine's dialect
 * (Rust's regex syntax, see regex-dialect.ts) and evaluated by re2js, in
 * linear time, through their RE2 translation.
 */
import { RE2JS } from 're2js';
import type { RegexLiteral, Cursor } from '../language';
import { formatRegexError, translateRegex } from './regex-dialect';
import { lexRawText } from './strings';

function lexQuotedPattern(c: Cursor): { pattern: string; contentStart: number; contentEnd: number } {
  const contentStart = c.pos + 1;
  let at = contentStart;
  let pattern = '';
  let inClass = false;
  for (;;) {
    if (at >= c.end) c.fail(contentStart, c.end, 'could not find an ending quote');
    const char = c.source[at] ?? '';
    if (char === '\\') {
      const next = at + 1 < c.end ? String.fromCodePoint(c.source.codePointAt(at + 1) ?? 0) : '';
      if (inClass || next !== '"') pattern += '\\';
      pattern += next;
      at += 1 + next.length;
      continue;
    }
    if (char === '"' && !inClass) {
      c.pos = at + 1;
      return { pattern, contentStart, contentEnd: at };
    }
    if (char === '[' && !inClass) inClass = true;
    else if (char === ']' && inClass) inClass = false;
    pattern += char;
    at++;
  }
}

/** Why the engine's regex crate refuses the pattern, in its words; undefined if it accepts it. */
export function regexProblem(pattern: string): string | undefined {
  const translation = translateRegex(pattern);
  return translation.ok ? undefined : formatRegexError(pattern, translation.error);
}

/**
 * Compiles a pattern of the engine's dialect for evaluation. The pattern has
 * been checked already; should RE2 still refuse its translation, the regex
 * matches nothing rather than failing the request.
 */
export function compileDialectRegex(pattern: string): RE2JS {
  const translation = translateRegex(pattern);
  try {
    return RE2JS.compile(translation.ok ? translation.re2 : pattern);
  } catch {
    return RE2JS.compile('[^\\x{0}-\\x{10FFFF}]');
  }
}

export function lexRegex(c: Cursor): RegexLiteral {
  const start = c.pos;
  let literal: { pattern: string; contentStart: number; contentEnd: number; style: 'quoted' | 'raw'; hashes: number };
  if (c.peek() === '"') {
    literal = { ...lexQuotedPattern(c), style: 'quoted', hashes: 0 };
  } else if (c.peek() === 'r') {
    const raw = lexRawText(c);
    const contentEnd = raw.contentStart + raw.text.length;
    literal = { pattern: raw.text, contentStart: raw.contentStart, contentEnd, style: 'raw', hashes: raw.hashes };
  } else {
    return c.failRest(c.atEnd ? 'unrecognised input' : 'expected " or r');
  }
  const problem = regexProblem(literal.pattern);
  // The engine points at a quoted pattern's text, but past the end of a raw one.
  if (problem !== undefined && literal.style === 'raw') c.failRest(problem);
  if (problem !== undefined) c.fail(literal.contentStart, literal.contentEnd, problem);
  return { kind: 'regex', pattern: literal.pattern, style: literal.style, hashes: literal.hashes, span: { start, end: c.pos } };
}
