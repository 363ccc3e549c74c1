import { describe, expect, it } from 'vitest';
import { parse, validate } from '../../src/filter/index';
import { shape } from './helpers';

/** [expression, grouping and canonical form of each condition] */
const OPERATORS: ReadonlyArray<readonly [string, string]> = [
  ['http.host eq "a"', '<http.host eq "a">'],
  ['http.host == "a"', '<http.host eq "a">'],
  ['http.host ne "a"', '<http.host ne "a">'],
  ['http.host != "a"', '<http.host ne "a">'],
  ['http.host lt "m"', '<http.host lt "m">'],
  ['http.host < "m"', '<http.host lt "m">'],
  ['http.host le "m"', '<http.host le "m">'],
  ['http.host <= "m"', '<http.host le "m">'],
  ['http.host gt "m"', '<http.host gt "m">'],
  ['http.host > "m"', '<http.host gt "m">'],
  ['http.host ge "m"', '<http.host ge "m">'],
  ['http.host >= "m"', '<http.host ge "m">'],
  ['http.request.uri.path contains "/admin"', '<http.request.uri.path contains "/admin">'],
  ['http.request.uri.path matches "^/admin"', '<http.request.uri.path matches "^/admin">'],
  ['http.request.uri.path ~ "^/admin"', '<http.request.uri.path matches "^/admin">'],
  ['http.host wildcard "*.example.com"', '<http.host wildcard "*.example.com">'],
  ['http.host strict wildcard "*.Example.com"', '<http.host strict wildcard "*.Example.com">'],
  ['http.host in {"a.com" "b.com"}', '<http.host in {"a.com" "b.com"}>'],
  ['cf.threat_score eq 10', '<cf.threat_score eq 10>'],
  ['cf.threat_score == 10', '<cf.threat_score eq 10>'],
  ['cf.threat_score ne 10', '<cf.threat_score ne 10>'],
  ['cf.threat_score != 10', '<cf.threat_score ne 10>'],
  ['cf.threat_score lt 10', '<cf.threat_score lt 10>'],
  ['cf.threat_score<10', '<cf.threat_score lt 10>'],
  ['cf.threat_score le 10', '<cf.threat_score le 10>'],
  ['cf.threat_score<=10', '<cf.threat_score le 10>'],
  ['cf.threat_score gt 10', '<cf.threat_score gt 10>'],
  ['cf.threat_score>10', '<cf.threat_score gt 10>'],
  ['cf.threat_score ge 10', '<cf.threat_score ge 10>'],
  ['cf.threat_score>=10', '<cf.threat_score ge 10>'],
  ['cf.threat_score in {1 5}', '<cf.threat_score in {1 5}>'],
  ['cf.threat_score & 4', '<cf.threat_score bitwise_and 4>'],
  ['cf.threat_score bitwise_and 4', '<cf.threat_score bitwise_and 4>'],
  ['ip.src eq 192.0.2.1', '<ip.src eq 192.0.2.1>'],
  ['ip.src == 192.0.2.1', '<ip.src eq 192.0.2.1>'],
  ['ip.src ne 192.0.2.1', '<ip.src ne 192.0.2.1>'],
  ['ip.src in {192.0.2.1}', '<ip.src in {192.0.2.1}>'],
  ['ssl', '<ssl>'],
  ['true', '<true>'],
  ['not ssl', '(not <ssl>)'],
  ['!ssl', '(not <ssl>)'],
  ['ssl and true', '(and <ssl> <true>)'],
  ['ssl && true', '(and <ssl> <true>)'],
  ['ssl or true', '(or <ssl> <true>)'],
  ['ssl || true', '(or <ssl> <true>)'],
  ['ssl xor true', '(xor <ssl> <true>)'],
  ['ssl ^^ true', '(xor <ssl> <true>)'],
];

const PRECEDENCE: ReadonlyArray<readonly [string, string]> = [
  ['ssl or ssl and true', '(or <ssl> (and <ssl> <true>))'],
  ['ssl and ssl or true', '(or (and <ssl> <ssl>) <true>)'],
  ['ssl xor ssl and true', '(xor <ssl> (and <ssl> <true>))'],
  ['ssl or ssl xor true', '(or <ssl> (xor <ssl> <true>))'],
  ['ssl and true xor ssl or true', '(or (xor (and <ssl> <true>) <ssl>) <true>)'],
  ['ssl or true xor ssl and true', '(or <ssl> (xor <true> (and <ssl> <true>)))'],
  ['not ssl and true', '(and (not <ssl>) <true>)'],
  ['not http.host eq "a"', '(not <http.host eq "a">)'],
  ['not (ssl and true)', '(not (paren (and <ssl> <true>)))'],
  ['(ssl or true) and ssl', '(and (paren (or <ssl> <true>)) <ssl>)'],
  ['ssl and true and ssl and true', '(and <ssl> <true> <ssl> <true>)'],
  ['ssl or true or ssl and true', '(or <ssl> <true> (and <ssl> <true>))'],
  ['ssl and true or ssl and true', '(or (and <ssl> <true>) (and <ssl> <true>))'],
  ['ssl xor true xor ssl', '(xor <ssl> <true> <ssl>)'],
  ['not not ssl', '(not (not <ssl>))'],
  ['!!ssl', '(not (not <ssl>))'],
  ['((ssl))', '(paren (paren <ssl>))'],
  ['ssl&&true||ssl', '(or (and <ssl> <true>) <ssl>)'],
  ['not(ssl)', '(not (paren <ssl>))'],
];

const LITERALS: ReadonlyArray<readonly [string, string]> = [
  ['http.host eq ""', '<http.host eq "">'],
  ['http.host eq "a\\"b"', '<http.host eq "a\\"b">'],
  ['http.host eq "a\\\\b"', '<http.host eq "a\\\\b">'],
  ['http.host eq "\\x41\\x42"', '<http.host eq "AB">'],
  ['http.host eq "\\101\\102"', '<http.host eq "AB">'],
  ['http.host eq "\\xc3\\xa9"', '<http.host eq "é">'],
  ['http.host eq "é"', '<http.host eq "é">'],
  ['http.host eq "\\xff"', '<http.host eq "\\xff">'],
  ['http.host eq "\\x0a"', '<http.host eq "\\x0a">'],
  ['http.host eq r"a\\b"', '<http.host eq r"a\\b">'],
  ['http.host eq r#"say "hi""#', '<http.host eq r#"say "hi""#>'],
  ['http.host eq r##"a"#b"##', '<http.host eq r##"a"#b"##>'],
  ['http.host eq r""', '<http.host eq r"">'],
  ['http.host eq 61:62:63', '<http.host eq 61:62:63>'],
  ['http.host eq 61-62.63', '<http.host eq 61:62:63>'],
  ['http.host eq 6A:6b', '<http.host eq 6a:6b>'],
  ['http.host in {"a" r"b" 63:64}', '<http.host in {"a" r"b" 63:64}>'],
  ['http.host in {}', '<http.host in {}>'],
  ['http.request.uri.path matches "\\d+\\.php$"', '<http.request.uri.path matches "\\d+\\.php$">'],
  ['http.request.uri.path matches "a\\"b"', '<http.request.uri.path matches "a\\"b">'],
  ['http.request.uri.path matches "[\\"]"', '<http.request.uri.path matches "[\\"]">'],
  ['http.request.uri.path matches r"\\d{2,4}"', '<http.request.uri.path matches r"\\d{2,4}">'],
  ['http.request.uri.path matches "(?i)^/Admin(?P<rest>/.*)?$"', '<http.request.uri.path matches "(?i)^/Admin(?P<rest>/.*)?$">'],
  ['http.host wildcard r"*\\*literal"', '<http.host wildcard r"*\\*literal">'],
  ['cf.threat_score eq 0', '<cf.threat_score eq 0>'],
  ['cf.threat_score eq -5', '<cf.threat_score eq -5>'],
  ['cf.threat_score eq 0x1F', '<cf.threat_score eq 31>'],
  ['cf.threat_score eq 017', '<cf.threat_score eq 15>'],
  ['cf.threat_score eq 9223372036854775807', '<cf.threat_score eq 9223372036854775807>'],
  ['cf.threat_score eq -9223372036854775808', '<cf.threat_score eq -9223372036854775808>'],
  ['cf.threat_score in {80 443 8000..8080}', '<cf.threat_score in {80 443 8000..8080}>'],
  ['cf.threat_score in {-10..-1 0x10..0x20}', '<cf.threat_score in {-10..-1 16..32}>'],
  ['cf.threat_score in {5..5}', '<cf.threat_score in {5..5}>'],
  ['ip.src eq 2001:DB8::1', '<ip.src eq 2001:db8::1>'],
  ['ip.src eq ::1', '<ip.src eq ::1>'],
  ['ip.src eq ::', '<ip.src eq ::>'],
  ['ip.src eq 2001:0db8:0000:0000:0000:0000:0000:0001', '<ip.src eq 2001:db8::1>'],
  ['ip.src eq ::ffff:192.0.2.1', '<ip.src eq ::ffff:c000:201>'],
  ['ip.src in {192.0.2.0/24 10.0.0.0/8}', '<ip.src in {192.0.2.0/24 10.0.0.0/8}>'],
  ['ip.src in {0.0.0.0/0 ::/0}', '<ip.src in {0.0.0.0/0 ::/0}>'],
  ['ip.src in {192.0.2.1/32 ::1/128}', '<ip.src in {192.0.2.1/32 ::1/128}>'],
  ['ip.src in {2001:db8::/32}', '<ip.src in {2001:db8::/32}>'],
  ['ip.src in {10.0.0.1..10.0.0.9}', '<ip.src in {10.0.0.1..10.0.0.9}>'],
  ['ip.src in {2001:db8::1..2001:db8::ff}', '<ip.src in {2001:db8::1..2001:db8::ff}>'],
  ['ip.src in { 192.0.2.1  198.51.100.0/24 }', '<ip.src in {192.0.2.1 198.51.100.0/24}>'],
  ['ip.src in $cf.open_proxies', '<ip.src in $cf.open_proxies>'],
  ['ip.src.asnum in $my_asns', '<ip.src.asnum in $my_asns>'],
];

const VALUES: ReadonlyArray<readonly [string, string]> = [
  ['http.request.headers["accept"][0] eq "text/html"', '<http.request.headers["accept"][0] eq "text/html">'],
  ['http.request.headers.names[0] eq "host"', '<http.request.headers.names[0] eq "host">'],
  ['http.request.body.multipart.filenames[0][1] eq "a.txt"', '<http.request.body.multipart.filenames[0][1] eq "a.txt">'],
  ['any(http.request.headers.names[*] eq "x-debug")', '(any <http.request.headers.names[*] eq "x-debug">)'],
  ['all(http.request.headers.values[*] contains "a")', '(all <http.request.headers.values[*] contains "a">)'],
  ['any(http.request.headers[*][0] eq "1")', '(any <http.request.headers[*][0] eq "1">)'],
  ['any(http.request.headers["x"][*] contains "a")', '(any <http.request.headers["x"][*] contains "a">)'],
  ['any(http.request.body.multipart.filenames[*][0] wildcard "*.exe")', '(any <http.request.body.multipart.filenames[*][0] wildcard "*.exe">)'],
  ['any((http.request.headers.names[*] eq "a" or http.request.headers.names[*] eq "b"))', '(any (paren (or <http.request.headers.names[*] eq "a"> <http.request.headers.names[*] eq "b">)))'],
  ['any(not http.request.headers.names[*] eq "a")', '(any (not <http.request.headers.names[*] eq "a">))'],
  ['any(lower(http.request.headers.names[*])[*] == "x-a")', '(any <lower(http.request.headers.names[*])[*] eq "x-a">)'],
  ['any(starts_with(http.request.headers.names[*], "x-"))', '(any <starts_with(http.request.headers.names[*], "x-")>)'],
  ['any(cf.bot_management.detection_ids[*] eq 5)', '(any <cf.bot_management.detection_ids[*] eq 5>)'],
  ['lower(http.host) eq "example.com"', '<lower(http.host) eq "example.com">'],
  ['upper(http.host) eq "EXAMPLE.COM"', '<upper(http.host) eq "EXAMPLE.COM">'],
  ['len(http.request.body.raw) gt 1024', '<len(http.request.body.raw) gt 1024>'],
  ['len(http.request.headers.names) > 50', '<len(http.request.headers.names) gt 50>'],
  ['concat(http.host, http.request.uri.path) eq "a/b"', '<concat(http.host, http.request.uri.path) eq "a/b">'],
  ['concat(http.host, "/", http.request.uri.path) eq "a/b"', '<concat(http.host, "/", http.request.uri.path) eq "a/b">'],
  ['starts_with(http.request.uri.path, "/api/")', '<starts_with(http.request.uri.path, "/api/")>'],
  ['ends_with(http.request.uri.path, ".php") and ssl', '(and <ends_with(http.request.uri.path, ".php")> <ssl>)'],
  ['url_decode(http.request.uri.query) contains "<script"', '<url_decode(http.request.uri.query) contains "<script">'],
  ['url_decode(http.request.uri.query, "ru") contains "a"', '<url_decode(http.request.uri.query, "ru") contains "a">'],
  ['to_string(cf.threat_score) eq "10"', '<to_string(cf.threat_score) eq "10">'],
  ['to_string(ip.src) eq "192.0.2.1"', '<to_string(ip.src) eq "192.0.2.1">'],
  ['regex_replace(http.request.uri.path, "^/old/(.*)$", "/new/${1}") eq "/new/x"', '<regex_replace(http.request.uri.path, "^/old/(.*)$", "/new/${1}") eq "/new/x">'],
  ['wildcard_replace(http.host, "*.example.com", "${1}.test") eq "a.test"', '<wildcard_replace(http.host, "*.example.com", "${1}.test") eq "a.test">'],
  ['wildcard_replace(http.host, "*.Example.com", "x", "s") eq "x"', '<wildcard_replace(http.host, "*.Example.com", "x", "s") eq "x">'],
  ['lookup_json_string(http.request.body.raw, "user", "name") eq "ann"', '<lookup_json_string(http.request.body.raw, "user", "name") eq "ann">'],
  ['lookup_json_integer(http.request.body.raw, "items", 0) gt 3', '<lookup_json_integer(http.request.body.raw, "items", 0) gt 3>'],
  ['substring(http.request.uri.path, 0, 4) eq "/api"', '<substring(http.request.uri.path, 0, 4) eq "/api">'],
  ['substring(http.request.uri.path, -4) eq ".php"', '<substring(http.request.uri.path, -4) eq ".php">'],
  ['split(http.host, ".", 2)[0] eq "www"', '<split(http.host, ".", 2)[0] eq "www">'],
  ['join(http.request.headers.names, ",") contains "x-a"', '<join(http.request.headers.names, ",") contains "x-a">'],
  ['has_key(http.request.headers, "authorization")', '<has_key(http.request.headers, "authorization")>'],
  ['has_value(http.request.headers.names, "cookie")', '<has_value(http.request.headers.names, "cookie")>'],
  ['cidr(ip.src, 24, 64) eq 192.0.2.0', '<cidr(ip.src, 24, 64) eq 192.0.2.0>'],
  ['cidr6(ip.src, 64) eq 2001:db8::', '<cidr6(ip.src, 64) eq 2001:db8::>'],
  ['decode_base64(http.request.headers["x-b"][0]) eq "hi"', '<decode_base64(http.request.headers["x-b"][0]) eq "hi">'],
  ['remove_bytes(http.host, "\\x2e") eq "examplecom"', '<remove_bytes(http.host, ".") eq "examplecom">'],
  ['remove_query_args(http.request.uri.query, "utm_source", "utm_medium") eq "a=1"', '<remove_query_args(http.request.uri.query, "utm_source", "utm_medium") eq "a=1">'],
  ['uuidv4(cf.random_seed) ne ""', '<uuidv4(cf.random_seed) ne "">'],
  ['is_timed_hmac_valid_v0("secret", http.request.uri, 10800, http.request.timestamp.sec, 8)', '<is_timed_hmac_valid_v0("secret", http.request.uri, 10800, http.request.timestamp.sec, 8)>'],
  ['lower(concat(http.host, "/X")) eq "a/x"', '<lower(concat(http.host, "/X")) eq "a/x">'],
  ['remove_bytes(http.host, 2e:77) eq "a"', '<remove_bytes(http.host, 2e:77) eq "a">'],
  ['to_string(http.host eq "a") eq "true"', '<to_string(http.host eq "a") eq "true">'],
  ['to_string((ssl or true)) eq "true"', '<to_string((ssl or true)) eq "true">'],
  ['any((http.request.headers.names[*] eq "a"))', '(any (paren <http.request.headers.names[*] eq "a">))'],
  ['lower ( http.host ) eq "a"', '<lower(http.host) eq "a">'],
  ['concat(http.host,"x")eq"ax"', '<concat(http.host, "x") eq "ax">'],
  ['len(concat(http.request.headers.names, http.request.headers.values)) gt 2', '<len(concat(http.request.headers.names, http.request.headers.values)) gt 2>'],
];

const LAYOUT: ReadonlyArray<readonly [string, string]> = [
  ['  ssl  ', '<ssl>'],
  ['\n ssl\r\n', '<ssl>'],
  ['ssl\nand\r\ntrue', '(and <ssl> <true>)'],
  ['( ssl )', '(paren <ssl>)'],
  ['http.host   eq   "a"', '<http.host eq "a">'],
  ['ssl and(true)', '(and <ssl> (paren <true>))'],
];

describe.each([
  ['operators', OPERATORS],
  ['precedence', PRECEDENCE],
  ['literals', LITERALS],
  ['values and functions', VALUES],
  ['layout', LAYOUT],
] as const)('valid expressions: %s', (_, table) => {
  it.each(table)('%s', (expression, expected) => {
    const result = validate(expression);
    if (!result.ok) throw new Error(result.error.message);
    expect(result.ast.type).toBe('Bool');
    expect(shape(result.ast)).toBe(expected);
  });
});

describe('typed tree', () => {
  it('records types, mapping and source spans', () => {
    const source = ' any(lower(http.request.headers.names[*])[*] eq "x")';
    const ast = parse(source);
    expect(ast).toMatchObject({ kind: 'quantifier', name: 'any', type: 'Bool', span: { start: 1, end: source.length } });
    if (ast.kind !== 'quantifier' || ast.operand.kind !== 'comparison') throw new Error('unexpected tree');
    const comparison = ast.operand;
    expect(comparison.type).toEqual({ array: 'Bool' });
    expect(comparison.lhs).toMatchObject({ kind: 'index', type: 'Bytes', mapped: true, span: { start: 5, end: 44 } });
    expect(comparison.lhs).toMatchObject({ target: { kind: 'call', name: 'lower', type: { array: 'Bytes' }, mapped: false } });
    expect(comparison.rhs).toEqual({ kind: 'bytes', value: 'x', style: 'quoted', hashes: 0, span: { start: 48, end: 51 } });
    expect(source.slice(comparison.span.start, comparison.span.end)).toBe('lower(http.request.headers.names[*])[*] eq "x"');
  });

  it('keeps 64-bit integers exact', () => {
    const ast = parse('cf.threat_score eq 9223372036854775807');
    expect(ast).toMatchObject({ kind: 'comparison', rhs: { kind: 'int', value: 9223372036854775807n } });
  });

  it('keeps the bytes of escapes, not their text', () => {
    expect(parse('http.host eq "\\xff\\x00é"')).toMatchObject({ rhs: { value: '\xff\x00\xc3\xa9' } });
  });

  it('types map indexing step by step', () => {
    const ast = parse('http.request.headers["a"][0] eq "b"');
    if (ast.kind !== 'comparison' || ast.lhs.kind !== 'index' || ast.lhs.target.kind !== 'index') throw new Error('unexpected tree');
    expect(ast.lhs.target.type).toEqual({ array: 'Bytes' });
    expect(ast.lhs.target.target.type).toEqual({ map: { array: 'Bytes' } });
    expect(ast.lhs.type).toBe('Bytes');
  });
});
