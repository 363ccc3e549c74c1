// The origin proxy, with real sockets on both sides: what the origin receives (the platform's
// headers, the client's path, body and Host), what the client gets back (the origin's answer with
// cf-ray), and the platform's pages when the origin refuses, times out or answers garbage.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OriginTable, proxyToOrigin, type ProxyOutcome } from '../../src/origin';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: (Server | TcpServer)[] = [];
let hanging: ChildProcess | undefined;
const clients: Client[] = [];

/**
 * A port whose connections never complete: a listener that accepts nothing (python3, which can
 * listen without accepting; Node accepts at once), its queue filled, so the kernel drops further
 * connection attempts and they wait.
 */
async function hangingPort(): Promise<number> {
  hanging = spawn('python3', ['-c', 'import socket,time\ns=socket.socket();s.bind(("127.0.0.1",0));s.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(600)']);
  const [line] = (await once(hanging.stdout!, 'data')) as [Buffer];
  const port = Number(line.toString().trim());
  for (let i = 0; i < 2; i++) sockets.push(connect(port, '127.0.0.1').on('error', () => {}));
  await new Promise((resolve) => setTimeout(resolve, 100));
  return port;
}
const sockets: Socket[] = [];
let seen: Seen[] = [];
let outcomes: ProxyOutcome[] = [];

function listen<S extends Server | TcpServer>(server: S): Promise<number> {
  servers.push(server);
  server.on('connection', (socket: Socket) => sockets.push(socket));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

let edge: string;
let table: OriginTable;

beforeAll(async () => {
  const origin = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.writeHead(201, { 'content-type': 'text/plain', 'x-origin': 'yes', server: 'origin-server', connection: 'keep-alive' });
      response.end('from the origin');
    });
  });
  const originPort = await listen(origin);
  const silent = createTcpServer((socket) => sockets.push(socket));
  const silentPort = await listen(silent);
  const garbage = createTcpServer((socket) => socket.end('HELLO THERE\r\n\r\n'));
  const garbagePort = await listen(garbage);
  const closed = createTcpServer();
  const closedPort = await listen(closed);
  // A port nothing listens on any more.
  servers.splice(servers.indexOf(closed), 1);
  await new Promise((resolve) => closed.close(resolve));
  table = new OriginTable([
    { hostname: 'example.org', upstream: `http://127.0.0.1:${originPort}` },
    { hostname: '*.example.org', upstream: `http://127.0.0.1:${originPort}` },
    { hostname: 'down.example.net', upstream: `http://127.0.0.1:${closedPort}` },
    { hostname: 'silent.example.net', upstream: `http://127.0.0.1:${silentPort}`, responseTimeoutMs: 200 },
    { hostname: 'blackhole.example.net', upstream: `http://127.0.0.1:${await hangingPort()}`, connectTimeoutMs: 200 },
    { hostname: 'garbage.example.net', upstream: `http://127.0.0.1:${garbagePort}` },
  ]);
  const front = createServer((request, response) => {
    const host = request.headers.host!.replace(/:\d+$/, '');
    void proxyToOrigin({ request, response, origin: table.find(host)!, cfRay: '0123456789abcdef-DFW', clientIp: '203.0.113.7', scheme: 'http', country: 'FR', host }).then((outcome) =>
      outcomes.push(outcome),
    );
  });
  edge = `http://127.0.0.1:${await listen(front)}`;
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.destroy()));
  hanging?.kill();
  for (const socket of sockets) socket.destroy();
  await Promise.all(
    servers.map((server) => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** undici, which sends the Host header it is given (fetch never does). */
async function ask(host: string, path = '/', init: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {}) {
  seen = [];
  outcomes = [];
  // A client of the edge's origin sends the path as written (a URL would be normalized).
  const client = new Client(edge);
  clients.push(client);
  const answer = await client.request({ path, method: init.method ?? 'GET', body: init.body, headers: { ...init.headers, host } });
  return { status: answer.statusCode, headers: answer.headers, text: () => answer.body.text() };
}

describe('an origin that answers', () => {
  it('gets the request with the platform\'s headers, the client its answer with cf-ray', async () => {
    const response = await ask('www.example.org', '/a/../b?q=1%202', { method: 'POST', body: 'name=value', headers: { 'x-forwarded-for': '198.51.100.1', 'cf-connecting-ip': '6.6.6.6', 'x-client': 'kept' } });
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('from the origin');
    expect(response.headers['cf-ray']).toBe('0123456789abcdef-DFW');
    expect(response.headers.server).toBe('cloudflare');
    expect(response.headers['x-origin']).toBe('yes');
    const [request] = seen;
    expect(request).toMatchObject({ method: 'POST', url: '/a/../b?q=1%202', body: 'name=value' });
    expect(request!.headers).toMatchObject({
      host: 'www.example.org',
      'x-client': 'kept',
      'cf-connecting-ip': '203.0.113.7',
      'x-forwarded-for': '198.51.100.1, 203.0.113.7',
      'x-forwarded-proto': 'http',
      'cf-visitor': '{"scheme":"http"}',
      'cf-ray': '0123456789abcdef-DFW',
      'cf-ipcountry': 'FR',
    });
    expect(outcomes[0]).toMatchObject({ kind: 'answered', status: 201 });
  });

  it('prefers the exact hostname over a wildcard, and knows nothing of other names', () => {
    expect(table.find('example.org')!.hostname).toBe('example.org');
    expect(table.find('a.b.example.org')!.hostname).toBe('*.example.org');
    expect(table.find('example.com')).toBeUndefined();
  });
});

describe('an origin that fails', () => {
  it.each([
    ['refuses the connection', 'down.example.net', 521, 'Web server is down'],
    ['does not answer in time', 'silent.example.net', 524, 'A timeout occurred'],
    ['cannot be reached in time', 'blackhole.example.net', 522, 'Connection timed out'],
    ['answers something that is not HTTP', 'garbage.example.net', 520, 'unknown error'],
  ])('%s: the platform\'s page, with cf-ray', async (_case, host, status, title) => {
    const response = await ask(host, '/page');
    expect(response.status).toBe(status);
    expect(response.headers['cf-ray']).toBe('0123456789abcdef-DFW');
    expect(response.headers['content-type']).toBe('text/html; charset=UTF-8');
    const page = await response.text();
    expect(page).toContain(title);
    expect(page).toContain(`Error code ${status}`);
    expect(page).toContain('0123456789abcdef-DFW');
    expect(page).toContain(host);
    expect(outcomes[0]).toMatchObject({ kind: 'failed', status });
  });

  it('refuses an origin table entry that is not a hostname and an upstream URL', () => {
    expect(() => new OriginTable([{ hostname: 'Example.org', upstream: 'http://127.0.0.1:1' }])).toThrow(/hostname must be a host name in lower case/);
    expect(() => new OriginTable([{ hostname: 'example.org', upstream: 'ftp://x' }])).toThrow(/must be an http:\/\/ or https:\/\/ URL/);
    expect(() => new OriginTable([{ hostname: 'example.org', upstream: 'http://x/path' }])).toThrow(/names the origin server only/);
  });
});
