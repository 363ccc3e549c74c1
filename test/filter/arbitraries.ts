/**
 * Generators of valid expression text for property tests: every literal form
 * (with escapes, raw strings, byte strings, all integer radixes, both address
 * families, networks and ranges), every operator spelling, and nested logic.
 */
import fc from 'fast-check';
import { formatIp, hostMask, parseIp } from '../../src/filter/literals/ip-address';

const hex2 = (n: number) => n.toString(16).padStart(2, '0');
const oct3 = (n: number) => n.toString(8).padStart(3, '0');
const one = <T>(values: readonly T[]) => fc.constantFrom(...values);

const BYTES_FIELDS = ['http.host', 'http.request.uri.path', 'http.user_agent', 'http.cookie', 'ip.src.country'];
const INT_FIELDS = ['cf.threat_score', 'http.response.code', 'ip.src.asnum', 'cf.bot_management.score'];
const IP_FIELDS = ['ip.src', 'cf.edge.server_ip'];
const BOOL_FIELDS = ['ssl', 'true', 'cf.bot_management.verified_bot'];

const char = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 });

const quoted = fc
  .array(
    fc.oneof(
      char.map((c) => (c === '"' || c === '\\' ? `\\${c}` : c)),
      fc.integer({ min: 0, max: 255 }).map((b) => `\\x${hex2(b)}`),
      fc.integer({ min: 0, max: 255 }).map((b) => `\\${oct3(b)}`),
    ),
    { maxLength: 8 },
  )
  .map((parts) => `"${parts.join('')}"`);

function rawText(text: string, atLeast: number): string {
  let hashes = atLeast;
  while (text.includes(`"${'#'.repeat(hashes)}`)) hashes++;
  const fence = '#'.repeat(hashes);
  return `r${fence}"${text}"${fence}`;
}

const raw = fc.tuple(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.nat(2)).map(([text, hashes]) => rawText(text, hashes));

const hexBytes = fc
  .tuple(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 2, maxLength: 6 }), one([':', '-', '.']))
  .map(([bytes, sep]) => bytes.map(hex2).join(sep));

export const bytesLiteral = fc.oneof(quoted, raw, hexBytes);
const stringLiteral = fc.oneof(quoted, raw);

const REGEX_META = new Set([...'\\.+*?()|[]{}^$']);
const regexSource = fc
  .array(fc.oneof(char, one(['\\d+', '[a-z]{1,3}', '.*', '(?i)', '^', '$', 'a|b', '[^"]'])), { maxLength: 6 })
  .map((parts) => parts.map((p) => (p.length === 1 && REGEX_META.has(p) ? `\\${p}` : p)).join(''));
const regexLiteral = fc.oneof(
  regexSource.map((p) => `"${p.replace(/(?<!\\)"/g, '\\"')}"`),
  regexSource.map((p) => rawText(p, 0)),
);

const wildcardLiteral = fc
  .array(fc.oneof(fc.constant('*'), char.map((c) => (c === '*' || c === '\\' ? `\\\\${c === '\\' ? '\\\\' : c}` : c === '"' ? '\\"' : c))), {
    maxLength: 6,
  })
  .filter((parts) => !parts.some((p, i) => p === '*' && parts[i + 1] === '*'))
  .map((parts) => `"${parts.join('')}"`);

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const decimal = fc.bigInt({ min: I64_MIN, max: I64_MAX }).map(String);
const intLiteral = fc.oneof(
  decimal,
  fc.bigInt({ min: 0n, max: I64_MAX }).map((n) => `0x${n.toString(16)}`),
  fc.bigInt({ min: 1n, max: I64_MAX }).map((n) => `0${n.toString(8)}`),
);
const intItem = fc.oneof(
  intLiteral,
  fc.tuple(fc.bigInt({ min: -1000n, max: 1000n }), fc.bigInt({ min: 0n, max: 1000n })).map(([a, d]) => `${a}..${a + d}`),
);

const address = fc.oneof(fc.ipV4(), fc.ipV6());
const network = fc.tuple(address, fc.nat(128)).map(([text, n]) => {
  const ip = parseIp(text);
  if (!ip) throw new Error(`generator produced an unreadable address: ${text}`);
  const prefix = n % (ip.v6 ? 129 : 33);
  return `${formatIp({ v6: ip.v6, value: ip.value & ~hostMask(ip.v6, prefix) })}/${prefix}`;
});
const range = fc.oneof(fc.tuple(fc.ipV4(), fc.ipV4()), fc.tuple(fc.ipV6(), fc.ipV6())).map(([a, b]) => {
  const [x, y] = [parseIp(a)?.value ?? 0n, parseIp(b)?.value ?? 0n];
  return x <= y ? `${a}..${b}` : `${b}..${a}`;
});
const ipItem = fc.oneof(address, network, range);

const spaces = one([' ', '  ', '\n', ' \r\n ']);
const set = (item: fc.Arbitrary<string>) =>
  fc.tuple(fc.array(item, { maxLength: 4 }), spaces).map(([items, s]) => `{${items.join(s)}}`);

const bytesValue = fc.oneof(
  one(BYTES_FIELDS),
  one(BYTES_FIELDS).map((f) => `lower(${f})`),
  fc.tuple(one(BYTES_FIELDS), stringLiteral).map(([f, s]) => `concat(${f}, ${s})`),
  fc.stringMatching(/^[a-z\-é]{0,8}$/).map((k) => `http.request.headers["${k}"][0]`),
);
const intValue = fc.oneof(one(INT_FIELDS), one(BYTES_FIELDS).map((f) => `len(${f})`));

const bytesComparison = fc.oneof(
  fc.tuple(bytesValue, one(['eq', '==', 'ne', '!=', 'lt', '<', 'le', '<=', 'gt', '>', 'ge', '>=', 'contains']), bytesLiteral),
  fc.tuple(bytesValue, one(['matches', '~']), regexLiteral),
  fc.tuple(bytesValue, one(['wildcard', 'strict wildcard']), wildcardLiteral),
  fc.tuple(bytesValue, fc.constant('in'), set(bytesLiteral)),
);
const intComparison = fc.oneof(
  fc.tuple(intValue, one(['eq', '==', 'ne', '!=', 'lt', '<', 'le', '<=', 'gt', '>', 'ge', '>=', '&', 'bitwise_and']), intLiteral),
  fc.tuple(intValue, fc.constant('in'), set(intItem)),
);
const ipComparison = fc.oneof(
  fc.tuple(one(IP_FIELDS), one(['eq', '==', 'ne', '!=']), address),
  fc.tuple(one(IP_FIELDS), fc.constant('in'), fc.oneof(set(ipItem), fc.constant('$cf.open_proxies'))),
);

const comparison = fc.oneof(
  fc.oneof(bytesComparison, intComparison, ipComparison).map(([lhs, op, rhs]) => `${lhs} ${op} ${rhs}`),
  one(BOOL_FIELDS),
  fc.tuple(one(['any', 'all']), one(['eq', 'ne', 'contains']), stringLiteral).map(
    ([q, op, lit]) => `${q}(http.request.headers.names[*] ${op} ${lit})`,
  ),
  stringLiteral.map((lit) => `starts_with(http.request.uri.path, ${lit})`),
);

const { expression } = fc.letrec<{ expression: string }>((tie) => ({
  expression: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    comparison,
    fc.tuple(one(['not ', '!', 'not\n']), tie('expression')).map(([not, e]) => `${not}${e}`),
    tie('expression').map((e) => `(${e})`),
    fc
      .tuple(tie('expression'), one(['and', '&&', 'or', '||', 'xor', '^^']), tie('expression'), spaces)
      .map(([a, op, b, s]) => `${a}${s}${op}${s}${b}`),
  ),
}));

/** Valid expressions short enough for the length limit. */
export const validExpression = expression.filter((e) => [...e].length <= 2000);
