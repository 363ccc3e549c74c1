import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FilterError, compile, format, parse, validate } from '../../src/filter/index';
import { validExpression } from './arbitraries';
import { withoutSpans } from './helpers';

describe('format and parse', () => {
  it('parse(format(ast)) is ast, apart from spans', () => {
    fc.assert(
      fc.property(validExpression, (text) => {
        const ast = parse(text);
        const printed = format(ast);
        expect(withoutSpans(parse(printed))).toEqual(withoutSpans(ast));
        expect(format(parse(printed))).toBe(printed);
      }),
      { numRuns: 1500 },
    );
  });

  it('checked trees compile and evaluate on an empty request', () => {
    fc.assert(
      fc.property(validExpression, (text) => {
        expect(typeof compile(parse(text)).evaluate({})).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});

/** Checks everything a caller may rely on in the answer of `validate`. */
function checkAnswer(text: string): void {
  const result = validate(text);
  if (result.ok) {
    expect(result.ast.type).toBe('Bool');
    return;
  }
  const { error } = result;
  expect(error).toBeInstanceOf(FilterError);
  expect(error.span.start).toBeGreaterThanOrEqual(0);
  expect(error.span.end).toBeGreaterThanOrEqual(error.span.start);
  expect(error.span.end).toBeLessThanOrEqual(text.length);
  const [header, line, carets, ...rest] = error.message.split('\n');
  expect(rest).toEqual([]);
  expect(header).toBe(`Filter parsing error (${error.line}:${error.column}):`);
  expect(line).toBe(text.split('\n')[error.line - 1]?.replace(/\r$/, ''));
  expect(carets).toMatch(new RegExp(`^ {${error.column - 1}}\\^+ `));
  expect(carets?.endsWith(` ${error.reason}`)).toBe(true);
}

const TOKENS = [
  '(', ')', 'not', '!', 'and', '&&', 'or', 'xor', '^^', '"', '"a"', 'r#"', '"#', '\\', '\\x', '{', '}', '[', ']', '[*]', '[0]',
  '["k"]', ',', 'http.host', 'ip.src', 'cf.threat_score', 'ssl', 'http.request.headers', 'any(', 'all(', 'lower(', 'concat(',
  'eq', '==', 'in', 'contains', 'matches', 'wildcard', 'strict wildcard', '&', '1', '-1', '0x', '0777', '1..2', '1.2.3.4',
  '1.2.3.0/24', '::1', '2001:db8::/2000', '/33', '$list', '61:62', '\n', '\t', ' ', '😀', 'é',
];

describe('any input', () => {
  it('gets an answer or a FilterError, for arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), checkAnswer), { numRuns: 2000 });
  });

  it('gets an answer or a FilterError, for soups of tokens', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }), fc.constantFrom('', ' '), (tokens, sep) =>
        checkAnswer(tokens.join(sep)),
      ),
      { numRuns: 3000 },
    );
  });

  it('gets an answer or a FilterError, for damaged valid expressions', () => {
    fc.assert(
      fc.property(validExpression, fc.nat(), fc.nat(8), fc.string({ maxLength: 3 }), (text, at, cut, insert) => {
        const start = at % (text.length + 1);
        checkAnswer(text.slice(0, start) + insert + text.slice(start + cut));
      }),
      { numRuns: 2000 },
    );
  });

  it('answers adversarial inputs of the maximum size', () => {
    const n = 4096;
    const inputs = [
      '('.repeat(n),
      ')'.repeat(n),
      '"'.repeat(n),
      '\\'.repeat(n),
      `http.host eq "${'\\'.repeat(n - 15)}`,
      `http.host eq r${'#'.repeat(200)}"${'"#'.repeat((n - 220) / 2)}`,
      `http.host matches "${'('.repeat(n - 20)}"`,
      `http.host matches "${'a*'.repeat((n - 20) / 2)}"`,
      `http.host wildcard "${'*a'.repeat((n - 21) / 2)}"`,
      `ip.src in {${'1.2.3.4 '.repeat((n - 12) / 8)}}`,
      `cf.threat_score eq ${'9'.repeat(n - 19)}`,
      `${'ssl and '.repeat((n - 3) / 8)}ssl`,
      `${'not '.repeat(n / 4)}`,
      `lower(${'http.host,'.repeat((n - 7) / 10)})`,
      'a.'.repeat(n / 2),
      `any(${'http.request.headers.names[*] eq "a" or '.repeat(90)}ssl)`,
    ];
    for (const input of inputs) {
      expect([...input].length).toBeLessThanOrEqual(n);
      checkAnswer(input);
    }
  });
});
