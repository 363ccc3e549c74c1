// What a client cannot make the server do: parse a body before it is routed and authenticated,
// parse JSON nested without bound, or hold a connection open by trickling a request.
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, CredentialRegistry, everything, sha256 } from '../../src/server';
import { MAX_JSON_DEPTH } from '../../src/server/http/json-depth';
import { connectionServerOptions, limitConnections } from '../../src/http-connections';
import { ids, startServer, token, type TestServer } from './harness';

const bearer = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

async function answer(response: Response): Promise<{ status: number; codes: number[]; messages: string[] }> {
  const body = (await response.json()) as { errors: { code: number; message: string }[] };
  return { status: response.status, codes: body.errors.map((e) => e.code), messages: body.errors.map((e) => e.message) };
}

describe('request bodies', () => {
  const path = `/zones/${ids.proZone}/rulesets`;

  it('are not read before authentication: a malformed body without credentials is refused for the credentials', async () => {
    const response = await server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": ' });
    expect(await answer(response)).toMatchObject({ status: 400, codes: [9106] });
  });

  it('are not read for an unknown route', async () => {
    const response = await server.fetch('/zones/nothing/here/at/all', { method: 'POST', headers: bearer, body: '{"name": ' });
    expect(await answer(response)).toMatchObject({ status: 404, codes: [7003, 7000] });
  });

  it(`are refused with 400 when nested deeper than ${MAX_JSON_DEPTH} levels, however large`, async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 500_000]) {
      const body = `{"name":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
      const response = await server.fetch(path, { method: 'POST', headers: bearer, body });
      expect(await answer(response)).toEqual({
        status: 400,
        codes: [6007],
        messages: [`Malformed JSON in request body: nested deeper than ${MAX_JSON_DEPTH} levels (at byte ${8 + MAX_JSON_DEPTH - 1})`],
      });
    }
  });

  it('at the nesting limit, or with brackets inside strings, reach the validator', async () => {
    const nested = `{"name":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`;
    const atLimit = await answer(await server.fetch(path, { method: 'POST', headers: bearer, body: nested }));
    expect(atLimit.status).toBe(400);
    expect(atLimit.codes).toEqual([10021]);
    const inString = JSON.stringify({ name: '['.repeat(100) + '\\"{'.repeat(50), kind: 'zone', phase: 'http_request_firewall_custom' });
    const created = await server.fetch(path, { method: 'POST', headers: bearer, body: inString });
    expect(created.status, await created.clone().text()).toBe(200);
  });
});

describe('connection limits', () => {
  let app: Server;
  let port: number;
  beforeAll(async () => {
    const credentials = new CredentialRegistry();
    credentials.addToken(sha256(token), { name: 'test', email: null, scope: everything });
    const built = createApp({ store: server.store, credentials, buckets: server.buckets, logger: pino({ level: 'silent' }) });
    await built.ready;
    const limits = { headersTimeoutMs: 500, requestTimeoutMs: 1000, keepAliveTimeoutMs: 300, maxConnections: 2 };
    app = createServer(connectionServerOptions(limits), built.app);
    limitConnections(app, limits.maxConnections);
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    port = (app.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => app.close(resolve)));

  /** Opens a connection and collects what the server sends until it closes it. */
  function connect(): { socket: net.Socket; closed: Promise<{ received: string; afterMs: number }> } {
    const socket = net.connect(port, '127.0.0.1');
    const opened = Date.now();
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => {});
    const closed = new Promise<{ received: string; afterMs: number }>((resolve) => socket.once('close', () => resolve({ received, afterMs: Date.now() - opened })));
    return { socket, closed };
  }

  it('a body trickled one byte at a time is cut off with 408 at the request timeout', async () => {
    const { socket, closed } = connect();
    socket.write(`PATCH /client/v4/zones/${ids.proZone}/rulesets/x/rules/y HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`);
    const trickle = setInterval(() => socket.writable && socket.write('{'), 200);
    const { received, afterMs } = await closed;
    clearInterval(trickle);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeGreaterThanOrEqual(900);
    expect(afterMs).toBeLessThan(5000);
  });

  it('headers that never end are cut off at the headers timeout', async () => {
    const { socket, closed } = connect();
    socket.write('GET /client/v4/zones HTTP/1.1\r\nHost: x\r\n');
    const { received, afterMs } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs).toBeLessThan(5000);
  });

  it('an idle keep-alive connection is closed after its timeout', async () => {
    const { socket, closed } = connect();
    socket.write(`GET /client/v4/zones/${ids.proZone} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    const { received, afterMs } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(afterMs).toBeLessThan(3000);
  });

  it('a connection beyond the cap takes the place of the oldest one without a request under way', async () => {
    const held = [connect(), connect()];
    for (const { socket } of held) await new Promise((resolve) => socket.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const extra = connect();
    await new Promise((resolve) => extra.socket.once('connect', resolve));
    // The oldest stalled connection is cut (no answer: it never asked anything); the new one is served.
    const { received } = await held[0]!.closed;
    expect(received).toBe('');
    extra.socket.write(`GET /client/v4/zones/${ids.proZone} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    expect((await extra.closed).received).toMatch(/^HTTP\/1\.1 200 /);
    expect(held[1]!.socket.destroyed).toBe(false);
    held[1]!.socket.destroy();
  });
});
