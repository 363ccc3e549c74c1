/**
 * IPv4 and IPv6 addresses as 32- or 128-bit integers, read with the rules of
 * the engine's address parser: dotted quads without leading zeros; IPv6 groups
 * of one to four hex digits, one `::` standing for at least one zero group, and
 * an optional dotted quad in the last 32 bits (`::1.2.3.4` is IPv4-compatible,
 * not IPv4-mapped). Written by hand because ipaddr.js reads `::1.2.3.4` as
 * `::ffff:1.2.3.4` and accepts zone suffixes the engine refuses.
 */
export interface IpValue {
  readonly v6: boolean;
  readonly value: bigint;
}

const OCTET = '(0|[1-9][0-9]{0,2})';
/** A dotted quad in one match (rules are read often, and block lists hold hundreds of addresses). */
const DOTTED_QUAD = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);
const GROUP = /^[0-9a-fA-F]{1,4}$/;

export function familyBits(v6: boolean): number {
  return v6 ? 128 : 32;
}

function parseIpv4(text: string): bigint | undefined {
  const match = DOTTED_QUAD.exec(text);
  if (!match) return undefined;
  let value = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(match[i]);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return BigInt(value);
}

/** The 16-bit groups of one side of `::`; a dotted quad may end the last side. */
function parseGroups(text: string, mayEndWithIpv4: boolean): bigint[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: bigint[] = [];
  for (const [i, part] of parts.entries()) {
    if (mayEndWithIpv4 && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(v4 >> 16n, v4 & 0xffffn);
    } else if (GROUP.test(part)) {
      groups.push(BigInt(Number.parseInt(part, 16)));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIpv6(text: string): bigint | undefined {
  const gap = text.indexOf('::');
  let groups: bigint[];
  if (gap === -1) {
    const all = parseGroups(text, true);
    if (all?.length !== 8) return undefined;
    groups = all;
  } else {
    const head = parseGroups(text.slice(0, gap), false);
    const tail = parseGroups(text.slice(gap + 2), true);
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    groups = [...head, ...Array<bigint>(8 - head.length - tail.length).fill(0n), ...tail];
  }
  return groups.reduce((value, group) => (value << 16n) | group, 0n);
}

export function parseIp(text: string): IpValue | undefined {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === undefined ? undefined : { v6: true, value };
  }
  const value = parseIpv4(text);
  return value === undefined ? undefined : { v6: false, value };
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatIp(ip: IpValue): string {
  if (!ip.v6) {
    const value = Number(ip.value);
    return `${value >>> 24}.${(value >>> 16) & 0xff}.${(value >>> 8) & 0xff}.${value & 0xff}`;
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** The host-bit mask of a network of `prefix` bits. */
export function hostMask(v6: boolean, prefix: number): bigint {
  return (1n << BigInt(familyBits(v6) - prefix)) - 1n;
}
