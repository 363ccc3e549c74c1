/**
 * Who a live request comes from. The address is the socket's, unless the socket is one of the
 * trusted proxies: then `cf-connecting-ip`, else the nearest address of `x-forwarded-for` that is
 * not a trusted proxy, is believed (so a test on localhost can be 203.0.113.7). What the platform
 * would know of that address (country, ASN, bot score...) comes from a small table of address
 * ranges: the most specific range holding it wins; an address in none is unknown (its fields are
 * missing, as the simulator leaves them without overrides).
 */
import ipaddr from 'ipaddr.js';
import type { FieldOverrides } from './context';
import { isIpAddress } from './ip';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address (`203.0.113.7`) or a range (`203.0.113.0/24`, `2001:db8::/32`): parsed, or the reason it is not one. */
export function parseRange(text: string): Range | string {
  try {
    if (text.includes('/')) {
      return ipaddr.parseCIDR(text);
    }
    if (!isIpAddress(text)) return `"${text}" is not an IPv4 or IPv6 address or range`;
    const address = ipaddr.parse(text);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return `"${text}" is not an IPv4 or IPv6 address or range (such as 203.0.113.0/24)`;
  }
}

function contains([base, bits]: Range, address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return address.kind() === base.kind() && address.match(base, bits);
}

/** An IPv4 address as Node writes a socket's: four decimal numbers of at most 255, no leading zeros. */
const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** The address as the rules language writes it: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as IPv4. */
export function plainAddress(text: string): string {
  // A socket's own address is already written plainly (Node writes IPv4 dotted, mapped ones with
  // its prefix): no parse for the address every request has.
  if (DOTTED_QUAD.test(text)) return text;
  if (text.startsWith('::ffff:') && DOTTED_QUAD.test(text.slice(7))) return text.slice(7);
  try {
    const address = ipaddr.parse(text);
    return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address().toString() : address.toString();
  } catch {
    return text;
  }
}

export interface ClientEntry {
  /** The range, as written (for messages). */
  range: string;
  /** The fields the platform knows for addresses of the range (`ip.src.country`, `ip.src.asnum`...). */
  fields: FieldOverrides;
}

export class ClientTable {
  readonly #entries: { range: Range; fields: FieldOverrides }[];

  /** Entries with ranges already checked (parseRange): an unreadable one throws a RangeError. */
  constructor(entries: readonly ClientEntry[]) {
    this.#entries = entries.map((entry) => {
      const range = parseRange(entry.range);
      if (typeof range === 'string') throw new RangeError(range);
      return { range, fields: entry.fields };
    });
    // Most specific first; among equals, the first written.
    this.#entries.sort((a, b) => b.range[1] - a.range[1]);
  }

  /** The fields of the most specific range holding the address; none when it is in no range. */
  fieldsOf(address: string | undefined): FieldOverrides {
    if (address === undefined || this.#entries.length === 0) return {};
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.parse(address);
    } catch {
      return {};
    }
    return this.#entries.find((entry) => contains(entry.range, parsed))?.fields ?? {};
  }
}

export class TrustedProxies {
  readonly #ranges: Range[];

  constructor(ranges: readonly string[]) {
    this.#ranges = ranges.map((text) => {
      const range = parseRange(text);
      if (typeof range === 'string') throw new RangeError(range);
      return range;
    });
  }

  get size(): number {
    return this.#ranges.length;
  }

  has(address: string): boolean {
    if (this.#ranges.length === 0) return false;
    try {
      const parsed = ipaddr.parse(address);
      return this.#ranges.some((range) => contains(range, parsed));
    } catch {
      return false;
    }
  }

  /**
   * The client's address: the socket's, or, when the socket is a trusted proxy, the address it
   * vouches for: `cf-connecting-ip`, else the last address of `x-forwarded-for` (nearest first)
   * that is not a trusted proxy itself, else the first one written. Values that are not addresses
   * are never believed.
   */
  clientAddress(socketAddress: string, connectingIp: string | undefined, forwardedFor: string | undefined): string {
    const socket = plainAddress(socketAddress);
    if (!this.has(socket)) return socket;
    const vouched = connectingIp?.trim();
    if (vouched && isIpAddress(vouched)) return plainAddress(vouched);
    const chain = (forwardedFor ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter(isIpAddress)
      .map(plainAddress);
    for (let i = chain.length - 1; i >= 0; i--) if (!this.has(chain[i]!)) return chain[i]!;
    return chain[0] ?? socket;
  }
}
