/**
 * `in`: membership in a literal set or in a named list. Integer ranges and
 * IP networks and ranges are kept as inclusive bounds.
 */
import { type SetItem, type SetLiteral, utf8ToBinary, Cursor, FilterError, type FilterType } from '../language';
import { type IpValue, hostMask, parseIp, lexIpSetItem } from '../literals';
import { type Runtime, isIp } from './runtime';

/** Entries of a list: addresses, networks or ranges for IP lists, numbers for integer lists, strings otherwise. */
export type ListValues = readonly (string | number | bigint)[];

interface Bounds<T> {
  readonly from: T;
  readonly to: T;
}

interface IpBounds extends Bounds<bigint> {
  readonly v6: boolean;
}

function ip(text: string): IpValue {
  const value = parseIp(text);
  if (!value) throw new Error(`unreadable address in a checked tree: ${text}`);
  return value;
}

function ipBounds(item: SetItem): IpBounds | undefined {
  switch (item.kind) {
    case 'ip': {
      const a = ip(item.address);
      return { v6: a.v6, from: a.value, to: a.value };
    }
    case 'ip-cidr': {
      const a = ip(item.address);
      return { v6: a.v6, from: a.value, to: a.value | hostMask(a.v6, item.prefix) };
    }
    case 'ip-range': {
      const from = ip(item.from);
      return { v6: from.v6, from: from.value, to: ip(item.to).value };
    }
    default:
      return undefined;
  }
}

function intBounds(item: SetItem): Bounds<bigint> | undefined {
  if (item.kind === 'int') return { from: item.value, to: item.value };
  if (item.kind === 'int-range') return { from: item.from, to: item.to };
  return undefined;
}

function matcherFor(items: readonly SetItem[]): (value: Runtime) => boolean {
  const bytes = new Set(items.flatMap((i) => (i.kind === 'bytes' ? [i.value] : [])));
  const ints = items.map(intBounds).filter((b) => b !== undefined);
  const ips = items.map(ipBounds).filter((b) => b !== undefined);
  return (value) => {
    if (typeof value === 'string') return bytes.has(value);
    if (typeof value === 'bigint') return ints.some((b) => value >= b.from && value <= b.to);
    return isIp(value) && ips.some((b) => b.v6 === value.v6 && value.value >= b.from && value.value <= b.to);
  };
}

export function setMatcher(set: SetLiteral): (value: Runtime) => boolean {
  return matcherFor(set.items);
}

/** Reads one IP list entry with the set-item syntax (address, CIDR or range). */
function ipListItem(entry: string): SetItem {
  const c = new Cursor(entry, 0, entry.length);
  try {
    const item = lexIpSetItem(c);
    if (c.atEnd) return item;
  } catch (error) {
    if (!(error instanceof FilterError)) throw error;
    throw new TypeError(`list entry ${JSON.stringify(entry)} is not an IP address, network or range: ${error.reason}`);
  }
  throw new TypeError(`list entry ${JSON.stringify(entry)} is not an IP address, network or range`);
}

export function listMatcher(entries: ListValues | undefined, type: FilterType): (value: Runtime) => boolean {
  if (!entries) return () => false;
  const span = { start: 0, end: 0 };
  const items: SetItem[] = entries.map((entry) => {
    if (type === 'Ip') return ipListItem(String(entry));
    if (type === 'Int') return { kind: 'int', value: BigInt(entry), span };
    return { kind: 'bytes', value: utf8ToBinary(String(entry)), style: 'quoted', hashes: 0, span };
  });
  return matcherFor(items);
}
