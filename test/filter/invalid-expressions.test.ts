import { describe, expect, it } from 'vitest';
import { FilterError, parse, validate } from '../../src/filter/index';

/** [expression, line, column, reason] */
type Case = readonly [string, number, number, string];

const ADDRESS = "couldn't parse address in network: invalid IP address syntax";
const BAD_ESCAPE = 'expected ", xHH or OOO after \\';

const SYNTAX: readonly Case[] = [
  ['', 1, 1, 'expected identifier character'],
  ['   ', 1, 4, 'expected identifier character'],
  ['http.host eq', 1, 13, 'unrecognised input'],
  ['http.host', 1, 10, 'expected ComparisonOp'],
  ['http.host "a"', 1, 11, 'expected ComparisonOp'],
  ['http.host = "a"', 1, 11, 'expected ComparisonOp'],
  ['http.host =~ "a"', 1, 11, 'expected ComparisonOp'],
  ['http.host not in {"a"}', 1, 11, 'expected ComparisonOp'],
  ['http.host EQ "a"', 1, 11, 'expected ComparisonOp'],
  ['ssl and', 1, 8, 'expected identifier character'],
  ['ssl or or ssl', 1, 8, 'unknown identifier'],
  ['and ssl', 1, 1, 'unknown identifier'],
  ['(ssl', 1, 5, 'expected literal ")"'],
  ['(ssl and (true)', 1, 16, 'expected literal ")"'],
  ['ssl)', 1, 4, 'unrecognised input'],
  ['()', 1, 2, 'expected identifier character'],
  ['not', 1, 4, 'expected identifier character'],
  ['!', 1, 2, 'expected identifier character'],
  ['ssl ^^', 1, 7, 'expected identifier character'],
  ['ssl &&& ssl', 1, 7, 'expected identifier character'],
  ['ssl eq true', 1, 4, 'unrecognised input'],
  ['http.host eq "a" "b"', 1, 17, 'unrecognised input'],
  ['http.host eq "a" garbage', 1, 17, 'unrecognised input'],
  ['ssl\tand ssl', 1, 4, 'unrecognised input'],
  ['http.', 1, 6, 'expected identifier character'],
  ['http..host eq "a"', 1, 6, 'expected identifier character'],
  ['.host eq "a"', 1, 1, 'expected identifier character'],
  ['"a" eq http.host', 1, 1, 'expected identifier character'],
  ['http.host eq http.host', 1, 14, 'invalid digit found in string while parsing with radix 16'],
  ['cf.threat_score eq cf.threat_score', 1, 20, 'invalid digit found in string while parsing with radix 10'],
  ['lower(http.host)', 1, 17, 'expected ComparisonOp'],
  ['lower http.host', 1, 7, 'expected literal "("'],
  ['lower(http.host', 1, 16, 'expected literal ")"'],
  ['lower(http.host x) eq "a"', 1, 17, 'expected literal ","'],
];

const IDENTIFIERS_AND_TYPES: readonly Case[] = [
  ['http.hots eq "x"', 1, 1, 'unknown identifier'],
  ['HTTP.HOST eq "a"', 1, 1, 'unknown identifier'],
  ['ssl and http.request.uri.pth eq "/"', 1, 9, 'unknown identifier'],
  ['foo(http.host) eq "a"', 1, 1, 'unknown identifier'],
  ['ip.src contains "x"', 1, 8, 'cannot perform this operation on type Ip'],
  ['ip.src matches "x"', 1, 8, 'cannot perform this operation on type Ip'],
  ['ip.src lt 1.2.3.4', 1, 8, 'cannot perform this operation on type Ip'],
  ['ip.src & 1', 1, 8, 'cannot perform this operation on type Ip'],
  ['cf.threat_score eq "a"', 1, 20, 'expected digit'],
  ['cf.threat_score contains 1', 1, 17, 'cannot perform this operation on type Int'],
  ['cf.threat_score wildcard "1*"', 1, 17, 'cannot perform this operation on type Int'],
  ['cf.threat_score strict wildcard "1*"', 1, 17, 'cannot perform this operation on type Int'],
  ['cf.threat_score & "a"', 1, 19, 'expected digit'],
  ['http.host & 1', 1, 11, 'cannot perform this operation on type Bytes'],
  ['ip.src eq "1.2.3.4"', 1, 11, 'expected IP address character'],
  ['http.request.headers eq "a"', 1, 22, 'cannot perform this operation on type Map(Array(Bytes))'],
  ['http.request.headers["a"] eq "b"', 1, 27, 'cannot perform this operation on type Array(Bytes)'],
  ['http.request.headers.names contains "a"', 1, 28, 'cannot perform this operation on type Array(Bytes)'],
  ['http.request.headers.names[*] == "x"', 1, 37, 'expected value of type Bool, but got Array(Bool)'],
  ['ssl and http.request.headers.names[*] == "x"', 1, 45, 'expected value of type Bool, but got Array(Bool)'],
  ['any(http.request.headers.names[*] eq "a" or ssl)', 1, 42, 'expected literal ")"'],
];

const STRINGS: readonly Case[] = [
  ['http.host eq "abc', 1, 15, 'could not find an ending quote'],
  ['http.host eq "abc\\', 1, 15, 'could not find an ending quote'],
  ['http.host eq "abc\\"', 1, 15, 'could not find an ending quote'],
  ['http.host eq "a\\qb"', 1, 17, BAD_ESCAPE],
  ['http.host eq "\\n"', 1, 16, BAD_ESCAPE],
  ['http.host eq "\\t"', 1, 16, BAD_ESCAPE],
  ['http.host eq "\\u0041"', 1, 16, BAD_ESCAPE],
  ['http.host eq "\\x4"', 1, 17, 'invalid digit found in string while parsing with radix 16'],
  ['http.host eq "\\xZZ"', 1, 17, 'invalid digit found in string while parsing with radix 16'],
  ['http.host eq "\\x', 1, 17, 'expected 2 characters, but found 0'],
  ['http.host eq "\\400"', 1, 16, 'number too large to fit in target type while parsing with radix 8'],
  ['http.host eq "\\08"', 1, 16, 'invalid digit found in string while parsing with radix 8'],
  ['http.host eq r"abc', 1, 15, 'could not find an ending quote'],
  ['http.host eq r#"abc"', 1, 15, 'could not find an ending quote'],
  ['http.host eq r##"abc"#', 1, 15, 'could not find an ending quote'],
  ['http.host eq rx', 1, 15, 'expected " or #'],
  [`http.host eq r${'#'.repeat(256)}"a"${'#'.repeat(256)}`, 1, 15, "invalid raw string hash count, there can't be more than 255 #s"],
  ['http.host eq 4', 1, 14, 'expected 2 characters, but found 1'],
  ['http.host eq 41', 1, 16, 'expected 1 characters, but found 0'],
  ['http.host eq 41:4', 1, 17, 'expected 2 characters, but found 1'],
  ['http.host eq 41;42', 1, 16, 'expected byte separator'],
  ['http.host eq zz', 1, 14, 'invalid digit found in string while parsing with radix 16'],
  ['http.host in {"a" "b"', 1, 22, 'unrecognised input'],
  ['http.host in {"a", "b"}', 1, 18, 'invalid digit found in string while parsing with radix 16'],
  ['http.host in "a"', 1, 14, 'expected literal "{"'],
  ['http.host wildcard 41:42', 1, 20, 'expected " or r'],
  ['http.host wildcard "a**b"', 1, 20, 'wildcard contains a double star'],
  ['http.host wildcard "a\\\\qb"', 1, 20, 'invalid wildcard: wildcard syntax error at position 1: invalid escape sequence'],
  ['http.host strict wildcard r"a\\"', 1, 27, 'invalid wildcard: wildcard syntax error at position 1: incomplete escape sequence at the end of the wildcard'],
  ['http.host ~ x', 1, 13, 'expected " or r'],
  ['http.host matches', 1, 18, 'unrecognised input'],
];

/** The regex crate's message, with its line breaks escaped as the error's reason keeps them. */
const regexError = (pattern: string, carets: string, kind: string): string =>
  `regex parse error:\\n    ${pattern}\\n    ${carets}\\nerror: ${kind}`;
const LOOK_AROUND = 'look-around, including look-ahead and look-behind, is not supported';

const REGEXES: readonly Case[] = [
  ['http.host matches "(a)\\1"', 1, 20, regexError('(a)\\1', '   ^^', 'backreferences are not supported')],
  ['http.host matches r"(?P<x>a)\\2"', 1, 32, regexError('(?P<x>a)\\2', '        ^^', 'backreferences are not supported')],
  ['http.host matches "(?=admin)"', 1, 20, regexError('(?=admin)', '^^^', LOOK_AROUND)],
  ['http.host matches "(?!admin)"', 1, 20, regexError('(?!admin)', '^^^', LOOK_AROUND)],
  ['http.host matches r"(?<=a)b"', 1, 29, regexError('(?<=a)b', '^^^^', LOOK_AROUND)],
  ['http.host matches r"(?<!a)b"', 1, 29, regexError('(?<!a)b', '^^^^', LOOK_AROUND)],
  ['http.host matches "[a-"', 1, 20, 'could not find an ending quote'],
  ['http.host matches r"[a"', 1, 24, regexError('[a', '^', 'unclosed character class')],
  ['http.host matches "a)"', 1, 20, regexError('a)', ' ^', 'unopened group')],
  ['http.host matches "\\Z"', 1, 20, regexError('\\Z', '^^', 'unrecognized escape sequence')],
];

const NUMBERS: readonly Case[] = [
  ['cf.threat_score eq 1e', 1, 20, 'invalid digit found in string while parsing with radix 10'],
  ['cf.threat_score eq 9223372036854775808', 1, 20, 'number too large to fit in target type while parsing with radix 10'],
  ['cf.threat_score eq -9223372036854775809', 1, 20, 'number too small to fit in target type while parsing with radix 10'],
  ['cf.threat_score eq 08', 1, 20, 'invalid digit found in string while parsing with radix 8'],
  ['cf.threat_score eq 0x', 1, 22, 'expected digit'],
  ['cf.threat_score eq 0xfffffffffffffffff', 1, 22, 'number too large to fit in target type while parsing with radix 16'],
  ['cf.threat_score eq -', 1, 21, 'expected digit'],
  ['cf.threat_score eq', 1, 19, 'expected digit'],
  ['cf.threat_score in {10..1}', 1, 21, 'incompatible range bounds'],
  ['cf.threat_score in {1,2}', 1, 22, 'expected digit'],
  ['cf.threat_score in {1 2', 1, 24, 'expected digit'],
  ['cf.threat_score in {1..}', 1, 24, 'expected digit'],
  ['cf.threat_score in 1', 1, 20, 'expected literal "{"'],
  ['cf.threat_score lt 1..2', 1, 21, 'unrecognised input'],
];

const ADDRESSES: readonly Case[] = [
  ['ip.src eq 1.2.3.4/24', 1, 11, ADDRESS],
  ['ip.src eq 1.2.3', 1, 11, ADDRESS],
  ['ip.src eq 256.0.0.1', 1, 11, ADDRESS],
  ['ip.src eq 01.2.3.4', 1, 11, ADDRESS],
  ['ip.src eq 1.2.3.4.5', 1, 11, ADDRESS],
  ['ip.src eq 1::2::3', 1, 11, ADDRESS],
  ['ip.src eq 1:2:3:4:5:6:7:8:9', 1, 11, ADDRESS],
  ['ip.src eq 12345::1', 1, 11, ADDRESS],
  ['ip.src eq ::ffff:1.2.3.256', 1, 11, ADDRESS],
  ['ip.src eq', 1, 10, 'expected IP address character'],
  ['ip.src in {1.2.3.4 foo}', 1, 20, ADDRESS],
  ['ip.src in {1.2.3.0/33}', 1, 12, 'invalid length for network: Network length 33 is too long for Ipv4 (maximum: 32)'],
  ['ip.src in {10.0.0.0/255}', 1, 12, 'invalid length for network: Network length 255 is too long for Ipv4 (maximum: 32)'],
  ['ip.src in {10.0.0.0/2000}', 1, 21, 'number too large to fit in target type while parsing with radix 10'],
  ['ip.src in {2001:db8::/129}', 1, 12, 'invalid length for network: Network length 129 is too long for Ipv6 (maximum: 128)'],
  ['ip.src in {2001:db8::/2000}', 1, 23, 'number too large to fit in target type while parsing with radix 10'],
  ['ip.src in {1.2.3.0/}', 1, 20, 'cannot parse integer from empty string while parsing with radix 10'],
  ['ip.src in {1.2.3.0/2.4}', 1, 20, 'invalid digit found in string while parsing with radix 10'],
  ['ip.src in {1.2.3.4/24}', 1, 12, 'host part of address was not zero'],
  ['ip.src in {2001:db8::1/32}', 1, 12, 'host part of address was not zero'],
  ['ip.src in {1.2.3.999/24}', 1, 12, ADDRESS],
  ['ip.src in {10.0.0.0..::1}', 1, 12, 'incompatible range bounds'],
  ['ip.src in {10.0.0.9..10.0.0.1}', 1, 12, 'incompatible range bounds'],
  ['ip.src in {10.0.0.1..10.0.0}', 1, 22, ADDRESS],
  ['ip.src in {192.0.2.0/24, 10.0.0.0/8}', 1, 24, 'expected IP address character'],
];

const INDEXES: readonly Case[] = [
  ['http.request.headers[0][0] eq "a"', 1, 21, 'cannot access index ArrayIndex(0) for type Map(Array(Bytes))'],
  ['http.request.headers.names["a"] eq "b"', 1, 27, 'cannot access index MapKey("a") for type Array(Bytes)'],
  ['http.host[0] eq "a"', 1, 10, 'cannot access index ArrayIndex(0) for type Bytes'],
  ['http.host[*] eq "a"', 1, 10, 'cannot access index MapEach for type Bytes'],
  ['http.request.headers.names[-1] eq "a"', 1, 28, 'expected literal "expected positive integer as index"'],
  ['http.request.headers.names[4294967296] eq "a"', 1, 28, 'expected literal "expected positive integer as index"'],
  ['http.request.headers.names[x] eq "a"', 1, 28, 'expected literal "expected quoted utf8 string or positive integer"'],
  ['http.request.headers[r"a"][0] eq "b"', 1, 22, 'expected literal "expected quoted utf8 string or positive integer"'],
  ['http.request.headers["\\xff"][0] eq "b"', 1, 22, 'expected literal "expected utf8 string"'],
  ['http.request.headers.names[0 eq "a"', 1, 30, 'expected literal "]"'],
  ['http.request.headers.names [0] eq "a"', 1, 28, 'expected ComparisonOp'],
  ['http.request.headers.names[*][*] eq "a"', 1, 30, 'cannot access index MapEach for type Bytes'],
];

const FUNCTIONS: readonly Case[] = [
  ['any(ssl)', 1, 5, 'expected value of type Array(Bool), but got Bool'],
  ['any()', 1, 5, 'unrecognised input'],
  ['all(http.request.headers.names[*] eq "a", ssl)', 1, 41, 'expected literal ")"'],
  ['any http.host', 1, 1, 'unknown identifier'],
  ['any(http.request.headers.names[*])', 1, 5, 'expected value of type Array(Bool), but got Bytes'],
  ['all(http.request.headers.names[*] eq "a") eq true', 1, 42, 'unrecognised input'],
  ['lower()', 1, 7, 'invalid number of arguments'],
  ['lower(http.host, "x") eq "a"', 1, 18, 'invalid number of arguments'],
  ['len(http.host, http.host) eq 1', 1, 16, 'invalid number of arguments'],
  ['concat(http.host) eq "a"', 1, 17, 'invalid number of arguments'],
  ['lookup_json_string(http.host) eq "a"', 1, 29, 'invalid number of arguments'],
  ['cidr(ip.src, 24) eq 1.2.3.0', 1, 16, 'invalid number of arguments'],
  ['substring(http.host, 1, 2, 3) eq "a"', 1, 28, 'invalid number of arguments'],
  ['lower("a") eq "a"', 1, 7, 'invalid kind of argument #0: expected argument of kind Field, but got Literal'],
  ['url_decode("a%20b") eq "a b"', 1, 12, 'invalid kind of argument #0: expected argument of kind Field, but got Literal'],
  ['starts_with(http.host, http.host)', 1, 24, 'invalid kind of argument #1: expected argument of kind Literal, but got Field'],
  ['lookup_json_string(http.host, ssl) eq "a"', 1, 31, 'invalid kind of argument #1: expected argument of kind Literal, but got Field'],
  ['lower(cf.threat_score) eq "a"', 1, 7, 'invalid type of argument #0: expected value of type Bytes, but got Int'],
  ['lower(http.host eq "a")', 1, 7, 'invalid type of argument #0: expected value of type Bytes, but got Bool'],
  ['ends_with(http.host, 12)', 1, 22, 'invalid type of argument #1: expected value of type Bytes, but got Int'],
  ['concat(http.host, 1) eq "a"', 1, 19, 'invalid type of argument #1: expected value of type Bytes, but got Int'],
  ['concat(http.host, http.request.headers.names) eq "a"', 1, 19, 'invalid type of argument #1: expected value of type Bytes, but got Array(Bytes)'],
  ['has_value(http.request.headers.names, 1)', 1, 39, 'invalid type of argument #1: expected value of type Bytes, but got Int'],
  ['to_string(http.host) eq "a"', 1, 11, 'invalid type of argument #0: expected value of type Int or Bool or Ip, but got Bytes'],
  ['len(cf.threat_score) eq 1', 1, 5, 'invalid type of argument #0: expected value of type Bytes or Bytes or Array, but got Int'],
  ['has_key(http.host, "a")', 1, 9, 'invalid type of argument #0: expected value of type Map, but got Bytes'],
  ['cidr(ip.src, 33, 64) eq 1.2.3.0', 1, 14, 'invalid value of argument #1: expected an integer from 1 to 32'],
  ['cidr(ip.src, 24, 0) eq 1.2.3.0', 1, 18, 'invalid value of argument #2: expected an integer from 1 to 128'],
  ['split(http.host, ",", 0)[0] eq "a"', 1, 23, 'invalid value of argument #2: expected an integer from 1 to 128'],
  ['url_decode(http.host, "x") eq "a"', 1, 23, 'invalid value of argument #1: only the letters "ru" are allowed'],
  ['regex_replace(http.host, "[", "x") eq "a"', 1, 26, `invalid value of argument #1: ${regexError('[', '^', 'unclosed character class')}`],
  ['regex_replace(http.host, "(a)", "${2}") eq "a"', 1, 33, 'invalid value of argument #2: reference ${2} names a capture that does not exist'],
  ['wildcard_replace(http.host, "a\\\\", "x") eq "a"', 1, 29, 'invalid value of argument #1: invalid wildcard: wildcard syntax error at position 1: incomplete escape sequence at the end of the wildcard'],
  ['wildcard_replace(http.host, "*.a", "${2}") eq "a"', 1, 36, 'invalid value of argument #2: reference ${2} names a capture that does not exist'],
  ['lower(http.request.headers.names[*]) eq "a"', 1, 38, 'cannot perform this operation on type Array(Bytes)'],
  ['concat(http.host, http.request.headers.names[*]) eq "a"', 1, 19, 'invalid use of map each access operator'],
];

const LISTS: readonly Case[] = [
  ['http.host in $Bad-Name', 1, 15, 'invalid list name "B"'],
  ['http.host in $', 1, 15, 'invalid list name ""'],
  ['ip.src in $a.', 1, 12, 'invalid list name "a."'],
];

const LAYOUT: readonly Case[] = [
  ['ssl\n and\n foo', 3, 2, 'unknown identifier'],
  ['ssl and\r\nhttp.host eq "\\q"', 2, 16, BAD_ESCAPE],
  ['http.host eq "é" and http.hots eq "a"', 1, 22, 'unknown identifier'],
  ['http.host eq "😀😀" and x', 1, 23, 'unknown identifier'],
];

describe.each([
  ['syntax', SYNTAX],
  ['identifiers and types', IDENTIFIERS_AND_TYPES],
  ['strings', STRINGS],
  ['regexes', REGEXES],
  ['numbers', NUMBERS],
  ['addresses', ADDRESSES],
  ['indexes', INDEXES],
  ['functions', FUNCTIONS],
  ['lists', LISTS],
  ['layout', LAYOUT],
] as const)('invalid expressions: %s', (_, table) => {
  it.each(table)('%s', (expression, line, column, reason) => {
    const result = validate(expression);
    if (result.ok) throw new Error(`accepted: ${expression}`);
    expect({ line: result.error.line, column: result.error.column, reason: result.error.reason }).toEqual({ line, column, reason });
    expect(() => parse(expression)).toThrow(FilterError);
  });
});
