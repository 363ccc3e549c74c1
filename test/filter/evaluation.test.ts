import { describe, expect, it } from 'vitest';
import { FilterContextError, compile, parse } from '../../src/filter/index';
import { ATTACK, BROWSER } from './contexts';

function evaluate(expression: string, context: typeof BROWSER, lists?: Record<string, readonly (string | number)[]>): boolean {
  return compile(parse(expression), { lists }).evaluate(context);
}

/** [expression, result for the browser request, result for the attack] */
const CASES: ReadonlyArray<readonly [string, boolean, boolean]> = [
  // comparisons are case-sensitive
  ['http.host eq "admin.example.com"', false, false],
  ['http.host eq "Admin.Example.com"', false, true],
  ['lower(http.host) eq "admin.example.com"', false, true],
  ['http.request.method in {"POST" "PUT"}', false, true],
  ['http.request.method ne "GET"', false, true],
  ['http.user_agent contains "sqlmap"', false, true],
  ['http.user_agent contains "SQLMAP"', false, false],
  ['http.request.uri.path lt "/q"', true, false],
  ['http.request.uri.path ge "/w"', false, true],
  // regexes search anywhere unless anchored
  ['http.request.uri.path matches "admin.*\\.php$"', false, true],
  ['http.request.uri.path matches "^admin"', false, false],
  ['http.request.uri.path matches "(?i)^/WP-"', false, true],
  ['http.user_agent matches r"\\(Windows NT \\d+\\.\\d+"', true, false],
  // wildcards: `*` is any run; plain wildcard ignores case, strict does not
  ['http.host wildcard "admin.*"', false, true],
  ['http.host strict wildcard "admin.*"', false, false],
  ['http.host strict wildcard "Admin.*"', false, true],
  ['http.host wildcard "*example.com"', true, true],
  ['http.host wildcard "www.*.com"', true, false],
  ['http.host wildcard "*"', true, true],
  ['http.host wildcard "www.example.com*"', true, false],
  ['http.request.uri.path wildcard "/*/*"', true, true],
  ['http.request.uri.path wildcard "/*/*/*"', false, false],
  // addresses: CIDR and range membership, families never equal
  ['ip.src in {198.51.100.0/24}', true, false],
  ['ip.src in {2001:db8::/32}', false, true],
  ['ip.src in {0.0.0.0/0}', true, false],
  ['ip.src in {::/0}', false, true],
  ['ip.src in {198.51.100.1..198.51.100.30}', true, false],
  ['ip.src in {2001:db8::dead:0..2001:db8::dead:ffff}', false, true],
  ['ip.src eq 198.51.100.23', true, false],
  ['ip.src eq 2001:DB8:0:0:0:0:DEAD:BEEF', false, true],
  ['ip.src ne 198.51.100.23', false, true],
  ['ip.src in {192.0.2.0/24 203.0.113.0/24}', false, false],
  // integers
  ['cf.threat_score gt 50', false, true],
  ['cf.threat_score in {0..10 70..80}', true, true],
  ['cf.threat_score in {4..69}', false, false],
  ['cf.threat_score & 1', true, true],
  ['cf.threat_score & 4', false, false],
  ['ip.src.asnum in {64500 64501}', true, false],
  // booleans and logic
  ['ssl', true, false],
  ['not ssl', false, true],
  ['true', true, true],
  ['ssl xor cf.threat_score gt 50', true, true],
  ['ssl xor ssl', false, false],
  ['ssl or cf.threat_score gt 50 and http.request.method eq "POST"', true, true],
  ['(ssl or cf.threat_score gt 50) and http.request.method eq "POST"', false, true],
  ['cf.bot_management.verified_bot', false, false],
  // missing fields make comparisons false (negated ones too)
  ['http.cookie eq "a"', false, false],
  ['http.cookie ne "a"', false, false],
  ['not http.cookie eq "a"', true, true],
  ['http.request.body.raw contains "root"', false, true],
  ['cf.bot_management.verified_bot or cf.bot_management.score lt 30', false, false],
  // indexing and [*]
  ['http.request.headers["accept"][1] eq "application/xhtml+xml"', true, false],
  ['http.request.headers["accept"][2] eq "x"', false, false],
  ['http.request.headers["missing"][0] ne "x"', false, false],
  ['http.request.headers.names[0] eq "host"', true, false],
  ['any(http.request.headers.names[*] eq "accept")', true, false],
  ['all(http.request.headers.names[*] contains "-")', false, true],
  ['all(http.request.headers.names[*] ne "cookie")', true, true],
  ['any(http.request.headers[*][0] eq "sqlmap/1.7")', false, true],
  ['any(http.request.headers["accept"][*] contains "xhtml")', true, false],
  ['any(lower(http.request.headers.values[*])[*] contains "sqlmap")', false, false],
  ['any(cf.bot_management.detection_ids[*] eq 42)', false, true],
  ['all(cf.bot_management.detection_ids[*] gt 100)', true, false],
  ['any((http.request.headers.names[*] eq "host" or http.request.headers.names[*] eq "user-agent"))', true, true],
  ['any(not http.request.headers.names[*] eq "host")', true, true],
  ['all(not http.request.headers.names[*] eq "host")', false, true],
  ['any(starts_with(http.request.headers.names[*], "x-"))', false, true],
  ['any(len(http.request.headers.names[*])[*] gt 12)', true, true],
  ['any(len(http.request.headers.names[*])[*] gt 15)', false, false],
  // functions in conditions
  ['len(http.request.headers.names) eq 4', true, false],
  ['url_decode(http.request.uri.query) contains "<script>"', false, true],
  ['lookup_json_string(http.request.body.raw, "user", "name") eq "root"', false, true],
  ['lookup_json_integer(http.request.body.raw, "items", 1) eq 7', false, true],
  ['lookup_json_integer(http.request.body.raw, "user", "name") eq 0', false, false],
  ['to_string(cf.threat_score) eq "75"', false, true],
  ['remove_query_args(http.request.uri.query, "utm_source") eq "color=red"', true, false],
  ['has_key(http.request.headers, "accept")', true, false],
  ['has_value(http.request.headers.names, "user-agent")', false, true],
  ['cidr(ip.src, 24, 32) eq 198.51.100.0', true, false],
  ['cidr(ip.src, 24, 32) eq 2001:db8::', false, true],
  ['cidr6(ip.src, 64) eq 2001:db8::', false, true],
  ['concat(http.host, http.request.uri.path) eq "www.example.com/products/shoes"', true, false],
  ['split(http.host, ".", 2)[1] eq "example.com"', true, false],
  ['ends_with(lower(http.host), ".example.com")', true, true],
];

describe('evaluation over realistic requests', () => {
  it.each(CASES)('%s', (expression, browser, attack) => {
    expect([evaluate(expression, BROWSER), evaluate(expression, ATTACK)]).toEqual([browser, attack]);
  });

  it('gives the same answer when evaluated again (fields are read per evaluation)', () => {
    const filter = compile(parse('http.host wildcard "admin.*" and not ssl'));
    expect([filter.evaluate(ATTACK), filter.evaluate(BROWSER), filter.evaluate(ATTACK)]).toEqual([true, false, true]);
  });
});

describe('lists', () => {
  const lists = { blocked: ['198.51.100.0/24', '2001:db8::1..2001:db8::ff'], asns: [64511], hosts: ['www.example.com'] };

  it('match IP networks and ranges, integers and strings', () => {
    expect(evaluate('ip.src in $blocked', BROWSER, lists)).toBe(true);
    expect(evaluate('ip.src in $blocked', ATTACK, lists)).toBe(false);
    expect(evaluate('ip.src.asnum in $asns', ATTACK, lists)).toBe(true);
    expect(evaluate('http.host in $hosts', BROWSER, lists)).toBe(true);
  });

  it('match nothing when the list is not supplied', () => {
    expect(evaluate('ip.src in $cf.open_proxies', BROWSER, lists)).toBe(false);
    expect(evaluate('not ip.src in $cf.open_proxies', BROWSER)).toBe(true);
  });

  it('refuse an IP list entry that is not an address, network or range', () => {
    expect(() => evaluate('ip.src in $bad', BROWSER, { bad: ['10.0.0.0/33'] })).toThrow(/list entry "10.0.0.0\/33"/);
  });
});

describe('context values', () => {
  it('accept bigint integers and byte arrays', () => {
    const context = { 'cf.threat_score': 2n ** 62n, 'http.host': new Uint8Array([0x61, 0xff]) };
    expect(evaluate('cf.threat_score eq 4611686018427387904', context)).toBe(true);
    expect(evaluate('http.host eq "a\\xff"', context)).toBe(true);
  });

  it('compare strings as their UTF-8 bytes', () => {
    expect(evaluate('http.host eq "\\xc3\\xa9"', { 'http.host': 'é' })).toBe(true);
    expect(evaluate('len(http.host) eq 2', { 'http.host': 'é' })).toBe(true);
  });

  it('refuse values of the wrong shape, naming the field', () => {
    expect(() => evaluate('cf.threat_score gt 1', { 'cf.threat_score': '10' })).toThrow(FilterContextError);
    expect(() => evaluate('cf.threat_score gt 1', { 'cf.threat_score': 1.5 })).toThrow(
      'context value cf.threat_score should be Int, got a number',
    );
    expect(() => evaluate('ip.src eq 1.2.3.4', { 'ip.src': 'not-an-ip' })).toThrow('context value ip.src should be Ip');
    expect(() => evaluate('http.request.headers["a"][0] eq "b"', { 'http.request.headers': { a: 'b' } })).toThrow(
      'context value http.request.headers["a"] should be Array(Bytes), got a string',
    );
  });
});
