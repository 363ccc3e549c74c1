/**
 * What each function of the catalogue computes. A missing argument gives a
 * missing result (so comparisons on it are false), as in the engine. Each
 * entry is a factory given the call's literal arguments once, at compile time,
 * so patterns are compiled once per expression rather than per request.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { asciiLower, asciiUpper, binaryToUtf8, utf8ToBinary } from '../language';
import { familyBits, formatIp, hostMask, compileDialectRegex, compileWildcard } from '../literals';
import { type MaybeValue, asArray, asBytes, asInt, asMap, isIp, sameValue } from './runtime';

type Impl = (args: readonly MaybeValue[]) => MaybeValue;
type Factory = (literals: readonly MaybeValue[]) => Impl;

const simple =
  (impl: Impl): Factory =>
  () =>
    impl;

/** `${N}` in a replacement, filled from `groups` (index 0 is the whole match when given). */
function expand(replacement: string, groups: readonly (string | undefined)[]): string {
  return replacement.replace(/\$\{(\d+)\}/g, (_, n: string) => groups[Number(n)] ?? '');
}

function maskIp(value: MaybeValue, v4Bits: MaybeValue, v6Bits: MaybeValue): MaybeValue {
  if (!isIp(value)) return undefined;
  const bits = asInt(value.v6 ? v6Bits : v4Bits);
  if (bits === undefined) return value;
  const prefix = Math.min(Number(bits), familyBits(value.v6));
  return { v6: value.v6, value: value.value & ~hostMask(value.v6, prefix) };
}

function concat(args: readonly MaybeValue[]): MaybeValue {
  if (args.some((a) => a === undefined)) return undefined;
  if (typeof args[0] === 'string') return args.join('');
  return args.flatMap((a) => asArray(a) ?? []);
}

function lookupJson(args: readonly MaybeValue[]): unknown {
  const source = asBytes(args[0]);
  if (source === undefined) return undefined;
  let node: unknown;
  try {
    node = JSON.parse(binaryToUtf8(source));
  } catch {
    return undefined;
  }
  for (const key of args.slice(1)) {
    if (typeof key === 'string' && typeof node === 'object' && node !== null && !Array.isArray(node)) {
      const name = binaryToUtf8(key);
      node = Object.hasOwn(node, name) ? (node as Record<string, unknown>)[name] : undefined;
    } else if (typeof key === 'bigint' && Array.isArray(node)) {
      node = node[Number(key)];
    } else {
      return undefined;
    }
  }
  return node;
}

function urlDecodeOnce(source: string, unicode: boolean): string {
  return source.replace(/\+|%([0-9a-fA-F]{2})|%u([0-9a-fA-F]{4})/g, (match, hex?: string, wide?: string) => {
    if (match === '+') return ' ';
    if (hex !== undefined) return String.fromCharCode(Number.parseInt(hex, 16));
    return unicode && wide !== undefined ? utf8ToBinary(String.fromCharCode(Number.parseInt(wide, 16))) : match;
  });
}

function urlDecode(args: readonly MaybeValue[]): MaybeValue {
  const source = asBytes(args[0]);
  if (source === undefined) return undefined;
  const options = asBytes(args[1]) ?? '';
  let decoded = urlDecodeOnce(source, options.includes('u'));
  // Each pass that changes the text shortens it or removes a `+`, so the loop ends.
  for (let previous = source; options.includes('r') && decoded !== previous; ) {
    previous = decoded;
    decoded = urlDecodeOnce(decoded, options.includes('u'));
  }
  return decoded;
}

function substring(args: readonly MaybeValue[]): MaybeValue {
  const source = asBytes(args[0]);
  const start = asInt(args[1]);
  if (source === undefined || start === undefined) return undefined;
  const end = asInt(args[2]);
  const position = (n: bigint): number => {
    const at = Number(n);
    return at < 0 ? Math.max(0, source.length + at) : Math.min(at, source.length);
  };
  return source.slice(position(start), end === undefined ? source.length : position(end));
}

function split(args: readonly MaybeValue[]): MaybeValue {
  const source = asBytes(args[0]);
  const separator = asBytes(args[1]);
  const limit = Number(asInt(args[2]) ?? 1n);
  if (source === undefined || separator === undefined) return undefined;
  if (separator === '') return [source];
  const parts: string[] = [];
  let at = 0;
  while (parts.length < limit - 1) {
    const found = source.indexOf(separator, at);
    if (found === -1) break;
    parts.push(source.slice(at, found));
    at = found + separator.length;
  }
  parts.push(source.slice(at));
  return parts;
}

function removeQueryArgs(args: readonly MaybeValue[]): MaybeValue {
  const query = asBytes(args[0]);
  if (query === undefined) return undefined;
  const names = new Set(args.slice(1).filter((a): a is string => typeof a === 'string'));
  return query
    .split('&')
    .filter((pair) => !names.has(pair.split('=', 1)[0] ?? ''))
    .join('&');
}

function uuidv4(args: readonly MaybeValue[]): MaybeValue {
  const seed = asBytes(args[0]);
  if (seed === undefined || seed.length < 16) return undefined;
  const bytes = Array.from(seed.slice(0, 16), (ch) => ch.charCodeAt(0));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function toStringValue(args: readonly MaybeValue[]): MaybeValue {
  const [value] = args;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return String(value);
  return isIp(value) ? formatIp(value) : undefined;
}

function decodeBase64(args: readonly MaybeValue[]): MaybeValue {
  const source = asBytes(args[0]);
  if (source === undefined) return undefined;
  try {
    return atob(source);
  } catch {
    return undefined;
  }
}

/**
 * `<message><separator><timestamp>-<base64 MAC>`: valid when the MAC is the
 * HMAC-SHA256 of message and timestamp under the key and the timestamp is at
 * most `ttl` seconds old. The MAC is URL-encoded unless the flags hold `s`.
 */
function timedHmacValid(args: readonly MaybeValue[]): MaybeValue {
  const [key, token, ttl, now, separator, flags] = [
    asBytes(args[0]),
    asBytes(args[1]),
    asInt(args[2]),
    asInt(args[3]),
    asInt(args[4]) ?? 0n,
    asBytes(args[5]) ?? '',
  ];
  if (key === undefined || token === undefined || ttl === undefined || now === undefined) return undefined;
  const dash = token.lastIndexOf('-');
  const timestamp = /(\d+)$/.exec(token.slice(0, dash))?.[1];
  if (dash === -1 || timestamp === undefined) return false;
  const message = token.slice(0, dash - timestamp.length - Number(separator));
  const mac = flags.includes('s') ? token.slice(dash + 1) : urlDecodeOnce(token.slice(dash + 1), false);
  const expected = createHmac('sha256', Buffer.from(key, 'latin1'))
    .update(Buffer.from(message + timestamp, 'latin1'))
    .digest('base64');
  const age = now - BigInt(timestamp);
  const given = Buffer.from(mac, 'latin1');
  const wanted = Buffer.from(expected, 'latin1');
  return age >= 0n && age <= ttl && given.length === wanted.length && timingSafeEqual(given, wanted);
}

function regexReplace(literals: readonly MaybeValue[]): Impl {
  const regex = compileDialectRegex(binaryToUtf8(asBytes(literals[1]) ?? ''));
  const replacement = binaryToUtf8(asBytes(literals[2]) ?? '');
  return (args) => {
    const source = asBytes(args[0]);
    if (source === undefined) return undefined;
    const text = binaryToUtf8(source);
    const matcher = regex.matcher(text);
    if (!matcher.find()) return source;
    const groups = Array.from({ length: matcher.groupCount() + 1 }, (_, i) => matcher.group(i) ?? undefined);
    return utf8ToBinary(text.slice(0, matcher.start()) + expand(replacement, groups) + text.slice(matcher.end()));
  };
}

function wildcardReplace(literals: readonly MaybeValue[]): Impl {
  const caseSensitive = (asBytes(literals[3]) ?? '').includes('s');
  const wildcard = compileWildcard(asBytes(literals[1]) ?? '', caseSensitive);
  const replacement = asBytes(literals[2]) ?? '';
  return (args) => {
    const source = asBytes(args[0]);
    if (source === undefined) return undefined;
    const captures = wildcard.captures(source);
    return captures ? expand(replacement, [source, ...captures]) : source;
  };
}

export const FUNCTION_LIBRARY: Readonly<Record<string, Factory>> = {
  cidr: simple((args) => maskIp(args[0], args[1], args[2])),
  cidr6: simple((args) => maskIp(args[0], undefined, args[1])),
  concat: simple(concat),
  decode_base64: simple(decodeBase64),
  ends_with: simple(([s, suffix]) => (typeof s === 'string' && typeof suffix === 'string' ? s.endsWith(suffix) : undefined)),
  starts_with: simple(([s, prefix]) =>
    typeof s === 'string' && typeof prefix === 'string' ? s.startsWith(prefix) : undefined,
  ),
  has_key: simple(([map, key]) => {
    const entries = asMap(map);
    return entries && typeof key === 'string' ? entries.has(binaryToUtf8(key)) : undefined;
  }),
  has_value: simple(([collection, value]) => {
    if (value === undefined) return undefined;
    const items = asArray(collection) ?? [...(asMap(collection)?.values() ?? [])];
    return items.some((item) => sameValue(item, value));
  }),
  join: simple(([items, separator]) => {
    const list = asArray(items);
    return list && typeof separator === 'string' ? list.filter((i) => typeof i === 'string').join(separator) : undefined;
  }),
  len: simple(([value]) => {
    if (typeof value === 'string') return BigInt(value.length);
    const list = asArray(value);
    return list ? BigInt(list.length) : undefined;
  }),
  lookup_json_integer: simple((args) => {
    const found = lookupJson(args);
    return typeof found === 'number' && Number.isInteger(found) ? BigInt(found) : undefined;
  }),
  lookup_json_string: simple((args) => {
    const found = lookupJson(args);
    return typeof found === 'string' ? utf8ToBinary(found) : undefined;
  }),
  lower: simple(([s]) => (typeof s === 'string' ? asciiLower(s) : undefined)),
  upper: simple(([s]) => (typeof s === 'string' ? asciiUpper(s) : undefined)),
  regex_replace: regexReplace,
  remove_bytes: simple(([s, bytes]) => {
    if (typeof s !== 'string' || typeof bytes !== 'string') return undefined;
    const removed = new Set(bytes);
    return Array.from(s).filter((ch) => !removed.has(ch)).join('');
  }),
  remove_query_args: simple(removeQueryArgs),
  split: simple(split),
  substring: simple(substring),
  to_string: simple(toStringValue),
  url_decode: simple(urlDecode),
  uuidv4: simple(uuidv4),
  wildcard_replace: wildcardReplace,
  is_timed_hmac_valid_v0: simple(timedHmacValid),
};
