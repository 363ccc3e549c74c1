import ipaddr from 'ipaddr.js';

/** A plain IPv4 (four decimal parts) or IPv6 address, as the rules language reads them (no zone index). */
export function isIpAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (ipaddr.IPv6.isValid(text) && !text.includes('%'));
}
