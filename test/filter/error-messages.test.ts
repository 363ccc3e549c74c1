import { describe, expect, it } from 'vitest';
import { FilterError, MAX_EXPRESSION_LENGTH, MAX_NESTING_DEPTH, validate } from '../../src/filter/index';

function errorOf(expression: string): FilterError {
  const result = validate(expression);
  if (result.ok) throw new Error(`accepted: ${expression}`);
  return result.error;
}

/** [expression, the whole message] */
const MESSAGES: ReadonlyArray<readonly [string, string]> = [
  [
    'http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24 2001:db8::/2000}',
    [
      'Filter parsing error (1:84):',
      'http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24 2001:db8::/2000}',
      '                                                                                   ^^^^ number too large to fit in target type while parsing with radix 10',
    ].join('\n'),
  ],
  [
    'ip.src in {1.2.3.0/33}',
    [
      'Filter parsing error (1:12):',
      'ip.src in {1.2.3.0/33}',
      '           ^^^^^^^^^^ invalid length for network: Network length 33 is too long for Ipv4 (maximum: 32)',
    ].join('\n'),
  ],
  [
    'ip.src in {1.2.3.0.1/24}',
    [
      'Filter parsing error (1:12):',
      'ip.src in {1.2.3.0.1/24}',
      "           ^^^^^^^^^ couldn't parse address in network: invalid IP address syntax",
    ].join('\n'),
  ],
  [
    'http.hots eq "x"',
    ['Filter parsing error (1:1):', 'http.hots eq "x"', '^^^^^^^^^ unknown identifier'].join('\n'),
  ],
  [
    'ip.src contains "x"',
    ['Filter parsing error (1:8):', 'ip.src contains "x"', '       ^^^^^^^^ cannot perform this operation on type Ip'].join('\n'),
  ],
  [
    'cf.threat_score eq "a"',
    ['Filter parsing error (1:20):', 'cf.threat_score eq "a"', '                   ^^^ expected digit'].join('\n'),
  ],
  [
    'http.host eq "a\\qb"',
    ['Filter parsing error (1:17):', 'http.host eq "a\\qb"', '                ^ expected ", xHH or OOO after \\'].join('\n'),
  ],
  [
    'http.host eq "abc',
    ['Filter parsing error (1:15):', 'http.host eq "abc', '              ^^^ could not find an ending quote'].join('\n'),
  ],
  [
    'http.host eq',
    ['Filter parsing error (1:13):', 'http.host eq', '            ^ unrecognised input'].join('\n'),
  ],
  ['', ['Filter parsing error (1:1):', '', '^ expected identifier character'].join('\n')],
  [
    'lower(http.host, "x") eq "a"',
    ['Filter parsing error (1:18):', 'lower(http.host, "x") eq "a"', '                 ^^^^^^^^^^^ invalid number of arguments'].join('\n'),
  ],
  [
    'http.request.uri.path matches "(a)\\1"',
    [
      'Filter parsing error (1:32):',
      'http.request.uri.path matches "(a)\\1"',
      '                               ^^^^^ regex parse error:\\n    (a)\\1\\n       ^^\\nerror: backreferences are not supported',
    ].join('\n'),
  ],
  [
    'ssl and\nhttp.host eq "abc\nand ssl',
    ['Filter parsing error (2:15):', 'http.host eq "abc', '              ^^^ could not find an ending quote'].join('\n'),
  ],
  [
    'ssl and\n   http.request.headers.names[*] eq "a"',
    [
      'Filter parsing error (2:40):',
      '   http.request.headers.names[*] eq "a"',
      `${' '.repeat(39)}^ expected value of type Bool, but got Array(Bool)`,
    ].join('\n'),
  ],
  [
    'http.host eq "é" and http.hots eq "a"',
    ['Filter parsing error (1:22):', 'http.host eq "é" and http.hots eq "a"', '                     ^^^^^^^^^ unknown identifier'].join('\n'),
  ],
];

describe('formatted messages', () => {
  it.each(MESSAGES)('%s', (expression, message) => {
    expect(errorOf(expression).message).toBe(message);
  });
});

describe('error fields', () => {
  it('carry the span as offsets into the expression and the bare reason', () => {
    const error = errorOf('ssl and http.hots eq "a"');
    expect(error).toBeInstanceOf(FilterError);
    expect(error.name).toBe('FilterError');
    expect(error.span).toEqual({ start: 8, end: 17 });
    expect(error.reason).toBe('unknown identifier');
    expect(error.expression).toBe('ssl and http.hots eq "a"');
    expect([error.line, error.column]).toEqual([1, 9]);
  });

  it('keep offsets into the original text when it has leading space', () => {
    const error = errorOf('\n\n  nope');
    expect(error.span).toEqual({ start: 4, end: 8 });
    expect([error.line, error.column]).toEqual([3, 3]);
  });

  it('show the line without its CR LF terminator and keep the reason on one line', () => {
    const error = errorOf('http.host matches "a)\r\nb"');
    const frame = '~'.repeat(79);
    const reason = `regex parse error:\\n${frame}\\n1: a)\\n    ^\\n2: b\\n${frame}\\nerror: unopened group`;
    expect(error.message).toBe(['Filter parsing error (1:20):', 'http.host matches "a)', `                   ^^ ${reason}`].join('\n'));
    expect(error.reason).toBe(reason);
  });

  it('count columns in characters, so carets line up under wide characters', () => {
    const error = errorOf('http.host eq "😀" or bad');
    expect(error.column).toBe(21);
    expect(error.message.split('\n')[2]).toBe(`${' '.repeat(20)}^^^ unknown identifier`);
  });
});

describe('limits', () => {
  it(`accepts ${MAX_NESTING_DEPTH} nested parentheses and refuses one more`, () => {
    const nested = (n: number) => `${'('.repeat(n)}ssl${')'.repeat(n)}`;
    expect(validate(nested(MAX_NESTING_DEPTH)).ok).toBe(true);
    const error = errorOf(nested(MAX_NESTING_DEPTH + 1));
    expect([error.column, error.reason]).toEqual([MAX_NESTING_DEPTH + 1, 'maximum nesting depth exceeded (limit: 128)']);
    expect(error.span).toEqual({ start: MAX_NESTING_DEPTH, end: MAX_NESTING_DEPTH + 1 });
  });

  it('counts not and function calls as nesting', () => {
    expect(validate(`${'not '.repeat(128)}ssl`).ok).toBe(true);
    expect(errorOf(`${'not '.repeat(129)}ssl`)).toMatchObject({ column: 513, span: { start: 512, end: 515 } });
    const calls = (n: number) => `${'lower('.repeat(n)}http.host${')'.repeat(n)} eq "a"`;
    expect(validate(calls(128)).ok).toBe(true);
    expect(errorOf(calls(129))).toMatchObject({ column: 774, reason: 'maximum nesting depth exceeded (limit: 128)' });
  });

  it('refuses very deep input with the nesting error, without overflowing the stack', () => {
    for (const deep of ['('.repeat(4000), '!'.repeat(4000), `${'any('.repeat(1000)}`, `${'lower('.repeat(600)}`]) {
      expect(errorOf(deep).reason).toBe('maximum nesting depth exceeded (limit: 128)');
    }
  });

  it('accepts a long flat chain of conditions up to the length limit', () => {
    const chain = `${'ssl or '.repeat(584)}ssl`;
    expect(chain.length).toBeLessThanOrEqual(MAX_EXPRESSION_LENGTH);
    const result = validate(chain);
    expect(result.ok && result.ast.kind === 'logical' && result.ast.operands.length).toBe(585);
  });

  it(`refuses more than ${MAX_EXPRESSION_LENGTH} characters with its own error`, () => {
    const exact = `http.host eq "${'a'.repeat(MAX_EXPRESSION_LENGTH - 15)}"`;
    expect(exact.length).toBe(MAX_EXPRESSION_LENGTH);
    expect(validate(exact).ok).toBe(true);
    const error = errorOf(`http.host eq "${'a'.repeat(MAX_EXPRESSION_LENGTH - 14)}"`);
    expect(error).toMatchObject({
      line: 1,
      column: 4097,
      reason: 'expression is longer than the limit of 4096 characters',
      span: { start: 4096, end: 4097 },
    });
  });

  it('counts the limit in characters, not UTF-16 units', () => {
    const emoji = (n: number) => `http.host eq "${'😀'.repeat(n)}"`;
    expect(validate(emoji(MAX_EXPRESSION_LENGTH - 15)).ok).toBe(true);
    expect(errorOf(emoji(MAX_EXPRESSION_LENGTH - 14)).column).toBe(4097);
  });
});
