// Faults on purpose in the management API: set at run time through /__faults (or given at start),
// proven with the official client library, which must ride out what production sends it:
// 429s with Retry-After, 5xx, dropped connections. A request failed on purpose changes nothing.
import Cloudflare from 'cloudflare';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearer, ids, json, startServer, token, type TestServer } from './harness';
import { officialClient } from './official-client';

const RATE_LIMITED = { code: 971, message: 'Please wait and consider throttling your request speed' };

/** The control endpoint of a test server (beside /readyz, outside /client/v4). */
function control(server: TestServer, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.baseUrl.replace(/\/client\/v4$/, '')}/__faults`, { ...init, headers: { ...bearer(), ...(init.headers ?? {}) } });
}

async function setRules(server: TestServer, api: unknown[]): Promise<void> {
  const response = await control(server, { method: 'PUT', body: JSON.stringify({ api }) });
  expect(response.status, await response.clone().text()).toBe(200);
}

async function rules(server: TestServer): Promise<{ name: string; matched: number; injected: number }[]> {
  const body = (await (await control(server)).json()) as { result: { api: { name: string; matched: number; injected: number }[] } };
  return body.result.api;
}

describe('fault injection in the API', () => {
  let server: TestServer;
  const logged: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const lines = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    server = await startServer({ logger: pino({ level: 'info' }, lines) });
  });
  afterEach(async () => {
    await control(server, { method: 'DELETE' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  describe('the official client', () => {
    it('with its default retries, completes a call whose first two attempts answer 429 with Retry-After: 1', async () => {
      await setRules(server, [{ name: 'two-429s', match: { operationId: 'getZone' }, status: 429, retryAfter: 1, first: 2 }]);
      const { cf, sent } = officialClient(server, { maxRetries: 2 });
      const started = Date.now();
      const zone = await cf.zones.get({ zone_id: ids.proZone });
      expect(zone.id).toBe(ids.proZone);
      expect(sent).toHaveLength(3);
      // It waited what Retry-After said, twice, before the attempt that went through.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(await rules(server)).toEqual([expect.objectContaining({ name: 'two-429s', matched: 3, injected: 2 })]);
      expect(logged.filter((line) => line.msg === 'fault injected')).toEqual(
        Array(2).fill(expect.objectContaining({ fault: 'two-429s', face: 'api', method: 'GET', operation: 'getZone', effect: 'status 429 971 (Retry-After 1)' })),
      );
    });

    it('with retries off, fails with its own RateLimitError carrying the platform body and Retry-After', async () => {
      await setRules(server, [{ match: { operationId: 'getZone' }, status: 429, first: 1 }]);
      const { cf } = officialClient(server, { maxRetries: 0 });
      const error = await cf.zones.get({ zone_id: ids.proZone }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(Cloudflare.RateLimitError);
      const refused = error as InstanceType<typeof Cloudflare.RateLimitError>;
      expect(refused.status).toBe(429);
      expect(refused.errors).toEqual([RATE_LIMITED]);
      expect(refused.headers?.get('retry-after')).toBe('1');
    });

    it('rides out a 503 with its back-off, and fails with InternalServerError when it may not retry', async () => {
      await setRules(server, [{ name: 'one-503', match: { method: 'GET', path: '/zones/*' }, status: 503, first: 1 }]);
      expect((await officialClient(server, { maxRetries: 1 }).cf.zones.get({ zone_id: ids.proZone })).id).toBe(ids.proZone);
      await setRules(server, [{ match: { method: 'GET', path: '/zones/*' }, status: 503, first: 1 }]);
      const error = await officialClient(server, { maxRetries: 0 }).cf.zones.get({ zone_id: ids.proZone }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(Cloudflare.InternalServerError);
      expect((error as InstanceType<typeof Cloudflare.InternalServerError>).errors).toEqual([{ code: 10001, message: 'Service Unavailable' }]);
    });

    it('sees a connection dropped before the answer as a connection error, and retries it by default', async () => {
      await setRules(server, [{ match: { operationId: 'getZone' }, drop: 'before-response', first: 1 }]);
      const error = await officialClient(server, { maxRetries: 0 }).cf.zones.get({ zone_id: ids.proZone }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(Cloudflare.APIConnectionError);
      await setRules(server, [{ match: { operationId: 'getZone' }, drop: 'before-response', first: 1 }]);
      const { cf, sent } = officialClient(server, { maxRetries: 2 });
      expect((await cf.zones.get({ zone_id: ids.proZone })).id).toBe(ids.proZone);
      expect(sent).toHaveLength(2);
    });

    it('sees a connection dropped mid-response as a network error while reading the body', async () => {
      await setRules(server, [{ match: { operationId: 'getZone' }, drop: 'mid-response' }]);
      const error = await officialClient(server, { maxRetries: 0 }).cf.zones.get({ zone_id: ids.proZone }).catch((thrown: unknown) => thrown);
      // The status line and headers of a success arrived; the body broke off.
      expect(error).toBeInstanceOf(TypeError);
      expect(String((error as TypeError).cause)).toMatch(/other side closed|ECONNRESET|terminated/);
    });
  });

  describe('plain HTTP', () => {
    it('a mid-response drop sends a 200 whose promised body never completes', async () => {
      await setRules(server, [{ match: { operationId: 'getZone' }, drop: 'mid-response' }]);
      const response = await server.fetch(`/zones/${ids.proZone}`, { headers: bearer() });
      expect(response.status).toBe(200);
      expect(Number(response.headers.get('content-length'))).toBeGreaterThan(0);
      await expect(response.text()).rejects.toThrow(TypeError);
    });

    it('a connection dropped before the answer fails fetch itself', async () => {
      await setRules(server, [{ match: { operationId: 'getZone' }, drop: 'before-response' }]);
      await expect(server.fetch(`/zones/${ids.proZone}`, { headers: bearer() })).rejects.toThrow('fetch failed');
    });

    it('a status fault answers the envelope, with the errors a rule gives', async () => {
      await setRules(server, [{ match: { operationId: 'listZones' }, status: 409, errors: [{ code: 1001, message: 'busy on purpose' }] }]);
      const response = await server.fetch('/zones', { headers: bearer() });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({ result: null, success: false, errors: [{ code: 1001, message: 'busy on purpose' }], messages: [] });
      expect(response.headers.get('retry-after')).toBeNull();
    });

    it('a delay alone slows the request, which then goes through', async () => {
      await setRules(server, [{ match: { operationId: 'getZone' }, delayMs: 400 }]);
      const started = Date.now();
      const response = await server.fetch(`/zones/${ids.proZone}`, { headers: bearer() });
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(390);
      expect(((await response.json()) as { result: { id: string } }).result.id).toBe(ids.proZone);
    });

    it('a request the document refuses never reaches a fault, and does not count', async () => {
      await setRules(server, [{ name: 'all', status: 500 }]);
      const refused = await server.fetch('/zones?per_page=0', { headers: bearer() });
      expect(refused.status).toBe(400);
      const unknownRoute = await server.fetch('/nowhere', { headers: bearer() });
      expect(unknownRoute.status).toBe(404);
      const noCredentials = await server.fetch('/zones');
      expect(noCredentials.status).toBe(400);
      expect(await rules(server)).toEqual([expect.objectContaining({ name: 'all', matched: 0, injected: 0 })]);
    });

    it('the same seed fails the same requests again', async () => {
      const rule = { match: { operationId: 'getZone' }, status: 500, probability: 0.5, seed: 2024 };
      const statuses = async () => {
        await setRules(server, [rule]);
        const out: number[] = [];
        for (let i = 0; i < 12; i += 1) out.push((await server.fetch(`/zones/${ids.proZone}`, { headers: bearer() })).status);
        return out;
      };
      const first = await statuses();
      expect(first).toContain(500);
      expect(first).toContain(200);
      expect(await statuses()).toEqual(first);
    });
  });

  describe('state', () => {
    const entrypoint = `/zones/${ids.enterpriseZone}/rulesets/phases/http_request_firewall_custom/entrypoint`;
    let written = 0;
    const write = () => {
      written += 1;
      return server.fetch(entrypoint, json('PUT', { rules: [{ action: 'block', expression: `http.request.uri.path eq "/${written}"` }] }));
    };
    const current = async () => (await server.fetch(entrypoint, { headers: bearer() })).json() as Promise<{ result: { version: string; rules: unknown[] } }>;

    it('a write failed on purpose, by status or by a dropped connection, changes nothing', async () => {
      expect((await write()).status).toBe(200);
      const before = await current();
      await setRules(server, [
        { name: 'status', match: { operationId: 'updateZoneEntrypointRuleset' }, status: 500, first: 1 },
        { name: 'drop', match: { operationId: 'updateZoneEntrypointRuleset' }, drop: 'before-response', first: 1 },
        { name: 'half', match: { operationId: 'updateZoneEntrypointRuleset' }, drop: 'mid-response', first: 1 },
      ]);
      expect((await write()).status).toBe(500);
      await expect(write()).rejects.toThrow('fetch failed');
      await expect(write().then((response) => response.text())).rejects.toThrow(TypeError);
      expect(await current()).toEqual(before);
      // The rules spent, the same write goes through and bumps the version once.
      const done = await write();
      expect(done.status, await done.clone().text()).toBe(200);
      const after = await current();
      expect(after.result.version).toBe(String(Number(before.result.version) + 1));
      expect(after.result.rules).toEqual([expect.objectContaining({ expression: `http.request.uri.path eq "/${written}"` })]);
    });
  });
});

describe('the control endpoint', () => {
  let server: TestServer;
  const scoped = 'token-for-one-zone-only';

  beforeAll(async () => {
    server = await startServer({ tokens: [{ token: scoped, scope: { accounts: null, zones: new Set([ids.proZone]) } }] });
  });
  afterEach(async () => {
    await control(server, { method: 'DELETE' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('lists, replaces and clears the rules, with counters', async () => {
    expect(await (await control(server)).json()).toEqual({ result: { api: [] }, success: true, errors: [], messages: [] });
    const put = await control(server, { method: 'PUT', body: JSON.stringify({ api: [{ name: 'x', match: { operationId: 'listZones' }, status: 500 }] }) });
    expect(await put.json()).toEqual({
      result: { api: [{ name: 'x', match: { operationId: 'listZones' }, status: 500, matched: 0, injected: 0 }] },
      success: true,
      errors: [],
      messages: [],
    });
    expect((await server.fetch('/zones', { headers: bearer() })).status).toBe(500);
    expect(await rules(server)).toEqual([expect.objectContaining({ matched: 1, injected: 1 })]);
    const cleared = await control(server, { method: 'DELETE' });
    expect(((await cleared.json()) as { result: unknown }).result).toEqual({ api: [] });
    expect((await server.fetch('/zones', { headers: bearer() })).status).toBe(200);
  });

  it('refuses bad rules with a clear message per problem, keeping the rules it had', async () => {
    await setRules(server, [{ name: 'kept', match: { operationId: 'listZones' }, delayMs: 1 }]);
    const response = await control(server, {
      method: 'PUT',
      body: JSON.stringify({
        api: [
          { name: 'typo', match: { operationId: 'listZone' }, status: 500 },
          { name: 'odds', status: 503, probability: 1.5 },
          { name: 'fine', status: 200 },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      result: null,
      success: false,
      errors: [
        { code: 10021, message: 'body: api[0] "typo": match.operationId "listZone" is not an operationId of the API document (did you mean listZones?)' },
        { code: 10021, message: 'body: api[1] "odds": probability must be a number from 0 to 1, not 1.5' },
        { code: 10021, message: 'body: api[2] "fine": status must be an error status from 400 to 599, not 200' },
      ],
      messages: [],
    });
    expect((await rules(server)).map((rule) => rule.name)).toEqual(['kept']);
  });

  it('refuses S3 rules, bodies that are not rules documents, and malformed JSON', async () => {
    const s3 = await control(server, { method: 'PUT', body: JSON.stringify({ s3: [{ status: 503 }] }) });
    expect(s3.status).toBe(400);
    expect(((await s3.json()) as { errors: { message: string }[] }).errors[0]!.message).toBe(
      "body: s3 rules are set on the S3 endpoint's own /__faults; this one holds the API's",
    );
    const list = await control(server, { method: 'PUT', body: JSON.stringify([{ status: 500 }]) });
    expect(((await list.json()) as { errors: unknown[] }).errors).toEqual([
      { code: 10021, message: 'body: must be an object with the lists "api" and/or "s3", not [{"status":500}]' },
    ]);
    const malformed = await control(server, { method: 'PUT', body: '{"api": [' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { errors: { code: number }[] }).errors[0]!.code).toBe(6007);
  });

  it('takes the API credentials, and only those that reach everything', async () => {
    const none = await fetch(`${server.baseUrl.replace(/\/client\/v4$/, '')}/__faults`);
    expect(none.status).toBe(400);
    expect(((await none.json()) as { errors: { code: number }[] }).errors[0]!.code).toBe(9106);
    const wrong = await control(server, { headers: bearer('not-a-token') });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { errors: { code: number }[] }).errors[0]!.code).toBe(10000);
    const narrow = await control(server, { method: 'PUT', headers: bearer(scoped), body: JSON.stringify({ api: [{ status: 500 }] }) });
    expect(narrow.status).toBe(403);
    expect(((await narrow.json()) as { errors: { code: number; message: string }[] }).errors).toEqual([
      { code: 9109, message: '/__faults changes the server for every user: it takes a credential that reaches every account' },
    ]);
    expect(await rules(server)).toEqual([]);
    const key = await fetch(`${server.baseUrl.replace(/\/client\/v4$/, '')}/__faults`, { headers: { 'X-Auth-Email': 'user@example.com', 'X-Auth-Key': 'test-global-api-key' } });
    expect(key.status).toBe(200);
  });

  it('answers 405 with Allow for other methods', async () => {
    const response = await control(server, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PUT, DELETE');
  });

  it('is not part of the API: absent from the document and from /client/v4', async () => {
    const document = (await import('../../generated/openapi.json', { with: { type: 'json' } })).default as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.includes('fault'))).toEqual([]);
    const inside = await server.fetch('/__faults', { headers: bearer(token) });
    expect(inside.status).toBe(404);
  });
});

describe('rules given at start', () => {
  it('apply from the first request, and bad ones stop the server from starting', async () => {
    const server = await startServer({ faultRules: [{ name: 'boot', match: { operationId: 'listZones' }, status: 503, first: 1 }] });
    try {
      expect((await server.fetch('/zones', { headers: bearer() })).status).toBe(503);
      expect((await server.fetch('/zones', { headers: bearer() })).status).toBe(200);
    } finally {
      await server.stop();
    }
    await expect(startServer({ faultRules: [{ match: { operationId: 'nope' }, status: 500 }] })).rejects.toThrow(
      'test rules: api[0]: match.operationId "nope" is not an operationId of the API document',
    );
  });
});
