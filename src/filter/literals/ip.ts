/**
 * IP literals: a plain address after `eq`/`ne`; in sets also CIDR networks
 * (mask bounds by family, host bits zero) and `first..last` ranges of one family.
 */
import { type IpCidrItem, type IpLiteral, type IpRangeItem, type Cursor, isHexDigit } from '../language';
import { type IpValue, familyBits, formatIp, hostMask, parseIp } from './ip-address';
import { U8, parseRadix } from './radix';

const ADDRESS_ERROR = "couldn't parse address in network: invalid IP address syntax";
const isIpChar = (c: string): boolean => isHexDigit(c) || c === ':' || c === '.' || c === '/';

function takeChunk(c: Cursor): { start: number; text: string } {
  const start = c.pos;
  const text = c.takeWhile(isIpChar);
  if (text === '') c.failRest('expected IP address character');
  return { start, text };
}

function address(c: Cursor, start: number, text: string): IpValue {
  return parseIp(text) ?? c.fail(start, start + text.length, ADDRESS_ERROR);
}

export function lexIpAddress(c: Cursor): IpLiteral {
  const { start, text } = takeChunk(c);
  return { kind: 'ip', address: formatIp(address(c, start, text)), span: { start, end: c.pos } };
}

function lexRange(c: Cursor, start: number, text: string, split: number): IpRangeItem {
  const first = address(c, start, text.slice(0, split));
  const last = address(c, start + split + 2, text.slice(split + 2));
  if (first.v6 !== last.v6 || last.value < first.value) c.fail(start, c.pos, 'incompatible range bounds');
  return { kind: 'ip-range', from: formatIp(first), to: formatIp(last), span: { start, end: c.pos } };
}

function lexCidr(c: Cursor, start: number, text: string, slash: number): IpCidrItem {
  const network = address(c, start, text.slice(0, slash));
  const maskStart = start + slash + 1;
  const mask = parseRadix(text.slice(slash + 1), 10, U8);
  if (!mask.ok) c.fail(maskStart, c.pos, mask.reason);
  const prefix = Number(mask.value);
  const bits = familyBits(network.v6);
  if (prefix > bits) {
    const family = network.v6 ? 'Ipv6' : 'Ipv4';
    c.fail(start, c.pos, `invalid length for network: Network length ${prefix} is too long for ${family} (maximum: ${bits})`);
  }
  if ((network.value & hostMask(network.v6, prefix)) !== 0n) {
    c.fail(start, start + slash, 'host part of address was not zero');
  }
  return { kind: 'ip-cidr', address: formatIp(network), prefix, span: { start, end: c.pos } };
}

export function lexIpSetItem(c: Cursor): IpLiteral | IpCidrItem | IpRangeItem {
  const { start, text } = takeChunk(c);
  const split = text.indexOf('..');
  if (split !== -1) return lexRange(c, start, text, split);
  const slash = text.indexOf('/');
  if (slash !== -1) return lexCidr(c, start, text, slash);
  return { kind: 'ip', address: formatIp(address(c, start, text)), span: { start, end: c.pos } };
}
