// A live request as the judgment reads it: the request line and headers as sent, the Host's name
// and port, an absolute-form target reduced to its path.
import { describe, expect, it } from 'vitest';
import { liveRequest, requestFields, type LiveRequestParts } from '../../src/judge';

const parts = (overrides: Partial<LiveRequestParts>): LiveRequestParts => ({
  method: 'GET',
  url: '/',
  httpVersion: '1.1',
  rawHeaders: ['Host', 'example.org'],
  scheme: 'http',
  clientIp: '203.0.113.7',
  body: '',
  bodySize: 0,
  timestampMs: 0,
  rayId: '0123456789abcdef',
  ...overrides,
});

describe('a live request', () => {
  it('keeps the target and header lines as sent, the cookies read from them', () => {
    const request = liveRequest(parts({ url: '/a/%2e%2e/b?x=1&y', rawHeaders: ['Host', 'Example.ORG:8080', 'Cookie', 'a=1; b=2', 'X-Twice', '1', 'x-twice', '2'] }));
    expect(request.target).toEqual({ scheme: 'http', host: 'example.org', port: 8080, explicitPort: true, rawPath: '/a/%2e%2e/b', rawQuery: 'x=1&y', droppedFragment: null });
    expect(request.headers).toEqual([['Host', 'Example.ORG:8080'], ['Cookie', 'a=1; b=2'], ['X-Twice', '1'], ['x-twice', '2']]);
    expect(request.cookies).toEqual([['a', '1'], ['b', '2']]);
    const fields = requestFields(request, {});
    expect(fields).toMatchObject({ 'http.host': 'example.org', 'http.request.uri.path': '/b', 'raw.http.request.uri.path': '/a/%2e%2e/b', 'cf.edge.server_port': 8080, ssl: false });
    expect(fields['http.request.headers']).toEqual({ host: ['Example.ORG:8080'], cookie: ['a=1; b=2'], 'x-twice': ['1', '2'] });
  });

  it('reads HTTP versions, default ports, IPv6 hosts and absolute-form targets', () => {
    expect(liveRequest(parts({ httpVersion: '1.0' })).version).toBe('HTTP/1.0');
    expect(liveRequest(parts({ httpVersion: '2.0', scheme: 'https' }))).toMatchObject({ version: 'HTTP/2', target: { port: 443, explicitPort: false } });
    expect(liveRequest(parts({ rawHeaders: ['host', '[2001:db8::1]:8443'] })).target).toMatchObject({ host: '2001:db8::1', port: 8443 });
    expect(liveRequest(parts({ url: 'http://example.org/p?q' })).target).toMatchObject({ rawPath: '/p', rawQuery: 'q' });
    expect(liveRequest(parts({ url: 'http://example.org' })).target).toMatchObject({ rawPath: '/', rawQuery: null });
  });
});
