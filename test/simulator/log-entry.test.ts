// The log entry of each http_requests log push job: the fields its logpull_options select, and the
// zone's custom fields with the spec's rules (40 fields at most, first instance of a repeated
// header or cookie, values over 8 KB truncated).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulator';
import type { Store } from '../../src/store';
import { NOW_MS, OWASP_THRESHOLD_RULE_ID, PRO, ZONE_IDS, deploy, fixture, openStore, simulateFixture } from './helpers';

let store: Store;
beforeEach(async () => {
  store = await openStore();
});
afterEach(async () => {
  await store.close();
});

async function configureCustomFields(parameters: { request_fields?: string[]; response_fields?: string[]; cookie_fields?: string[] }): Promise<void> {
  const ruleset = await store.rulesets.getEntryPoint({ zone_id: PRO }, 'http_log_custom_fields');
  const names = (list: string[] = []) => list.map((name) => ({ name }));
  await store.rulesets.update({ zone_id: PRO }, ruleset!.id, {
    rules: [
      {
        action: 'log_custom_field',
        expression: 'true',
        action_parameters: {
          request_fields: names(parameters.request_fields),
          response_fields: names(parameters.response_fields),
          cookie_fields: names(parameters.cookie_fields),
        },
      },
    ],
  });
}

/** Replaces the seeded job's field selection. */
async function selectFields(logpullOptions: string): Promise<void> {
  await store.logpushJobs.update(PRO, 1, { logpull_options: logpullOptions });
}

const range = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

describe('the seeded job of the Pro zone', () => {
  it('logs the selected fields in the job order, with the custom fields', async () => {
    const result = await simulateFixture(store, 'xss-script-tag');
    expect(result.log.custom_fields).toMatchObject({
      configured: [
        { kind: 'request_header', name: 'x-request-id' },
        { kind: 'request_header', name: 'referer' },
        { kind: 'response_header', name: 'cache-control' },
        { kind: 'cookie', name: 'sessionId' },
      ],
      ignored: [],
      truncated: [],
    });
    expect(result.log.entries).toEqual([
      {
        job: { id: 1, name: 'example-org-http-requests', enabled: true },
        fields: ['ClientIP', 'ClientRequestHost', 'ClientRequestMethod', 'ClientRequestURI', 'EdgeResponseStatus', 'RayID', 'RequestHeaders', 'ResponseHeaders', 'Cookies'],
        entry: {
          ClientIP: '203.0.113.66',
          ClientRequestHost: 'example.org',
          ClientRequestMethod: 'GET',
          ClientRequestURI: '/search?q=<script>alert(document.cookie)</script>',
          EdgeResponseStatus: 403,
          RayID: '0123456789abcdef',
          // The fixture sends X-Request-Id twice: only the first instance is logged.
          RequestHeaders: { 'x-request-id': '7d1e' },
          // Challenged at the edge: the origin's response never came.
          ResponseHeaders: {},
          Cookies: { sessionId: '6f1c0a9e2b' },
        },
        unavailable: [],
      },
    ]);
  });

  it('logs the first instance of a repeated response header when the request reaches the origin', async () => {
    const result = await simulate(store, PRO, {
      ...fixture('benign-browser'),
      response: { status: 200, headers: { 'Cache-Control': ['no-store', 'private'], 'Content-Type': 'text/html' } },
    });
    expect(result.log.entries[0]!.entry).toMatchObject({
      EdgeResponseStatus: 200,
      RequestHeaders: { referer: 'https://example.org/' },
      ResponseHeaders: { 'cache-control': 'no-store' },
      Cookies: { sessionId: '6f1c0a9e2b' },
    });
  });

  it('logs the first instance of a repeated cookie', async () => {
    const result = await simulate(store, PRO, { ...fixture('benign-browser'), cookies: { sessionId: ['first', 'second'] } });
    expect(result.log.entries[0]!.entry.Cookies).toEqual({ sessionId: 'first' });
  });
});

describe('the 40-field configuration', () => {
  const request = (count: number) => ({
    method: 'GET',
    url: 'http://example.org/',
    http_version: 'HTTP/1.1',
    headers: Object.fromEntries(range('X-Field-', count).map((name) => [name, `value of ${name}`])),
    cookies: Object.fromEntries(range('c', 10).map((name) => [name, `cookie ${name}`])),
    response: { status: 200, headers: Object.fromEntries(range('x-resp-', 10).map((name) => [name, `response ${name}`])) },
  });

  it('logs all 40 fields across request headers, response headers and cookies', async () => {
    await configureCustomFields({ request_fields: range('x-field-', 20), response_fields: range('x-resp-', 10), cookie_fields: range('c', 10) });
    const result = await simulate(store, PRO, request(20));
    const { entry } = result.log.entries[0]!;
    expect(result.log.custom_fields.configured).toHaveLength(40);
    expect(Object.keys(entry.RequestHeaders as object)).toEqual(range('x-field-', 20));
    expect((entry.RequestHeaders as Record<string, string>)['x-field-7']).toBe('value of X-Field-7');
    expect(Object.keys(entry.ResponseHeaders as object)).toEqual(range('x-resp-', 10));
    expect(entry.Cookies).toEqual(Object.fromEntries(range('c', 10).map((name) => [name, `cookie ${name}`])));
    expect(result.warnings.filter((w) => w.includes('custom log fields'))).toEqual([]);
  });

  it('logs only the first 40 when more are configured (written past the API checks)', async () => {
    await configureCustomFields({ request_fields: range('x-field-', 25), response_fields: range('x-resp-', 10), cookie_fields: range('c', 10) });
    const result = await simulate(store, PRO, request(25));
    expect(result.log.custom_fields.configured).toHaveLength(40);
    expect(result.log.custom_fields.ignored).toEqual(range('c', 10).slice(5).map((name) => ({ kind: 'cookie', name })));
    expect(Object.keys(result.log.entries[0]!.entry.Cookies as object)).toEqual(range('c', 5));
    expect(Object.keys(result.log.entries[0]!.entry.RequestHeaders as object)).toHaveLength(25);
    expect(result.warnings).toContain('only the first 40 custom log fields are logged; ignored: cookie c6, cookie c7, cookie c8, cookie c9, cookie c10');
  });
});

describe('values over 8 KB', () => {
  it('are cut to 8192 bytes without splitting a character; 8192 bytes exactly stay whole', async () => {
    const accented = `a${'\u00e9'.repeat(5000)}`;
    const result = await simulate(store, PRO, {
      method: 'GET',
      url: 'https://example.org/',
      headers: { 'X-Request-Id': accented, Referer: `https://example.org/${'r'.repeat(8192 - 20)}` },
      cookies: { sessionId: 'v'.repeat(9000) },
      response: { status: 200, headers: { 'Cache-Control': 'c'.repeat(8192) } },
    });
    const { entry } = result.log.entries[0]!;
    const headers = entry.RequestHeaders as Record<string, string>;
    // é is two bytes: byte 8192 falls inside one, so the cut keeps 1 + 4095 * 2 = 8191 bytes.
    expect(Buffer.byteLength(headers['x-request-id']!)).toBe(8191);
    expect(accented.startsWith(headers['x-request-id']!)).toBe(true);
    expect(headers.referer).toHaveLength(8192);
    expect(entry.Cookies).toEqual({ sessionId: 'v'.repeat(8192) });
    expect(entry.ResponseHeaders).toEqual({ 'cache-control': 'c'.repeat(8192) });
    expect(result.log.custom_fields.truncated).toEqual(['RequestHeaders.x-request-id', 'Cookies.sessionId']);
  });
});

describe('fields of the dataset', () => {
  it('derive security, client and timing fields; the unknowable answer null and are listed', async () => {
    await selectFields(
      'fields=RayID,EdgeStartTimestamp,ClientCountry,ClientASN,BotScore,ClientRequestPath,ClientRequestProtocol,ClientRequestScheme,ClientRequestUserAgent,ClientSSLProtocol,' +
        'SecurityAction,SecurityActions,SecurityRuleID,SecurityRuleIDs,SecuritySources,EdgeResponseContentType,OriginResponseStatus,WAFAttackScore,CacheCacheStatus,ZoneName&timestamps=rfc3339',
    );
    const result = await simulate(store, PRO, { ...fixture('xss-script-tag'), overrides: { 'ip.src.country': 'DE', 'ip.src.asnum': 64496, 'cf.bot_management.score': 87 } }, { rayId: 'feedfacecafebeef' });
    const matched = result.matched_rules.map((rule) => rule.rule_id);
    expect(matched).toHaveLength(4);
    expect(result.log.entries[0]).toMatchObject({
      entry: {
        RayID: 'feedfacecafebeef',
        EdgeStartTimestamp: '2026-11-21T10:00:00Z',
        ClientCountry: 'de',
        ClientASN: 64496,
        BotScore: 87,
        ClientRequestPath: '/search',
        ClientRequestProtocol: 'HTTP/2',
        ClientRequestScheme: 'https',
        ClientRequestUserAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
        ClientSSLProtocol: 'TLSv1.3',
        SecurityAction: 'managed_challenge',
        SecurityActions: ['log', 'log', 'log', 'managed_challenge'],
        SecurityRuleID: OWASP_THRESHOLD_RULE_ID,
        SecurityRuleIDs: matched,
        SecuritySources: ['firewallManaged', 'firewallManaged', 'firewallManaged', 'firewallManaged'],
        EdgeResponseContentType: 'text/html',
        OriginResponseStatus: 0,
        WAFAttackScore: null,
        CacheCacheStatus: null,
        ZoneName: 'example.org',
      },
      unavailable: ['WAFAttackScore', 'CacheCacheStatus'],
    });
  });

  it.each([
    ['timestamps=unix', NOW_MS / 1000],
    ['timestamps=rfc3339', '2026-11-21T10:00:00Z'],
    ['no timestamps option (nanoseconds, as a string)', `${NOW_MS}000000`],
  ])('EdgeStartTimestamp with %s', async (option, expected) => {
    await selectFields(`fields=EdgeStartTimestamp,EdgeEndTimestamp${option.startsWith('timestamps') ? `&${option}` : ''}`);
    const { entry } = (await simulateFixture(store, 'benign-browser')).log.entries[0]!;
    expect(entry).toEqual({ EdgeStartTimestamp: expected, EdgeEndTimestamp: expected });
  });

  it('a custom block response sets the status and content type of the entry', async () => {
    await selectFields('fields=EdgeResponseStatus,EdgeResponseContentType,SecurityAction,SecurityRuleDescription,OriginResponseStatus');
    await deploy(store, 'http_request_firewall_custom', [
      {
        action: 'block',
        expression: 'true',
        description: 'Maintenance',
        action_parameters: { response: { status_code: 429, content: '{}', content_type: 'application/json' } },
      },
    ]);
    const { entry } = (await simulate(store, PRO, { ...fixture('benign-browser'), response: { status: 200 } })).log.entries[0]!;
    expect(entry).toEqual({ EdgeResponseStatus: 429, EdgeResponseContentType: 'application/json', SecurityAction: 'block', SecurityRuleDescription: 'Maintenance', OriginResponseStatus: 0 });
  });

  it('every job of the dataset gets its entry; a disabled one is flagged', async () => {
    await store.logpushJobs.create(PRO, {
      name: 'second',
      dataset: 'http_requests',
      destination_conf: 's3://edge-logs/second?region=us-east-1',
      logpull_options: 'fields=ClientIP,ZoneName&timestamps=rfc3339',
      enabled: false,
    });
    const result = await simulateFixture(store, 'benign-browser');
    expect(result.log.entries.map((entry) => [entry.job.id, entry.entry])).toEqual([
      [1, expect.any(Object)],
      [expect.any(Number), { ClientIP: '198.51.100.23', ZoneName: 'example.org' }],
    ]);
    expect(result.warnings.some((w) => /^log push job \d+ is disabled: it pushes nothing until enabled$/.test(w))).toBe(true);
  });

  it('a zone without an http_requests job has no entry, and says so', async () => {
    const result = await simulateFixture(store, 'benign-browser', ZONE_IDS.enterprise);
    expect(result.log.entries).toEqual([]);
    expect(result.log.custom_fields).toEqual({ ruleset_id: null, configured: [], ignored: [], truncated: [] });
    expect(result.warnings).toContain('the zone has no log push job for the http_requests dataset: no log entry');
  });
});
