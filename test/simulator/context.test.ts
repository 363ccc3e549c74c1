// The request context a description yields (every field the rules language derives from it, the
// platform's defaults, the overrides), and the refusal of descriptions that are not requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DescriptionIssue, InvalidRequestDescriptionError, UnknownZoneError, simulate } from '../../src/simulator';
import type { Store } from '../../src/store';
import { NOW, NOW_MS, PRO, fixture, openStore } from './helpers';

let store: Store;
beforeAll(async () => {
  store = await openStore();
});
afterAll(async () => {
  await store?.close();
});

async function contextOf(description: Record<string, unknown>) {
  return (await simulate(store, PRO, description)).context;
}

describe('the URL', () => {
  it('gives raw fields as sent and the others after URL normalization (path only)', async () => {
    const result = await simulate(store, PRO, {
      method: 'GET',
      url: 'https://Example.ORG:8443/a/%2e%2e/b//c\\d/Report.PDF?x=%3Cb%3E&y=1&y=2&flag#top',
    });
    expect(result.context).toMatchObject({
      'http.host': 'example.org',
      ssl: true,
      'cf.edge.server_port': 8443,
      'http.request.uri.path': '/b/c/d/Report.PDF',
      'raw.http.request.uri.path': '/a/%2e%2e/b//c\\d/Report.PDF',
      'http.request.uri.path.extension': 'pdf',
      'http.request.uri': '/b/c/d/Report.PDF?x=%3Cb%3E&y=1&y=2&flag',
      'raw.http.request.uri': '/a/%2e%2e/b//c\\d/Report.PDF?x=%3Cb%3E&y=1&y=2&flag',
      'http.request.full_uri': 'https://example.org:8443/b/c/d/Report.PDF?x=%3Cb%3E&y=1&y=2&flag',
      'raw.http.request.full_uri': 'https://example.org:8443/a/%2e%2e/b//c\\d/Report.PDF?x=%3Cb%3E&y=1&y=2&flag',
      'http.request.uri.query': 'x=%3Cb%3E&y=1&y=2&flag',
      'http.request.uri.args': { x: ['%3Cb%3E'], y: ['1', '2'], flag: [''] },
      'http.request.uri.args.names': ['x', 'y', 'y', 'flag'],
      'http.request.uri.args.values': ['%3Cb%3E', '1', '2', ''],
      'raw.http.request.uri.args': { x: ['%3Cb%3E'], y: ['1', '2'], flag: [''] },
    });
    expect(result.warnings).toContain("the url's fragment #top is never sent; it was ignored");
  });

  it('percent-encodes what a client cannot send in a request line (spaces, non-ASCII)', async () => {
    const context = await contextOf({ method: 'GET', url: "https://example.org/caf\u00e9 menu?q=1' or 1=1-- " });
    expect(context['raw.http.request.uri.path']).toBe('/caf%C3%A9%20menu');
    expect(context['http.request.uri.query']).toBe("q=1'%20or%201=1--%20");
  });

  it('takes an IPv6 literal host, with a matching Host header', async () => {
    const context = await contextOf({ method: 'GET', url: 'https://[2001:DB8::1]:8443/', headers: { Host: '[2001:db8::1]:8443' } });
    expect(context).toMatchObject({ 'http.host': '[2001:db8::1]', 'cf.edge.server_port': 8443, 'http.request.full_uri': 'https://[2001:db8::1]:8443/' });
  });

  it('over plain http: no TLS, port 80, HTTP/1.1 by default', async () => {
    const context = await contextOf({ method: 'GET', url: 'http://example.org/' });
    expect(context).toMatchObject({ ssl: false, 'cf.edge.server_port': 80, 'http.request.version': 'HTTP/1.1', 'http.request.full_uri': 'http://example.org/' });
    expect(context['cf.tls_version']).toBeUndefined();
    expect(context['cf.tls_cipher']).toBeUndefined();
  });
});

describe('headers and cookies', () => {
  it('HTTP/1.1 keeps header names as written; the map has lower-case names and every instance', async () => {
    const context = await contextOf({
      method: 'POST',
      url: 'http://example.org/form',
      headers: { 'User-Agent': 'curl/8.5.0', 'X-Forwarded-For': ['192.0.2.1', '192.0.2.2'], 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.5, fr;q=0.95' },
      body: 'a=1',
    });
    expect(context['http.request.headers.names']).toEqual(['Host', 'User-Agent', 'X-Forwarded-For', 'X-Forwarded-For', 'Accept-Language', 'Content-Length']);
    expect(context['http.request.headers']).toEqual({
      host: ['example.org'],
      'user-agent': ['curl/8.5.0'],
      'x-forwarded-for': ['192.0.2.1', '192.0.2.2'],
      'accept-language': ['de-DE,de;q=0.9,en;q=0.5, fr;q=0.95'],
      'content-length': ['3'],
    });
    expect(context).toMatchObject({
      'http.user_agent': 'curl/8.5.0',
      'http.referer': '',
      'http.x_forwarded_for': '192.0.2.1, 192.0.2.2',
      'http.request.accepted_languages': ['de-DE', 'fr', 'de', 'en'],
    });
  });

  it('HTTP/2 (the https default) sends header names in lower case', async () => {
    const context = await contextOf({ method: 'GET', url: 'https://example.org/', headers: { 'User-Agent': 'curl/8.5.0', Host: 'example.org' } });
    expect(context['http.request.headers.names']).toEqual(['user-agent', 'host']);
    expect(context['http.request.version']).toBe('HTTP/2');
  });

  it('cookies join the Cookie header; names are URL-decoded, values kept, repeats in order', async () => {
    const context = await contextOf({
      method: 'GET',
      url: 'https://example.org/',
      headers: { Cookie: 'theme=dark; b%20x=2' },
      cookies: { sessionId: ['s1', 's2'] },
    });
    expect(context['http.cookie']).toBe('theme=dark; b%20x=2; sessionId=s1; sessionId=s2');
    expect(context['http.request.cookies']).toEqual({ theme: ['dark'], 'b x': ['2'], sessionId: ['s1', 's2'] });
  });
});

describe('the body', () => {
  it('a form body fills the form fields, undecoded', async () => {
    const context = await contextOf(fixture('sqli-form-body'));
    expect(context).toMatchObject({
      'http.request.body.raw': 'user=admin&password=x%27+or+%271%27%3D%271',
      'http.request.body.size': 42,
      'http.request.body.mime': 'application/x-www-form-urlencoded',
      'http.request.body.form': { user: ['admin'], password: ['x%27+or+%271%27%3D%271'] },
      'http.request.body.form.names': ['user', 'password'],
      'http.request.body.truncated': false,
      'http.request.body.multipart': {},
    });
  });

  it('a multipart body fills the multipart fields, part by part', async () => {
    const body = [
      '--XyZ',
      'Content-Disposition: form-data; name="title"',
      '',
      'Holiday',
      '--XyZ',
      'Content-Disposition: form-data; name="upload"; filename="shell.php"',
      'Content-Type: application/x-php',
      '',
      '<?php system($_GET["c"]); ?>',
      '--XyZ--',
      '',
    ].join('\r\n');
    const context = await contextOf({ method: 'POST', url: 'https://example.org/upload', headers: { 'Content-Type': 'multipart/form-data; boundary=XyZ' }, body });
    expect(context).toMatchObject({
      'http.request.body.mime': 'multipart/form-data',
      'http.request.body.multipart': { title: ['Holiday'], upload: ['<?php system($_GET["c"]); ?>'] },
      'http.request.body.multipart.names': [['title'], ['upload']],
      'http.request.body.multipart.values': ['Holiday', '<?php system($_GET["c"]); ?>'],
      'http.request.body.multipart.filenames': [[], ['shell.php']],
      'http.request.body.multipart.content_types': [[], ['application/x-php']],
      'http.request.body.multipart.content_dispositions': [['form-data; name="title"'], ['form-data; name="upload"; filename="shell.php"']],
      'http.request.body.form': {},
    });
  });

  it('rules see only the first 128 KiB of a larger body', async () => {
    const body = 'a'.repeat(128 * 1024 + 10);
    const result = await simulate(store, PRO, { method: 'POST', url: 'https://example.org/', body });
    expect(result.context['http.request.body.size']).toBe(body.length);
    expect(result.context['http.request.body.truncated']).toBe(true);
    expect((result.context['http.request.body.raw'] as string).length).toBe(128 * 1024);
    expect(result.warnings).toContain('the body is larger than the 131072 bytes the edge inspects: rules saw only its start');
  });
});

describe('platform fields', () => {
  it('defaults: the store clock, a random ray id, TLS 1.3 over https, ip.src from client_ip', async () => {
    const result = await simulate(store, PRO, { method: 'GET', url: 'https://example.org/', client_ip: '2001:db8::7' });
    expect(result.context).toMatchObject({
      'http.request.timestamp.sec': NOW_MS / 1000,
      'http.request.timestamp.msec': NOW_MS,
      'cf.tls_version': 'TLSv1.3',
      'cf.tls_cipher': 'AEAD-AES128-GCM-SHA256',
      'ip.src': '2001:db8::7',
    });
    expect(result.context['cf.ray_id']).toMatch(/^[0-9a-f]{16}$/);
    expect(result.request.timestamp).toBe(NOW.replace('.000000Z', '.000Z'));
  });

  it('overrides supply geolocation, scores and the like; the deprecated ip.geoip fields follow ip.src', async () => {
    const context = await contextOf({
      method: 'GET',
      url: 'https://example.org/',
      overrides: {
        'ip.src.country': 'DE',
        'ip.src.asnum': 64496,
        'ip.src.is_in_european_union': true,
        'cf.bot_management.score': 3,
        'cf.bot_management.detection_ids': [201326592],
        'cf.threat_score': 14,
        'cf.edge.server_ip': '192.0.2.80',
        'cf.tls_version': 'TLSv1.2',
        'cf.ray_id': '8e2f4c1a9b3d7e60',
        'http.request.timestamp.sec': 1700000000,
      },
    });
    expect(context).toMatchObject({
      'ip.src.country': 'DE',
      'ip.geoip.country': 'DE',
      'ip.geoip.asnum': 64496,
      'ip.geoip.is_in_european_union': true,
      'cf.bot_management.score': 3,
      'cf.threat_score': 14,
      'cf.edge.server_ip': '192.0.2.80',
      'cf.tls_version': 'TLSv1.2',
      'cf.ray_id': '8e2f4c1a9b3d7e60',
      'http.request.timestamp.sec': 1700000000,
      'http.request.timestamp.msec': 1700000000000,
    });
  });

  it('the time option sets the request time when no override does', async () => {
    const result = await simulate(store, PRO, { method: 'GET', url: 'https://example.org/' }, { now: new Date('2027-01-02T03:04:05.678Z'), rayId: 'feedfacecafebeef' });
    expect(result.context).toMatchObject({ 'http.request.timestamp.msec': Date.parse('2027-01-02T03:04:05.678Z'), 'cf.ray_id': 'feedfacecafebeef' });
    await expect(simulate(store, PRO, { method: 'GET', url: 'https://example.org/' }, { now: new Date('not a date') })).rejects.toThrow(
      new RangeError('options.now is an invalid Date'),
    );
  });
});

describe('descriptions that are not requests', () => {
  const valid = { method: 'GET', url: 'https://example.org/' };
  const cases: [string, unknown, DescriptionIssue[]][] = [
    ['not an object', 'GET /', [{ path: '', message: 'the request description must be a JSON object with at least method and url' }]],
    ['an empty object', {}, [{ path: 'method', message: 'is required' }, { path: 'url', message: 'is required' }]],
    ['a method with a space', { ...valid, method: 'GET /' }, [{ path: 'method', message: 'must be an HTTP method such as GET or POST' }]],
    ['a relative URL', { ...valid, url: 'example.org/x' }, [{ path: 'url', message: 'must be an absolute URL such as https://example.org/path?query' }]],
    ['an ftp URL', { ...valid, url: 'ftp://example.org/x' }, [{ path: 'url', message: 'scheme ftp is not simulated (use http or https)' }]],
    ['credentials in the URL', { ...valid, url: 'https://user:pw@example.org/' }, [{ path: 'url', message: 'must not carry credentials (user:password@)' }]],
    ['a header name with a space', { ...valid, headers: { 'Bad Name': 'x' } }, [{ path: 'headers.Bad Name', message: 'is not a header name (an HTTP token)' }]],
    ['a URL over 16384 characters', { ...valid, url: `https://example.org/${'a'.repeat(16384)}` }, [{ path: 'url', message: 'must be at most 16384 characters' }]],
    [
      'more than 200 headers',
      { ...valid, headers: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`x-h-${i}`, 'v'])) },
      [{ path: 'headers', message: 'must have at most 200 entries' }],
    ],
    ['a header without values', { ...valid, headers: { Accept: [] } }, [{ path: 'headers.Accept', message: 'must list at least one value' }]],
    ['a header value that is a number', { ...valid, headers: { Accept: 3 } }, [{ path: 'headers.Accept', message: 'must be a string or a non-empty array of strings' }]],
    [
      'a Host header naming another host',
      { ...valid, headers: { Host: 'evil.example' } },
      [{ path: 'headers.Host', message: 'must name the url\'s host example.org once (the edge routes by it), got "evil.example"' }],
    ],
    ['a client IP that is not one', { ...valid, client_ip: '300.1.1.1' }, [{ path: 'client_ip', message: 'must be an IPv4 or IPv6 address' }]],
    ['a client IP with a zone index', { ...valid, client_ip: 'fe80::1%eth0' }, [{ path: 'client_ip', message: 'must be an IPv4 or IPv6 address' }]],
    ['an unknown HTTP version', { ...valid, http_version: 'HTTP/4' }, [{ path: 'http_version', message: 'must be one of HTTP/1.0, HTTP/1.1, HTTP/2, HTTP/3' }]],
    ['HTTP/3 without TLS', { ...valid, url: 'http://example.org/', http_version: 'HTTP/3' }, [{ path: 'http_version', message: 'HTTP/3 runs over QUIC, which needs https' }]],
    ['a body that is not text', { ...valid, body: { a: 1 } }, [{ path: 'body', message: 'must be a string (the raw request body)' }]],
    ['an unknown field', { ...valid, verb: 'GET' }, [{ path: '', message: 'unknown field verb' }]],
    ['a response without status', { ...valid, response: { headers: {} } }, [{ path: 'response.status', message: 'is required' }]],
    ['a response status out of range', { ...valid, response: { status: 99 } }, [{ path: 'response.status', message: 'must be 100 to 599' }]],
    ['an override of an unknown field', { ...valid, overrides: { 'ip.src.planet': 'Mars' } }, [{ path: 'overrides.ip.src.planet', message: 'is not a field of the rules language' }]],
    [
      'an override of a field the request determines',
      { ...valid, overrides: { 'http.user_agent': 'x' } },
      [{ path: 'overrides.http.user_agent', message: 'is derived from headers; describe the request instead of overriding it' }],
    ],
    ['an override of the wrong type', { ...valid, overrides: { 'cf.bot_management.score': 'low' } }, [{ path: 'overrides.cf.bot_management.score', message: 'must be an integer (Int)' }]],
    [
      'an override with an element of the wrong type',
      { ...valid, overrides: { 'cf.bot_management.detection_ids': [1, 'two'] } },
      [{ path: 'overrides.cf.bot_management.detection_ids[1]', message: 'must be an integer (Int)' }],
    ],
    ['an override with an address that is not one', { ...valid, overrides: { 'cf.edge.server_ip': '192.0.2' } }, [{ path: 'overrides.cf.edge.server_ip', message: 'must be an IPv4 or IPv6 address (Ip)' }]],
    [
      'timestamps that disagree',
      { ...valid, overrides: { 'http.request.timestamp.sec': 1700000000, 'http.request.timestamp.msec': 1800000000000 } },
      [{ path: 'overrides.http.request.timestamp.msec', message: 'names another second than http.request.timestamp.sec (1700000000)' }],
    ],
    [
      'a time before 1970',
      { ...valid, overrides: { 'http.request.timestamp.msec': -1 } },
      [{ path: 'overrides.http.request.timestamp.msec', message: 'must be a time from 1970 on, at most 8640000000000000' }],
    ],
    [
      'a time past what a clock shows',
      { ...valid, overrides: { 'http.request.timestamp.sec': 9000000000000 } },
      [{ path: 'overrides.http.request.timestamp.sec', message: 'must be a time from 1970 on, at most 8640000000000' }],
    ],
    [
      'several problems at once',
      { method: 7, url: 'mailto:a@example.org', overrides: { nope: 1 } },
      [
        { path: 'method', message: 'must be a string' },
        { path: 'url', message: 'scheme mailto is not simulated (use http or https)' },
        { path: 'overrides.nope', message: 'is not a field of the rules language' },
      ],
    ],
  ];
  it.each(cases)('refuses %s', async (_name, description, issues) => {
    const error = await simulate(store, PRO, description).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestDescriptionError);
    expect((error as InvalidRequestDescriptionError).issues).toEqual(issues);
  });

  it('refuses an unknown zone', async () => {
    const error = await simulate(store, '0123456789abcdef0123456789abcdef', fixture('benign-browser')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownZoneError);
    expect((error as Error).message).toBe('zone 0123456789abcdef0123456789abcdef not found');
  });
});
