/**
 * Regex literals after `matches`. In a quoted literal backslashes pass through
 * to the regex (only `\"` outside a character class loses its backslash); raw
 * strings pass verbatim. Patterns are checked against the RE2 dialect with
 * re2js, which also matches them in linear time at evaluation.
 */
import { RE2JS } from 're2js';
import type { RegexLiteral } from '../ast';
import type { Cursor } from '../cursor';
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

/** Why RE2 refuses the pattern, in the engine's words where they differ; undefined if it compiles. */
export function regexProblem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const fragment = /`([^`]*)`/.exec(message)?.[1] ?? '';
    if (/^\\[1-9]/.test(fragment)) return 'regex parse error: backreferences are not supported';
    if (/^\(\?<?[=!]/.test(fragment)) {
      return 'regex parse error: look-around, including look-ahead and look-behind, is not supported';
    }
    return `regex parse error: ${message.replace(/^error parsing regexp: /, '')}`;
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
  if (problem !== undefined) c.fail(literal.contentStart, literal.contentEnd, problem);
  return { kind: 'regex', pattern: literal.pattern, style: literal.style, hashes: literal.hashes, span: { start, end: c.pos } };
}
