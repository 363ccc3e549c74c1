import { parse } from 'dotenv';
import { ProblemList } from './problems';

/** An assignment as dotenv reads one: optional `export`, a key, then `=` or `: `. */
const ASSIGNMENT = /^\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(.*)$/;
const QUOTES = new Set(['"', "'", '`']);

/**
 * Parses a `.dev.vars` file (or any file of `KEY=value` lines): values are read by dotenv, as the
 * platform's own tooling reads this file, so a file behaves here as it does there (quotes,
 * `\n` in double quotes, values spanning lines, `#` comments). Before that, the lines dotenv
 * would skip or misread in silence are reported, each naming its line: a line that is not an
 * assignment, a quote never closed, text after a closing quote, a key given twice. So a typo
 * never silently drops a secret; values are never part of a message.
 */
export function parseDevVars(text: string, file: string): Record<string, string> {
  const source = text.replace(/^\uFEFF/, '');
  const problems = new ProblemList(file);
  const lines = source.split(/\r?\n/);
  const seen = new Set<string>();
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (/^\s*(#.*)?$/.test(line)) continue;
    const match = ASSIGNMENT.exec(line);
    if (!match) {
      problems.addAt(index + 1, 1, 'expected KEY=value (KEY: letters, digits, _, . and -)');
      continue;
    }
    const [, key, value] = match as unknown as [string, string, string];
    if (seen.has(key)) problems.addAt(index + 1, 1, `${key} is set twice`);
    seen.add(key);
    const quoted = quotedValueEnd(value.trimStart(), lines, index);
    if (typeof quoted === 'string') problems.addAt(index + 1, line.length - value.length + 1, `${key}: ${quoted}`);
    else index = quoted;
  }
  problems.throwIfAny();
  return parse(source);
}

/**
 * For a value opening with a quote: the index of the line its closing quote is on (dotenv lets a
 * quoted value span lines, an escaped quote not closing it), or what is wrong with it.
 */
function quotedValueEnd(value: string, lines: string[], index: number): number | string {
  const quote = value[0]!;
  if (!QUOTES.has(quote)) return index;
  let text = value.slice(1);
  for (let last = index; ; ) {
    const close = closingQuote(text, quote);
    if (close >= 0) return /^\s*(#.*)?$/.test(text.slice(close + 1)) ? last : 'unexpected text after the closing quote';
    if (++last >= lines.length) return `the ${{ '"': 'double', "'": 'single', '`': 'back' }[quote]} quote is never closed`;
    text = lines[last]!;
  }
}

function closingQuote(text: string, quote: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && text[i + 1] === quote) i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}
