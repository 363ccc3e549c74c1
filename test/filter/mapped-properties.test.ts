/**
 * Properties of the engine's constructs beyond plain comparisons: functions
 * over `[*]` indexed again, several `[*]`, spaces inside brackets, Boolean
 * arrays under any/all, and regexes of the engine's dialect. Printing keeps
 * the meaning (same tree, same verdict on any request), and no input makes
 * the validator or the regex translation throw.
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { FilterError, type RequestContext, compile, format, parse, validate } from '../../src/filter/index';
import { translateRegex } from '../../src/filter/literals/regex-dialect';
import { withoutSpans } from './helpers';

const one = <T>(values: readonly T[]) => fc.constantFrom(...values);
const open = one(['[', '[ ', '[\n']);
const close = one([']', ' ]']);
const each = fc.tuple(open, close).map(([o, c]) => `${o}*${c}`);

/** Paths whose elements, after the `[*]` steps, are Bytes. */
const mappedBytes = fc.oneof(
  fc.tuple(one(['http.request.headers.names', 'http.request.headers.values', 'http.request.body.form.values']), each).map(([f, e]) => f + e),
  fc.tuple(each, each).map(([a, b]) => `http.request.headers${a}${b}`),
  fc.tuple(each, each).map(([a, b]) => `http.request.body.multipart.filenames${a}${b}`),
  each.map((e) => `http.request.body.multipart.filenames${e}[0]`),
);

const literal = fc.stringMatching(/^[a-z0-9%-]{0,6}$/).map((s) => `"${s}"`);

const REGEX_PIECES = [
  'a', 'x-', '\\d+', '(?i)', '(?u)\\p{Greek}', '(?x) a b # c\n', '\\<', '\\>', '\\b{start}', '\\b{end}', '[a-z&&[^aeiou]]',
  '[0-9--4]', '[a-c~~b-d]', '[[:alpha:]]', 'a{ 1 , 2 }', 'a**', 'b+?', '\\u{e9}', '\\x41', '(?i-u:x)', '(?:a|b)', '(c)', '.',
  '^', '$', '\\/', '\\-', '[^x]', '[&&a]', '(?u)[\\pL&&]', '(?u)[^\\pL--a]',
];
const regexPattern = fc.array(one(REGEX_PIECES), { minLength: 1, maxLength: 5 }).map((p) => p.join(''));
/** A raw string holding a pattern, with enough `#` around it. */
const rawRegex = regexPattern.map((p) => {
  let hashes = 0;
  while (p.includes(`"${'#'.repeat(hashes)}`)) hashes++;
  const fence = '#'.repeat(hashes);
  return `r${fence}"${p}"${fence}`;
});

const mappedComparison = fc.oneof(
  fc.tuple(one(['lower', 'upper', 'url_decode']), mappedBytes, each, one(['eq', '==', 'ne', 'contains']), literal).map(
    ([fn, path, e, op, lit]) => `${fn}(${path})${e} ${op} ${lit}`,
  ),
  fc.tuple(mappedBytes, one(['eq', 'contains', 'wildcard']), literal).map(([path, op, lit]) => `${path} ${op} ${lit}`),
  fc.tuple(mappedBytes, each, one(['gt', 'le', 'eq'])).map(([path, e, op]) => `len(${path})${e} ${op} 3`),
  fc.tuple(one(['lower', 'url_decode']), mappedBytes, each, rawRegex).map(([fn, path, e, re]) => `${fn}(${path})${e} matches ${re}`),
);

const boolArray = fc.oneof(
  mappedComparison,
  fc.tuple(one(['starts_with', 'ends_with']), mappedBytes, literal).map(([fn, path, lit]) => `${fn}(${path}, ${lit})`),
  fc.tuple(mappedComparison, one(['and', 'or', 'xor']), mappedComparison).map(([a, op, b]) => `(${a} ${op} ${b})`),
  mappedComparison.map((c) => `not ${c}`),
);

const condition = fc.oneof(
  fc.tuple(one(['any', 'all']), boolArray).map(([q, arg]) => `${q}(${arg})`),
  rawRegex.map((re) => `http.user_agent matches ${re}`),
  fc.constant('ssl'),
);

const expression = fc
  .array(fc.tuple(condition, one(['and', 'or', 'xor'])), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map(([c], i) => (i === 0 ? c : `${parts[i - 1]?.[1]} ${c}`)).join(' '));

const word = fc.stringMatching(/^(x-a|X-A|b|é|%41|a-b|shell\.php|)$/);
const context: fc.Arbitrary<RequestContext> = fc.record({
  'http.request.headers': fc.dictionary(word, fc.array(word, { maxLength: 3 }), { maxKeys: 3 }),
  'http.request.headers.names': fc.array(word, { maxLength: 4 }),
  'http.request.headers.values': fc.array(word, { maxLength: 4 }),
  'http.request.body.form.values': fc.array(word, { maxLength: 3 }),
  'http.request.body.multipart.filenames': fc.array(fc.array(word, { maxLength: 2 }), { maxLength: 3 }),
  'http.user_agent': word,
  ssl: fc.boolean(),
});

describe('printing the new constructs keeps their meaning', () => {
  it('parse(format(ast)) is ast, apart from spans, and printing is stable', () => {
    fc.assert(
      fc.property(expression, (text) => {
        const result = validate(text);
        if (!result.ok) throw new Error(result.error.message);
        const printed = format(result.ast);
        expect(withoutSpans(parse(printed))).toEqual(withoutSpans(result.ast));
        expect(format(parse(printed))).toBe(printed);
      }),
      { numRuns: 800 },
    );
  });

  it('the printed expression gives the same verdict on any request', () => {
    fc.assert(
      fc.property(expression, fc.array(context, { minLength: 1, maxLength: 4 }), (text, requests) => {
        const original = compile(parse(text));
        const printed = compile(parse(format(parse(text))));
        for (const request of requests) expect(printed.evaluate(request)).toBe(original.evaluate(request));
      }),
      { numRuns: 400 },
    );
  });
});

const TOKENS = [
  'any(', 'all(', ')', '(', 'lower(', 'url_decode(', 'starts_with(', 'len(', 'http.request.headers', 'http.request.headers.names',
  'http.request.body.multipart.filenames', '[*]', '[ * ]', '[0]', '[ "k" ]', ')[*]', ',', '"a"', 'eq', 'contains', 'matches',
  'r"(?u)\\p{L}"', '"(?x) a"', '"[a&&b]"', '"\\<"', '"a{ 1 }"', '"(?z)"', 'and', 'or', 'not', 'in', '$', '$a.b', '$A', ' ', '\n',
];

describe('no input makes the validator throw', () => {
  it('answers a tree or a FilterError for soups of the new tokens', () => {
    fc.assert(
      fc.property(fc.array(one(TOKENS), { maxLength: 30 }), fc.constantFrom('', ' '), (tokens, sep) => {
        const result = validate(tokens.join(sep));
        if (result.ok) expect(result.ast.type).toBe('Bool');
        else expect(result.error).toBeInstanceOf(FilterError);
      }),
      { numRuns: 3000 },
    );
  });

  it('answers a tree or a FilterError for damaged expressions of the new constructs', () => {
    fc.assert(
      fc.property(expression, fc.nat(), fc.nat(6), fc.string({ maxLength: 3 }), (text, at, cut, insert) => {
        const start = at % (text.length + 1);
        const result = validate(text.slice(0, start) + insert + text.slice(start + cut));
        if (!result.ok) expect(result.error).toBeInstanceOf(FilterError);
      }),
      { numRuns: 2000 },
    );
  });
});

const REGEX_TOKENS = [
  ...REGEX_PIECES, '(', ')', '[', ']', '{', '}', '{2}', '{,3}', '*', '+', '?', '|', '\\', '\\p', '\\P{', '\\x{', '\\u', '&&', '--', '~~',
  '(?', '(?P<', '>', ':', '-', '#', ' ', '\n', 'é', '😀',
];

describe('regex translation', () => {
  it('never throws, and what the dialect accepts RE2 compiles', () => {
    fc.assert(
      fc.property(fc.array(one(REGEX_TOKENS), { maxLength: 12 }), (tokens) => {
        const translation = translateRegex(tokens.join(''));
        if (translation.ok) expect(() => RE2JS.compile(translation.re2)).not.toThrow();
        else expect(translation.error.span[0]).toBeLessThanOrEqual(translation.error.span[1]);
      }),
      { numRuns: 4000 },
    );
  });
});
