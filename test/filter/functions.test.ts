import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type RequestContext, compile, parse } from '../../src/filter/index';
import { FUNCTION_LIBRARY } from '../../src/filter/evaluate/function-library';
import { FUNCTIONS } from '../../src/filter/language/scheme';

function holds(expression: string, context: RequestContext): boolean {
  return compile(parse(expression)).evaluate(context);
}

/** [expression, context, result] */
const CASES: ReadonlyArray<readonly [string, RequestContext, boolean]> = [
  ['url_decode(http.request.uri.query) eq "a b+c"', { 'http.request.uri.query': 'a+b%2Bc' }, true],
  ['url_decode(http.request.uri.query) eq "%41"', { 'http.request.uri.query': '%2541' }, true],
  ['url_decode(http.request.uri.query, "r") eq "A"', { 'http.request.uri.query': '%2541' }, true],
  ['url_decode(http.request.uri.query) eq "%u00e9"', { 'http.request.uri.query': '%u00e9' }, true],
  ['url_decode(http.request.uri.query, "u") eq "é"', { 'http.request.uri.query': '%u00e9' }, true],
  ['url_decode(http.request.uri.query) eq "é"', { 'http.request.uri.query': '%C3%A9' }, true],
  ['substring(http.request.uri.path, 1, 9) eq "products"', { 'http.request.uri.path': '/products/shoes' }, true],
  ['substring(http.request.uri.path, -5) eq "shoes"', { 'http.request.uri.path': '/products/shoes' }, true],
  ['substring(http.request.uri.path, -5, -2) eq "sho"', { 'http.request.uri.path': '/products/shoes' }, true],
  ['substring(http.request.uri.path, 100) eq ""', { 'http.request.uri.path': '/products/shoes' }, true],
  ['split(http.host, ".", 2)[1] eq "b.c.d"', { 'http.host': 'a.b.c.d' }, true],
  ['split(http.host, ".", 128)[3] eq "d"', { 'http.host': 'a.b.c.d' }, true],
  ['len(split(http.host, ".", 128)) eq 4', { 'http.host': 'a.b.c.d' }, true],
  ['wildcard_replace(http.host, "*.example.com", "example.com/${1}") eq "example.com/shop"', { 'http.host': 'shop.example.com' }, true],
  ['wildcard_replace(http.host, "*.EXAMPLE.com", "x/${1}") eq "x/Shop"', { 'http.host': 'Shop.example.com' }, true],
  ['wildcard_replace(http.host, "*.EXAMPLE.com", "x", "s") eq "shop.example.com"', { 'http.host': 'shop.example.com' }, true],
  ['wildcard_replace(http.host, "*.*.com", "${2}-${1}") eq "example-shop"', { 'http.host': 'shop.example.com' }, true],
  ['wildcard_replace(http.host, "*.org", "x") eq "shop.example.com"', { 'http.host': 'shop.example.com' }, true],
  ['regex_replace(http.request.uri.path, "o", "0") eq "/pr0ducts/shoes"', { 'http.request.uri.path': '/products/shoes' }, true],
  ['regex_replace(http.request.uri.path, r"^/(\\w+)/(\\w+)$", "/${2}/${1}") eq "/shoes/products"', { 'http.request.uri.path': '/products/shoes' }, true],
  ['regex_replace(http.request.uri.path, "s$", "[${0}]") eq "/products/shoe[s]"', { 'http.request.uri.path': '/products/shoes' }, true],
  ['regex_replace(http.request.uri.path, "zz", "y") eq "/a"', { 'http.request.uri.path': '/a' }, true],
  ['uuidv4(cf.random_seed) eq "00000000-0000-4000-8000-000000000000"', { 'cf.random_seed': new Uint8Array(16) }, true],
  ['uuidv4(cf.random_seed) ne ""', { 'cf.random_seed': new Uint8Array(8) }, false],
  ['decode_base64(http.request.headers["x-b"][0]) eq "hi"', { 'http.request.headers': { 'x-b': ['aGk='] } }, true],
  ['decode_base64(http.request.headers["x-b"][0]) ne "hi"', { 'http.request.headers': { 'x-b': ['%%%'] } }, false],
  ['lookup_json_string(http.request.body.raw, "a") eq "b"', { 'http.request.body.raw': '{"a":"b"}' }, true],
  ['lookup_json_string(http.request.body.raw, "a") ne "b"', { 'http.request.body.raw': '{"a":' }, false],
  ['lookup_json_string(http.request.body.raw, 0, "k") eq "v"', { 'http.request.body.raw': '[{"k":"v"}]' }, true],
  ['lookup_json_integer(http.request.body.raw, "n") eq -3', { 'http.request.body.raw': '{"n":-3}' }, true],
  ['lookup_json_integer(http.request.body.raw, "n") ne 0', { 'http.request.body.raw': '{"n":1.5}' }, false],
  ['remove_bytes(http.host, "\\x2e\\x77") eq "examplecom"', { 'http.host': 'www.example.com' }, true],
  ['any(concat(http.request.headers.names, http.request.headers.values)[*] eq "v")', { 'http.request.headers.names': ['n'], 'http.request.headers.values': ['v'] }, true],
  ['join(http.request.headers.names, ",") eq "a,b"', { 'http.request.headers.names': ['a', 'b'] }, true],
  ['upper(http.host) eq "WWW.EXAMPLE.COM"', { 'http.host': 'www.example.com' }, true],
  ['lower(http.host) eq "straße"', { 'http.host': 'STRAßE' }, true],
  ['to_string(ssl) eq "true"', { ssl: true }, true],
  ['to_string(http.host eq "a") eq "true"', { 'http.host': 'a' }, true],
  ['to_string(not ssl) eq "false"', { ssl: true }, true],
  ['remove_bytes(http.host, 2e:77) eq "examplecom"', { 'http.host': 'www.example.com' }, true],
  ['to_string(ip.src) eq "2001:db8::1"', { 'ip.src': '2001:0DB8::0001' }, true],
  ['cidr(ip.src, 1, 64) eq 2001:db8::', { 'ip.src': '2001:db8::1' }, true],
  ['cidr(ip.src, 32, 128) eq 192.0.2.77', { 'ip.src': '192.0.2.77' }, true],
  ['cidr6(ip.src, 16) eq 192.0.2.77', { 'ip.src': '192.0.2.77' }, true],
  ['has_key(http.request.cookies, "session")', { 'http.request.cookies': { session: ['1'] } }, true],
  ['has_key(http.request.cookies, "other")', { 'http.request.cookies': { session: ['1'] } }, false],
  ['concat(http.host, "/", http.request.uri.path) eq "a/b"', { 'http.host': 'a' }, false],
];

describe('functions', () => {
  it.each(CASES)('%s', (expression, context, result) => {
    expect(holds(expression, context)).toBe(result);
  });

  it('implement every function of the catalogue (any and all are quantifiers)', () => {
    const catalogue = [...FUNCTIONS.keys()].filter((name) => name !== 'any' && name !== 'all').sort();
    expect(Object.keys(FUNCTION_LIBRARY).sort()).toEqual(catalogue);
  });
});

describe('is_timed_hmac_valid_v0', () => {
  const secret = 'mysecret';
  const issued = 1700000000;
  const message = '/download/report.pdf';
  const mac = createHmac('sha256', secret).update(`${message}${issued}`).digest('base64');
  const uri = `${message}?verify=${issued}-${encodeURIComponent(mac)}`;
  const check = (key: string, now: number, token = uri) =>
    holds(`is_timed_hmac_valid_v0("${key}", http.request.uri, 10800, http.request.timestamp.sec, 8)`, {
      'http.request.uri': token,
      'http.request.timestamp.sec': now,
    });

  it('accepts a fresh token signed with the key', () => {
    expect(check(secret, issued + 100)).toBe(true);
  });

  it('refuses an expired token, a token from the future, another key and a tampered message', () => {
    expect(check(secret, issued + 10801)).toBe(false);
    expect(check(secret, issued - 1)).toBe(false);
    expect(check('other', issued + 100)).toBe(false);
    expect(check(secret, issued + 100, uri.replace('report', 'secret'))).toBe(false);
  });
});
