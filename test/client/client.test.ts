// The typed client on its own: the headers of both credential schemes, and what unwrap makes of
// every kind of answer (the envelope, a 200 with success: false, a proxy's HTML page, an empty
// body) and of a request that never got an answer.
import { describe, expect, it } from 'vitest';
import { ApiError, createApiClient, unwrap, type Credentials } from '../../src/client';
import { freePort } from '../support/ports';
import { envelope, fakeFetch, type Answer } from './fake-fetch';

const zone = '9d6991f5ca85bf43524971c922c4bcfc';

function clientWith(answers: Answer[], credentials: Credentials = { token: 'secret-token' }, baseUrl = 'http://api.test/client/v4') {
  const fake = fakeFetch(answers);
  return { api: createApiClient({ baseUrl, credentials, fetch: fake.fetch, headers: { 'X-Extra': 'yes' } }), ...fake };
}

const getZone = (api: ReturnType<typeof clientWith>['api']) => unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: zone } } }));

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => new Error('expected the call to fail'),
    (error: unknown) => error,
  );
}

describe('credentials', () => {
  it('sends a token as a bearer Authorization header, and nothing of the other scheme', async () => {
    const { api, requests } = clientWith([envelope({ id: zone })]);
    await getZone(api);
    expect(requests[0]!.headers).toMatchObject({ authorization: 'Bearer secret-token', 'x-extra': 'yes' });
    expect(requests[0]!.headers).not.toHaveProperty('x-auth-email');
    expect(requests[0]!.headers).not.toHaveProperty('x-auth-key');
  });

  it('sends an email + key pair as X-Auth-Email and X-Auth-Key, without Authorization', async () => {
    const { api, requests } = clientWith([envelope({ id: zone })], { email: 'user@example.com', key: 'global-key' });
    await getZone(api);
    expect(requests[0]!.headers).toMatchObject({ 'x-auth-email': 'user@example.com', 'x-auth-key': 'global-key' });
    expect(requests[0]!.headers).not.toHaveProperty('authorization');
  });

  it('joins the base URL and the path once, with or without a trailing slash', async () => {
    const { api, requests } = clientWith([envelope({ id: zone })], { token: 't' }, 'http://api.test/client/v4//');
    await getZone(api);
    expect(requests[0]!.url).toBe(`http://api.test/client/v4/zones/${zone}`);
  });
});

describe('unwrap', () => {
  it('answers the result of a successful envelope', async () => {
    const { api } = clientWith([envelope({ id: zone, name: 'example.com' })]);
    expect(await getZone(api)).toEqual({ id: zone, name: 'example.com' });
  });

  it('throws ApiError for an error envelope, with its status, errors and codes', async () => {
    const body = {
      result: null,
      success: false,
      errors: [
        { code: 7003, message: 'Could not route to /zones/x, perhaps your object identifier is invalid?' },
        { code: 7000, message: 'No route for that URI' },
      ],
      messages: [],
    };
    const { api } = clientWith([Response.json(body, { status: 404 })]);
    const failure = (await failureOf(getZone(api))) as ApiError;
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure.status).toBe(404);
    expect(failure.codes).toEqual([7003, 7000]);
    expect(failure.body).toEqual(body);
    expect(failure.message).toBe('HTTP 404: 7003: Could not route to /zones/x, perhaps your object identifier is invalid?; 7000: No route for that URI');
  });

  it('throws ApiError for a 200 answer with success: false', async () => {
    const { api } = clientWith([Response.json({ result: null, success: false, errors: [{ code: 10000, message: 'Authentication error' }], messages: [] })]);
    const failure = (await failureOf(getZone(api))) as ApiError;
    expect(failure).toBeInstanceOf(ApiError);
    expect([failure.status, failure.codes, failure.message]).toEqual([200, [10000], 'HTTP 200: 10000: Authentication error']);
  });

  it('throws ApiError for a 200 with success: false and no errors at all', async () => {
    const { api } = clientWith([Response.json({ result: null, success: false, errors: [], messages: [] })]);
    const failure = (await failureOf(getZone(api))) as ApiError;
    expect([failure.status, failure.codes, failure.message]).toEqual([200, [], 'HTTP 200: no errors given']);
  });

  it('keeps the messages of a filter validation failure, which carry no code', async () => {
    const { api } = clientWith([Response.json({ result: null, success: false, errors: [{ message: 'Filter parsing error (1:1)' }], messages: null }, { status: 400 })]);
    const failure = (await failureOf(unwrap(api.GET('/filters/validate-expr', { params: { query: { expression: '(' } } })))) as ApiError;
    expect(failure.errors).toEqual([{ message: 'Filter parsing error (1:1)' }]);
    expect(failure.codes).toEqual([]);
    expect(failure.message).toBe('HTTP 400: Filter parsing error (1:1)');
  });

  it("throws ApiError carrying a proxy's HTML error page", async () => {
    const page = '<html><head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center></body></html>';
    const { api } = clientWith([new Response(page, { status: 502, headers: { 'Content-Type': 'text/html' } })]);
    const failure = (await failureOf(getZone(api))) as ApiError;
    expect(failure).toBeInstanceOf(ApiError);
    expect([failure.status, failure.errors, failure.body]).toEqual([502, [], page]);
    expect(failure.message).toBe(`HTTP 502: not an API envelope: ${page.replace(/\s+/g, ' ')}`);
  });

  it('throws ApiError, not a JSON syntax error, for an HTML page answered with 200', async () => {
    const page = '<!doctype html><title>Sign in to the network</title>';
    const { api } = clientWith([new Response(page, { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' } })]);
    const failure = (await failureOf(getZone(api))) as ApiError;
    expect(failure).toBeInstanceOf(ApiError);
    expect([failure.status, failure.body]).toEqual([200, page]);
  });

  it('shortens a long non-envelope body in the message and keeps it whole in body', async () => {
    const text = 'x'.repeat(500);
    const { api } = clientWith([new Response(text, { status: 503, headers: { 'Content-Type': 'text/plain' } })]);
    const failure = (await failureOf(getZone(api))) as ApiError;
    expect(failure.message).toBe(`HTTP 503: not an API envelope: ${'x'.repeat(200)}...`);
    expect(failure.body).toBe(text);
  });

  it('throws ApiError for an error with an empty body', async () => {
    for (const answer of [new Response(null, { status: 503 }), new Response('', { status: 502, headers: { 'Content-Length': '0' } })]) {
      const { api } = clientWith([answer]);
      const failure = (await failureOf(getZone(api))) as ApiError;
      expect(failure).toBeInstanceOf(ApiError);
      expect([failure.status, failure.errors, failure.message]).toEqual([answer.status, [], `HTTP ${answer.status}: empty body`]);
    }
  });

  it('throws ApiError for a 200 with an empty body', async () => {
    const { api } = clientWith([new Response('', { status: 200, headers: { 'Content-Type': 'application/json', 'Content-Length': '0' } })]);
    const failure = (await failureOf(getZone(api))) as ApiError;
    expect([failure.status, failure.message]).toEqual([200, 'HTTP 200: empty body']);
  });

  it('lets a network error through as the fetch error it is (there is no status to report)', async () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    const { api } = clientWith([
      () => {
        throw refused;
      },
    ]);
    const failure = await failureOf(getZone(api));
    expect(failure).toBe(refused);
    expect(failure).not.toBeInstanceOf(ApiError);
  });

  it('lets a real connection failure through from the global fetch', async () => {
    const port = await freePort(); // free a moment ago: nothing listens there
    const api = createApiClient({ baseUrl: `http://127.0.0.1:${port}/client/v4`, credentials: { token: 't' } });
    const failure = (await failureOf(getZone(api))) as TypeError;
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });
});
