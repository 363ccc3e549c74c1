// The mock answers as the server does wherever it can: the same base path, the same envelope
// for missing or malformed credentials, unknown routes and invalid requests. The typed client
// switches between the two by changing the base URL only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, unwrap, type Credentials } from '../../src/client';
import { startServer, token, type TestServer } from '../server/harness';
import { startPrism, type RunningMock } from './prism';

const zone = 'db737a563ced53f224ff5eae44905c5e';

let mock: RunningMock;
let server: TestServer;

beforeAll(async () => {
  [mock, server] = await Promise.all([startPrism(), startServer()]);
}, 150_000);
afterAll(async () => {
  await Promise.all([mock?.stop(), server?.stop()]);
});

type Envelope = { success: boolean; result: unknown; errors: { code: number; message: string }[]; messages: unknown };

async function envelope(response: Response): Promise<{ status: number; body: Envelope }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as Envelope };
}

/** The same request against both, by path under the base URL. */
async function both(pathAndQuery: string, init: RequestInit = {}) {
  const [fromMock, fromServer] = await Promise.all([
    fetch(`${mock.baseUrl}${pathAndQuery}`, init).then(envelope),
    fetch(`${server.baseUrl}${pathAndQuery}`, init).then(envelope),
  ]);
  return { fromMock, fromServer };
}

const bearer = { Authorization: `Bearer ${token}` };
const jsonBody = (method: string, body: string) => ({ method, headers: { ...bearer, 'Content-Type': 'application/json' }, body });
const rulePath = `/zones/${zone}/rulesets/942dcaba0b1a1d77db8b4463785b3c84/rules/ba12ae99f709ee792f7a886b03b32e89`;

describe('the mock answers as the server does', () => {
  it('serves under /client/v4, and still at the root', async () => {
    expect(mock.baseUrl).toMatch(/\/client\/v4$/);
    const root = mock.baseUrl.replace(/\/client\/v4$/, '');
    const [under, atRoot] = await Promise.all([
      fetch(`${mock.baseUrl}/zones/${zone}`, { headers: bearer }).then(envelope),
      fetch(`${root}/zones/${zone}`, { headers: bearer }).then(envelope),
    ]);
    expect(under.status).toBe(200);
    expect(under.body).toMatchObject({ success: true, result: { id: zone } });
    expect(atRoot).toEqual(under);
  });

  const credentialCases: [string, Record<string, string>, number][] = [
    ['no credentials', {}, 9106],
    ['an Authorization header that is not a bearer token', { Authorization: 'Basic dXNlcjpwYXNz' }, 6003],
    ['X-Auth-Email without X-Auth-Key', { 'X-Auth-Email': 'user@example.com' }, 6003],
    ['X-Auth-Key without X-Auth-Email', { 'X-Auth-Key': 'some-key' }, 6003],
    ['an X-Auth-Email that is not an email', { 'X-Auth-Email': 'nobody', 'X-Auth-Key': 'some-key' }, 6003],
  ];
  for (const [what, headers, code] of credentialCases) {
    it(`refuses ${what} with 400 (${code})`, async () => {
      const { fromMock, fromServer } = await both(`/zones/${zone}`, { headers });
      expect(fromMock.status).toBe(400);
      expect(fromMock.body.errors.map((e) => e.code)).toEqual([code]);
      expect(fromMock).toEqual(fromServer);
    });
  }

  it('accepts any well-formed credentials of either scheme', async () => {
    for (const credentials of [{ token: 'any-token-at-all' }, { email: 'someone@example.org', key: 'any-key' }] satisfies Credentials[]) {
      const api = createApiClient({ baseUrl: mock.baseUrl, credentials });
      expect(await unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: zone } } }))).toMatchObject({ id: zone });
    }
  });

  it('answers another documented example on Prefer, and says so in the envelope when there is none', async () => {
    const answer = (prefer: string) =>
      fetch(`${mock.baseUrl}/zones/${zone}`, { headers: { ...bearer, Prefer: prefer } }).then(envelope);
    const notFound = await answer('code=404');
    expect(notFound.status).toBe(404);
    expect(notFound.body.errors.map((e) => e.code)).toEqual([7003, 7000]);
    const missing = await answer('example=no-such-example');
    expect(missing.body).toMatchObject({ success: false, result: null });
    expect(missing.body.errors[0]!.message).toContain('exampleKey: no-such-example does not exist');
  });

  it('answers data generated from the schema on Prefer: dynamic=true, as Prism does', async () => {
    const example = await fetch(`${mock.baseUrl}/zones/${zone}`, { headers: bearer }).then(envelope);
    const generated = await fetch(`${mock.baseUrl}/zones/${zone}`, { headers: { ...bearer, Prefer: 'dynamic=true' } }).then(envelope);
    expect(generated.status).toBe(200);
    expect(generated.body.success).toBe(true);
    const zoneAnswer = generated.body.result as { id: unknown; name: unknown };
    expect(typeof zoneAnswer.id).toBe('string');
    expect(typeof zoneAnswer.name).toBe('string');
    expect(generated.body.result).not.toEqual(example.body.result);
  });

  it('answers an unknown route with 404 (7003, 7000), with or without credentials', async () => {
    for (const headers of [bearer, {}]) {
      const { fromMock, fromServer } = await both('/no/such/route', { headers });
      expect(fromMock.status).toBe(404);
      expect(fromMock.body.errors.map((e) => e.code)).toEqual([7003, 7000]);
      expect(fromMock.body.errors[0]!.message).toContain('/client/v4/no/such/route');
      expect(fromMock).toEqual(fromServer);
    }
  });

  it('answers a method the path lacks with 405 (7001)', async () => {
    const { fromMock, fromServer } = await both(`/zones/${zone}`, { method: 'DELETE', headers: bearer });
    expect(fromMock.status).toBe(405);
    expect(fromMock.body.errors).toEqual(fromServer.body.errors);
  });

  it('names the actual violation: a field of the wrong type', async () => {
    const { fromMock, fromServer } = await both(rulePath, jsonBody('PATCH', JSON.stringify({ enabled: 'nope' })));
    expect(fromMock.status).toBe(400);
    expect(fromMock.body.errors).toEqual([{ code: 10021, message: 'body/enabled must be boolean' }]);
    expect(fromServer.body.errors).toEqual(fromMock.body.errors);
  });

  it('names the actual violation inside a rule, not every rule shape it fails to be', async () => {
    const rules = [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'Content-Type' }] } }];
    const { fromMock, fromServer } = await both(
      `/zones/${zone}/rulesets/a86d3b2c9e4f4b7d8c1e2f3a4b5c6d7e`,
      jsonBody('PUT', JSON.stringify({ rules })),
    );
    expect(fromMock.status).toBe(400);
    expect(fromMock.body.errors).toEqual([
      { code: 10021, message: 'body/rules/0/action_parameters/request_fields/0/name must be a header name in lower case' },
    ]);
    expect(fromServer.body.errors).toEqual(fromMock.body.errors);
  });

  it('names the actual violation: an identifier of the wrong form', async () => {
    const { fromMock, fromServer } = await both('/zones/xyz', { headers: bearer });
    expect(fromMock.status).toBe(400);
    const messages = fromMock.body.errors.map((e) => e.message);
    expect(messages).toContain('params/zone_id must match pattern "^[0-9a-f]{32}$"');
    expect(messages.every((m) => m.startsWith('params/zone_id '))).toBe(true);
    // The server stops at the first rule the value breaks; the mock lists each.
    expect(messages).toEqual(expect.arrayContaining(fromServer.body.errors.map((e) => e.message)));
  });

  it('names the actual violations: query parameters out of range', async () => {
    const { fromMock } = await both(`/zones/${zone}/ssl/certificate_packs?page=x&per_page=500`, { headers: bearer });
    expect(fromMock.status).toBe(400);
    expect(fromMock.body.errors).toEqual([
      { code: 10021, message: 'query/page must be integer' },
      { code: 10021, message: 'query/per_page must be <= 100' },
    ]);
  });

  it('names the actual violation: an unknown body field and a missing one', async () => {
    const { fromMock, fromServer } = await both('/filters/validate-expr', jsonBody('POST', JSON.stringify({ kind: 'zone' })));
    expect(fromMock.status).toBe(400);
    expect(fromMock.body.errors.map((e) => e.message).sort()).toEqual(
      ["body must NOT have additional properties; found 'kind'", "body must have required property 'expression'"].sort(),
    );
    // Worded alike: each of the server's complaints is one of the mock's.
    expect(fromServer.body.errors.length).toBeGreaterThan(0);
    expect(fromMock.body.errors).toEqual(expect.arrayContaining(fromServer.body.errors));
  });

  it('refuses a body that is not JSON, or JSON that is not an object, with 400 (6007)', async () => {
    for (const text of ['{"enabled": tru', 'null']) {
      const { fromMock, fromServer } = await both(rulePath, jsonBody('PATCH', text));
      expect(fromMock.status).toBe(400);
      expect(fromMock.body.errors.map((e) => e.code)).toEqual([6007]);
      expect(fromMock.body.errors[0]!.message).toMatch(/^Malformed JSON in request body: /);
      expect(fromMock.status).toBe(fromServer.status);
      expect(fromMock.body.errors.map((e) => e.code)).toEqual(fromServer.body.errors.map((e) => e.code));
    }
  });
  it('refuses a body that is not JSON with 415 (6006), and one over 1 MiB with 413 (6009)', async () => {
    const text = { method: 'POST', headers: { ...bearer, 'Content-Type': 'text/plain' }, body: 'expression=ssl' };
    const large = jsonBody('POST', JSON.stringify({ expression: 'x'.repeat(1024 * 1024) }));
    for (const [init, status, code] of [[text, 415, 6006], [large, 413, 6009]] as const) {
      const { fromMock, fromServer } = await both('/filters/validate-expr', init);
      expect(fromMock.status).toBe(status);
      expect(fromMock.body.errors.map((e) => e.code)).toEqual([code]);
      expect(fromMock).toEqual(fromServer);
    }
  });
});

describe('the typed client, switched by base URL only', () => {
  // One piece of consumer code, run against each base URL with the same credentials.
  async function consumer(baseUrl: string) {
    const api = createApiClient({ baseUrl, credentials: { token } });
    const found = await unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: zone } } }));
    const refused = await api.GET('/zones/{zone_id}', { params: { path: { zone_id: 'xyz' } } });
    const missing = await api.GET('/zones/{zone_id}/waf_migration/status', { params: { path: { zone_id: '0'.repeat(32) } } });
    return {
      zone: { id: found.id, name: found.name },
      refused: refused.response.status,
      refusedCodes: [...new Set((refused.error as Envelope).errors.map((e) => e.code))],
      missing: missing.response.status,
    };
  }

  it('gets the same answers from the mock and the server', async () => {
    const [fromMock, fromServer] = await Promise.all([consumer(mock.baseUrl), consumer(server.baseUrl)]);
    expect(fromMock.zone).toEqual({ id: zone, name: 'example.com' });
    expect(fromMock.refused).toBe(400);
    expect(fromMock.refusedCodes).toEqual([10021]);
    expect(fromServer).toEqual({ ...fromMock, missing: 404 });
    // The mock has no state: an unknown id answers the documented example, the server 404.
    expect(fromMock.missing).toBe(200);
  });
});
