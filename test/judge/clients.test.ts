// Who a live request comes from: the socket, or what a trusted proxy vouches for; and what the
// platform knows of that address, from the table of address ranges.
import { describe, expect, it } from 'vitest';
import { ClientTable, TrustedProxies, parseRange, plainAddress } from '../../src/judge';

describe('trusted proxies', () => {
  const proxies = new TrustedProxies(['127.0.0.1', '10.0.0.0/8', '::1']);

  it('believes nothing from a socket that is not a trusted proxy', () => {
    expect(new TrustedProxies([]).clientAddress('127.0.0.1', '203.0.113.7', '198.51.100.1')).toBe('127.0.0.1');
    expect(proxies.clientAddress('192.0.2.10', '203.0.113.7', '198.51.100.1')).toBe('192.0.2.10');
  });

  it('believes cf-connecting-ip from a trusted proxy, IPv4-mapped addresses read as IPv4', () => {
    expect(proxies.clientAddress('::ffff:127.0.0.1', '203.0.113.7', undefined)).toBe('203.0.113.7');
    expect(proxies.clientAddress('::1', ' 2001:db8::7 ', undefined)).toBe('2001:db8::7');
  });

  it('else takes the nearest x-forwarded-for address that is not a trusted proxy', () => {
    expect(proxies.clientAddress('127.0.0.1', undefined, '203.0.113.7, 198.51.100.9, 10.1.2.3')).toBe('198.51.100.9');
    expect(proxies.clientAddress('127.0.0.1', undefined, '10.0.0.2, 10.1.2.3')).toBe('10.0.0.2');
  });

  it('never believes a value that is not an address', () => {
    expect(proxies.clientAddress('127.0.0.1', 'evil', 'not-an-ip, 203.0.113.8')).toBe('203.0.113.8');
    expect(proxies.clientAddress('127.0.0.1', '', '')).toBe('127.0.0.1');
  });
});

describe('the table of clients', () => {
  const table = new ClientTable([
    { range: '203.0.113.0/24', fields: { 'ip.src.country': 'FR', 'ip.src.asnum': 64500 } },
    { range: '203.0.113.7', fields: { 'ip.src.country': 'DE', 'cf.bot_management.score': 2 } },
    { range: '2001:db8::/32', fields: { 'ip.src.country': 'JP' } },
  ]);

  it('gives the fields of the most specific range holding the address', () => {
    expect(table.fieldsOf('203.0.113.7')).toEqual({ 'ip.src.country': 'DE', 'cf.bot_management.score': 2 });
    expect(table.fieldsOf('203.0.113.8')).toEqual({ 'ip.src.country': 'FR', 'ip.src.asnum': 64500 });
    expect(table.fieldsOf('2001:db8::1')).toEqual({ 'ip.src.country': 'JP' });
  });

  it('knows nothing of an address in no range, or of no address', () => {
    expect(table.fieldsOf('198.51.100.1')).toEqual({});
    expect(table.fieldsOf(undefined)).toEqual({});
  });

  it('refuses what is not an address or a range, saying so', () => {
    expect(parseRange('203.0.113.0/33')).toMatch(/not an IPv4 or IPv6 address or range/);
    expect(parseRange('example.org')).toMatch(/not an IPv4 or IPv6 address/);
    expect(() => new ClientTable([{ range: '1.2.3', fields: {} }])).toThrow(RangeError);
  });
});

describe('plainAddress', () => {
  it('writes addresses as the rules language does, socket addresses without a parse and the rest through one', () => {
    expect(['127.0.0.1', '::ffff:203.0.113.7', '::FFFF:198.51.100.1', '2001:DB8::1', '::1', '256.1.1.1', 'not an address'].map(plainAddress)).toEqual([
      '127.0.0.1',
      '203.0.113.7',
      '198.51.100.1',
      '2001:db8::1',
      '::1',
      '256.1.1.1',
      'not an address',
    ]);
  });
});
