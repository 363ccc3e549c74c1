import { ProblemList } from './config-error';

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/**
 * Parses a `.dev.vars` file: `KEY=value` lines in the dotenv syntax the platform uses (`#`
 * comments, optional `export`, values bare, 'single-quoted' as written, or "double-quoted" with
 * \n escapes and possibly spanning lines). Stricter than dotenv on purpose: a line that is not
 * an assignment, an unclosed quote or a key given twice is an error naming the line, so a typo
 * never silently drops a secret. Values are never part of a message.
 */
export function parseDevVars(text: string, file: string): Record<string, string> {
  const problems = new ProblemList(file);
  const values: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (/^\s*(#.*)?$/.test(line)) continue;
    const lineNumber = index + 1;
    const match = ASSIGNMENT.exec(line);
    if (!match) {
      problems.addAt(lineNumber, 1, 'expected KEY=value (KEY: letters, digits and _, not starting with a digit)');
      continue;
    }
    const [, key, rest] = match as unknown as [string, string, string];
    const read = readValue(rest, lines, index);
    if (typeof read === 'string') {
      problems.addAt(lineNumber, line.length - rest.length + 1, `${key}: ${read}`);
      continue;
    }
    if (key in values) problems.addAt(lineNumber, 1, `${key} is set twice`);
    values[key] = read.value;
    index = read.lastLine;
  }
  problems.throwIfAny();
  return values;
}

/** The value starting with `rest` on line `index`, or why it cannot be read. */
function readValue(rest: string, lines: string[], index: number): { value: string; lastLine: number } | string {
  const quote = rest[0];
  if (quote !== '"' && quote !== "'") return { value: rest.replace(/\s+#.*$/, '').trim(), lastLine: index };
  let text = rest.slice(1);
  let lastLine = index;
  for (;;) {
    const close = closingQuote(text, quote);
    if (close >= 0) {
      const after = text.slice(close + 1);
      if (!/^\s*(#.*)?$/.test(after)) return 'unexpected text after the closing quote';
      const body = text.slice(0, close);
      return { value: quote === '"' ? unescape(body) : body, lastLine };
    }
    lastLine++;
    if (lastLine >= lines.length) return `the ${quote === '"' ? 'double' : 'single'} quote is never closed`;
    text += `\n${lines[lastLine]}`;
  }
}

function closingQuote(text: string, quote: string): number {
  for (let i = 0; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, (escape, char: string) => ESCAPES[char] ?? escape);
}
