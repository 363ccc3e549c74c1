/**
 * The engine's regex dialect (Rust's regex syntax, Unicode mode off): what it
 * accepts matches as the crate would, and what it refuses gets the crate's
 * message with the pattern and carets.
 */
import { describe, expect, it } from 'vitest';
import { compileDialectRegex, regexProblem } from '../../src/filter/literals/regex';

/** [pattern, texts it finds a match in, texts it does not] */
const ACCEPTED: ReadonlyArray<readonly [string, readonly string[], readonly string[]]> = [
  ['(?u)\\p{Greek}+', ['Αθήνα'], ['Athens']],
  ['(?u)\\p{sc=Cyrillic}', ['Москва'], ['Moscow']],
  ['(?u)\\p{Uppercase_Letter}', ['aBc'], ['abc']],
  ['(?x) ^ a b c $ # the letters', ['abc'], ['a b c']],
  ['(?x)^[ a b ]+$', ['abba'], ['a b']],
  ['(?x)a\\ b', ['a b'], ['ab']],
  ['\\<cat\\>', ['a cat sat'], ['concatenate']],
  ['\\b{start}cat\\b{end}', ['cat'], ['cats']],
  ['[a-z&&[^aeiou]]{3}', ['xyz'], ['aei', 'xa1']],
  ['^[0-9--4]+$', ['1235'], ['1245']],
  ['^[a-c~~b-d]+$', ['ad'], ['b', 'c']],
  ['^[[:alpha:]][[:^alpha:]]$', ['a1'], ['ab']],
  ['^a{ 2 , 3 }$', ['aa', 'aaa'], ['a', 'aaaa']],
  ['^a{2}?b', ['aab'], ['ab']],
  ['a**', ['', 'b'], []],
  ['^(?:ab)+?$', ['abab'], ['aba']],
  ['\\u{e9}|\\u00E8|\\U000000EA|\\x{eb}', ['é', 'è', 'ê', 'ë'], ['e']],
  ['(?i-u:ADMIN)', ['admin'], ['adm1n']],
  ['(?<year>\\d{4})-(?P<month>\\d{2})', ['2024-05'], ['24-5']],
  ['\\/path\\-x\\%\\@', ['/path-x%@'], ['/path-x%']],
  ['[\\d\\s]', ['a 1'], ['ab']],
  ['\\A/api\\z', ['/api'], ['/api/']],
  ['(?s)a.b', ['a\nb'], ['ab']],
  ['a.b', ['axb'], ['a\nb']],
  ['(?m)^b$', ['a\nb\nc'], ['abc']],
  ['[]a]+', [']a]'], ['b']],
  ['[^]a]', ['b'], [']a']],
  ['x{1000}', ['x'.repeat(1000)], ['x'.repeat(999)]],
  ['x[a&&b]', [], ['xa', 'xb']],
  ['(?u)^[é-ë]+$', ['éêë'], ['e', 'è']],
  ['^café$', ['café'], ['cafe']],
  ['(?u)x[^\\x00-\\x{10FFFF}]?y', ['xy'], ['x']],
];

/** The crate's message for a one-line pattern. */
const crate = (pattern: string, carets: string, kind: string) => `regex parse error:\n    ${pattern}\n    ${carets}\nerror: ${kind}`;

const REFUSED: ReadonlyArray<readonly [string, string]> = [
  ['\\p{Greek}', crate('\\p{Greek}', '^^^^^^^^^', 'Unicode not allowed here')],
  ['(?u)\\p{Klingon}', crate('(?u)\\p{Klingon}', '    ^^^^^^^^^^^', 'Unicode property not found')],
  ['[é]', crate('[é]', ' ^', 'Unicode not allowed here')],
  ['[a-é]', crate('[a-é]', '   ^', 'Unicode not allowed here')],
  ['[\\x{e9}]', crate('[\\x{e9}]', ' ^^^^^^', 'Unicode not allowed here')],
  ['\\Qa\\E', crate('\\Qa\\E', '^^', 'unrecognized escape sequence')],
  ['\\e', crate('\\e', '^^', 'unrecognized escape sequence')],
  ['\\Z', crate('\\Z', '^^', 'unrecognized escape sequence')],
  ['\\C', crate('\\C', '^^', 'unrecognized escape sequence')],
  ['(a)\\1', crate('(a)\\1', '   ^^', 'backreferences are not supported')],
  ['\\0', crate('\\0', '^^', 'backreferences are not supported')],
  ['(?=a)', crate('(?=a)', '^^^', 'look-around, including look-ahead and look-behind, is not supported')],
  ['(?<!a)b', crate('(?<!a)b', '^^^^', 'look-around, including look-ahead and look-behind, is not supported')],
  ['a{,3}', crate('a{,3}', '  ^', 'repetition quantifier expects a valid decimal')],
  ['x{y}', crate('x{y}', '  ^', 'repetition quantifier expects a valid decimal')],
  ['a{3', crate('a{3', ' ^^', 'unclosed counted repetition')],
  ['a{3,2}', crate('a{3,2}', ' ^^^^^', 'invalid repetition range, the start must be <= the end')],
  ['*a', crate('*a', '^', 'repetition operator missing expression')],
  ['(?i)*', crate('(?i)*', '    ^', 'repetition operator missing expression')],
  ['(?)', crate('(?)', ' ^', 'repetition operator missing expression')],
  ['(a', crate('(a', '^', 'unclosed group')],
  ['a)', crate('a)', ' ^', 'unopened group')],
  ['[a', crate('[a', '^', 'unclosed character class')],
  ['[z-a]', crate('[z-a]', ' ^^^', 'invalid character class range, the start must be <= the end')],
  ['[\\w-z]', crate('[\\w-z]', ' ^^', 'invalid range boundary, must be a literal')],
  ['[\\b]', crate('[\\b]', ' ^^', 'invalid escape sequence found in character class')],
  ['(?z)', crate('(?z)', '  ^', 'unrecognized flag')],
  ['(?ii)', crate('(?ii)', '  ^^', 'duplicate flag')],
  ['(?i-)', crate('(?i-)', '   ^', 'dangling flag negation operator')],
  ['(?-i-m)', crate('(?-i-m)', '  ^ ^', 'flag negation operator repeated')],
  ['(?<n>a)(?P<n>b)', crate('(?<n>a)(?P<n>b)', '   ^       ^', 'duplicate capture group name')],
  ['(?P<>a)', crate('(?P<>a)', '    ^', 'empty capture group name')],
  ['(?P<1a>x)', crate('(?P<1a>x)', '    ^', 'invalid capture group character')],
  ['\\xZZ', crate('\\xZZ', '  ^', 'invalid hexadecimal digit')],
  ['\\x{}', crate('\\x{}', '  ^^', 'hexadecimal literal empty')],
  ['\\x{110000}', crate('\\x{110000}', '   ^^^^^^', 'hexadecimal literal is not a Unicode scalar value')],
  ['\\b{middle}', crate('\\b{middle}', '   ^^^^^^', 'unrecognized special word boundary assertion, valid choices are: start, end, start-half or end-half')],
  ['a\\', crate('a\\', ' ^', 'incomplete escape sequence, reached end of pattern prematurely')],
  ['(?P<ab', crate('(?P<ab', '      ^', 'unclosed capture group name')],
  ['('.repeat(251) + ')'.repeat(251), crate('('.repeat(251) + ')'.repeat(251), `${' '.repeat(250)}^^`, 'exceed the maximum number of nested parentheses/brackets (250)')],
  ['('.repeat(300), crate('('.repeat(300), `${' '.repeat(299)}^`, 'unclosed group')],
];

describe('patterns the dialect accepts', () => {
  it.each(ACCEPTED)('%s', (pattern, matching, other) => {
    expect(regexProblem(pattern)).toBeUndefined();
    const regex = compileDialectRegex(pattern);
    for (const text of matching) expect(regex.matcher(text).find(), `${pattern} on ${JSON.stringify(text)}`).toBe(true);
    for (const text of other) expect(regex.matcher(text).find(), `${pattern} on ${JSON.stringify(text)}`).toBe(false);
  });
});

describe('patterns the dialect refuses', () => {
  it.each(REFUSED)('%s', (pattern, message) => {
    expect(regexProblem(pattern)).toBe(message);
  });

  it('numbers and frames a pattern of several lines', () => {
    const frame = '~'.repeat(79);
    expect(regexProblem('a\n(b')).toBe(`regex parse error:\n${frame}\n1: a\n2: (b\n   ^\n${frame}\nerror: unclosed group`);
  });
});
