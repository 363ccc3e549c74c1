/**
 * Expressions in the style of the platform's Rules language reference (fields,
 * functions, operators, regexes, lists), with the verdict of the platform's
 * engine: accepted, or refused with its line, column and reason.
 */
import { describe, expect, it } from 'vitest';
import { format, parse, validate } from '../../src/filter/index';
import { withoutSpans } from './helpers';

/** The regex crate's message, with its line breaks escaped as the error's reason keeps them. */
const regexError = (pattern: string, carets: string, kind: string): string =>
  `regex parse error:\\n    ${pattern}\\n    ${carets}\\nerror: ${kind}`;

const ACCEPTED: readonly string[] = [
  'http.request.uri.path eq "/articles/2008/"',
  'http.host == "www.example.com"',
  'ip.src in { 203.0.113.0/24 203.0.113.10 }',
  'http.request.uri.path ~ "^/articles/200[7-8]/$"',
  'http.request.uri.path matches "(?i)^/login"',
  'any(http.request.headers["accept"][*] contains "json")',
  'any(lower(http.request.headers.names[*])[*] == "content-type")',
  'any(url_decode(http.request.body.form.values[*])[*] contains "an xss attack")',
  'lower(http.request.uri.path) contains "/wp-login.php"',
  'starts_with(http.request.uri.path, "/blog")',
  'ends_with(http.request.uri.path, ".html")',
  'len(http.cookie) gt 100',
  'http.cookie contains "id=1234"',
  'not ssl',
  'cf.bot_management.score lt 30 and not cf.bot_management.verified_bot',
  'ip.src.country in {"GB" "FR"}',
  'any(http.request.cookies["app"][*] == "test")',
  'http.request.uri.args["search"][0] == "red+apples"',
  'any(http.request.uri.args["search"][*] == "red+apples")',
  'http.request.accepted_languages[0] == "en-US"',
  'concat(http.request.uri.path, "-append") eq "/x-append"',
  'regex_replace(http.request.uri.path, "/foo$", "/bar") eq "/bar"',
  'wildcard_replace(http.request.full_uri, "https://example.com/*", "https://example.com/${1}") eq "x"',
  'remove_bytes(http.host, "\\x2e\\x77") == "examplecom"',
  'to_string(cf.bot_management.score) == "5"',
  'url_decode(http.request.uri.query) contains "union"',
  'url_decode(http.request.uri.query, "r") contains "<script"',
  'lookup_json_string(http.request.body.raw, "company", "name") == "Example Inc."',
  'lookup_json_integer(http.request.body.raw, "record", 0, "id") == 42',
  'any(starts_with(http.request.headers.names[*], "x-"))',
  'all(ends_with(http.request.headers.names[*], "-id"))',
  'split(http.request.headers["x-list"][0], ",", 3)[0] eq "a"',
  'any(split(http.request.uri.path, "/", 3)[*] eq "admin")',
  'join(http.request.headers.names, ",") contains "x-debug"',
  'substring(http.request.body.raw, 2, 5) eq "xyz"',
  'substring(http.request.uri.path, -4) eq ".php"',
  'cidr(ip.src, 24, 24) eq 113.10.0.0',
  'cidr6(ip.src, 64) eq 2001:db8::',
  'uuidv4(cf.random_seed) eq "49887398-2fc5-4a6f-8a3b-6a1f3e0a2a7c"',
  'decode_base64(http.request.headers["authorization"][0]) contains "admin"',
  'is_timed_hmac_valid_v0("mysecretmysecretmysecretmysecretmysecret", http.request.uri, 100000, http.request.timestamp.sec, 8)',
  'http.request.uri.path wildcard "/articles/*"',
  'http.request.full_uri strict wildcard "https://example.com/*"',
  'http.request.uri.path matches r"^/api/v\\d+/"',
  'http.request.uri.path matches r#"a"b"#',
  'ip.src in $office_network',
  'http.host in $blocked.hosts_2024',
  'http.request.method in {"GET" "HEAD"}',
  'cf.edge.server_port in {80 443 8000..8080}',
  'cf.threat_score & 1',
  '(http.host eq "a" or http.host eq "b") and ssl',
  'http.host eq "a" xor http.host eq "b"',
  'http.host eq "a" ^^ http.host eq "b" && !ssl || cf.threat_score > 10',
  'http.request.uri.path matches "(?u)\\p{Greek}+"',
  'http.request.uri.path matches "(?u)\\p{Script=Cyrillic}"',
  'http.request.uri.path matches "(?x) ^/api /v1 # versioned"',
  'http.request.uri.path matches "[a-z&&[^aeiou]]+"',
  'http.request.uri.path matches "[0-9--4]"',
  'http.user_agent matches "\\bcurl\\b"',
  'http.user_agent matches "\\<curl\\>"',
  'http.user_agent matches "\\b{start}curl\\b{end}"',
  'any(http.request.headers[*][*] contains "evil")',
  'any(http.request.body.multipart.filenames[*][*] contains ".php")',
  'any(lower(http.request.body.multipart.filenames[*][0])[*] matches "\\.exe$")',
  'any( http.request.headers.names[ * ] == "x" )',
  'http.request.headers.names[ 0 ] eq "host"',
  'http.request.headers[ "x-a" ][ 0 ] eq "1"',
  'any(len(http.request.headers.names[*])[*] gt 100)',
  'all(http.request.headers["accept"][*] ne "")',
  'any((http.request.headers.names[*] == "a" or http.request.headers.names[*] == "b"))',
  'any(not http.request.headers.names[*] == "a")',
  'http.request.uri.path matches "a**"',
  'http.request.uri.path matches "a{ 2 , 3 }"',
  'http.request.uri.path matches "(?i-u)admin"',
  'http.request.uri.path matches "\\u{1F600}"',
  'http.request.uri.path matches "\\x{e9}|\\u00e9"',
  'http.request.uri.path matches "(?<year>\\d{4})-(?P<month>\\d{2})"',
  'http.request.uri.path matches "[[:alpha:]][[:^digit:]]"',
  'http.request.uri.path matches "\\/path\\-with\\%escapes"',
];

/** [expression, line, column, reason] */
const REFUSED: ReadonlyArray<readonly [string, number, number, string]> = [
  ['lower(http.request.headers.names[*]) == "content-type"', 1, 38, 'cannot perform this operation on type Array(Bytes)'],
  ['any(lower(http.request.headers.names[*]) == "content-type")', 1, 42, 'cannot perform this operation on type Array(Bytes)'],
  ['http.request.headers.names[*] == "x"', 1, 37, 'expected value of type Bool, but got Array(Bool)'],
  ['any(http.request.headers.names[*])', 1, 5, 'expected value of type Array(Bool), but got Bytes'],
  ['any(ssl)', 1, 5, 'expected value of type Array(Bool), but got Bool'],
  ['any(starts_with(http.request.headers.names[*], "x-")[*])', 1, 5, 'expected value of type Array(Bool), but got Bool'],
  ['lower(http.host[*]) eq "a"', 1, 16, 'cannot access index MapEach for type Bytes'],
  ['http.request.headers["a"][*][*] eq "x"', 1, 29, 'cannot access index MapEach for type Bytes'],
  ['ip.src in $MyList', 1, 12, 'invalid list name "M"'],
  ['ip.src in $my-list', 1, 14, 'unrecognised input'],
  ['ip.src in $.a', 1, 12, 'invalid list name ".a"'],
  ['ip.src in $a.', 1, 12, 'invalid list name "a."'],
  ['http.request.uri.path matches "\\p{Greek}"', 1, 32, regexError('\\p{Greek}', '^^^^^^^^^', 'Unicode not allowed here')],
  ['http.request.uri.path matches "\\Qa\\E"', 1, 32, regexError('\\Qa\\E', '^^', 'unrecognized escape sequence')],
  ['http.request.uri.path matches "a{,3}"', 1, 32, regexError('a{,3}', '  ^', 'repetition quantifier expects a valid decimal')],
  ['http.request.uri.path matches "(?<n>a)(?P<n>b)"', 1, 32, regexError('(?<n>a)(?P<n>b)', '   ^       ^', 'duplicate capture group name')],
  ['http.request.uri.path matches "(?z)"', 1, 32, regexError('(?z)', '  ^', 'unrecognized flag')],
  ['http.request.uri.path matches r"(a"', 1, 36, regexError('(a', '^', 'unclosed group')],
  ['http.request.uri.path matches "(?u)\\p{Klingon}"', 1, 32, regexError('(?u)\\p{Klingon}', '    ^^^^^^^^^^^', 'Unicode property not found')],
  ['http.request.uri.path matches "[\\w-z]"', 1, 32, regexError('[\\w-z]', ' ^^', 'invalid range boundary, must be a literal')],
  ['http.request.uri.path matches "\\x{110000}"', 1, 32, regexError('\\x{110000}', '   ^^^^^^', 'hexadecimal literal is not a Unicode scalar value')],
  ['http.request.uri.path matches "(?i)*"', 1, 32, regexError('(?i)*', '    ^', 'repetition operator missing expression')],
  ['http.request.uri.path matches "a{3,2}"', 1, 32, regexError('a{3,2}', ' ^^^^^', 'invalid repetition range, the start must be <= the end')],
  ['any(http.request.headers.names[*] == "a" or http.request.headers.names[*] == "b")', 1, 42, 'expected literal ")"'],
  ['ssl and any(http.request.headers.names[*] == "a"', 1, 49, 'expected literal ")"'],
  ['concat(http.request.headers.names[*], "x") eq "a"', 1, 44, 'cannot perform this operation on type Array(Bytes)'],
  ['len(http.request.headers.names[*]) gt 3', 1, 36, 'cannot perform this operation on type Array(Int)'],
  ['http.request.headers.names [0] eq "a"', 1, 28, 'expected ComparisonOp'],
  ['ssl and http.request.headers.names[*] == "x" or ssl', 1, 49, 'expected value of type Bool, but got Array(Bool)'],
  ['(http.request.headers.names[*] == "x")', 1, 39, 'expected value of type Bool, but got Array(Bool)'],
  ['not http.request.headers.names[*] == "x"', 1, 41, 'expected value of type Bool, but got Array(Bool)'],
  ['any(1)', 1, 5, 'expected value of type Array(Bool), but got Int'],
  ['any("a")', 1, 5, 'expected value of type Array(Bool), but got Bytes'],
  ['lower(http.request.uri.path)[*] eq "a"', 1, 29, 'cannot access index MapEach for type Bytes'],
  ['split(http.request.uri.path, "/", 3) eq "a"', 1, 38, 'cannot perform this operation on type Array(Bytes)'],
  ['split(http.request.uri.path, "/", 3)[*] eq "a"', 1, 47, 'expected value of type Bool, but got Array(Bool)'],
  ['substring(http.host, -) eq "a"', 1, 22, 'unrecognised input'],
  ['has_value(http.request.headers.names[*], "a")', 1, 11, 'invalid type of argument #0: expected value of type Map or Array, but got Bytes'],
  ['any(starts_with(http.request.headers.names[*], "x-")[*] eq true)', 1, 57, 'expected literal ")"'],
  ['any(http.request.headers.names[*] == "a") and http.request.headers.names[*] == "b"', 1, 83, 'expected value of type Bool, but got Array(Bool)'],
  ['http.request.headers.names[ x ] eq "a"', 1, 29, 'expected literal "expected quoted utf8 string or positive integer"'],
  ['http.request.headers.names[*)', 1, 29, 'expected literal "]"'],
  ['cidr(1.2.3.4, 24, 24) eq 1.2.3.0', 1, 6, 'invalid kind of argument #0: expected argument of kind Field, but got Literal'],
  ['concat(http.host, 1.2.3.4) eq "a"', 1, 19, 'invalid type of argument #1: expected value of type Bytes, but got Ip'],
  ['concat(http.host, 61:62:63) eq "a"', 1, 19, 'invalid type of argument #1: expected value of type Bytes, but got Int'],
];

describe('documented expressions the engine accepts', () => {
  it.each(ACCEPTED)('%s', (expression) => {
    const result = validate(expression);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.ast.type).toBe('Bool');
    const printed = format(result.ast);
    expect(withoutSpans(parse(printed))).toEqual(withoutSpans(result.ast));
  });
});

describe('documented expressions the engine refuses', () => {
  it.each(REFUSED)('%s', (expression, line, column, reason) => {
    const result = validate(expression);
    if (result.ok) throw new Error(`accepted: ${expression}`);
    expect({ line: result.error.line, column: result.error.column, reason: result.error.reason }).toEqual({ line, column, reason });
  });
});

it('holds at least a hundred documented cases', () => {
  expect(ACCEPTED.length + REFUSED.length).toBeGreaterThanOrEqual(100);
});
