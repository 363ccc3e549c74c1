// The edge port on its own: requests routed by Host to a worker dispatcher (a test one here; the
// platform gives the runtime of deployed workers), the steps around routing, the platform's
// answers for what it does not serve, and slow clients held as on every port.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeServer, type EdgeRoutes, type Exchange, type Outcome, type RunningEdge, type WorkerDispatcher, type WorkerResult } from '../../src/edge';

const ROUTES: EdgeRoutes = {
  workersDev: [{ account: 'a1', subdomain: 'team', scripts: ['hello', 'thrower', 'spinner', 'half', 'gone'] }],
  zones: [
    { id: 'z1', name: 'example.com', account: 'a1', routes: [{ pattern: 'example.com/app/*', script: 'hello' }, { pattern: 'example.com/gone/*', script: 'gone' }] },
    { id: 'z2', name: 'origin.test', account: 'a1', routes: [] },
  ],
};

/** Runs "workers" by name: one answers with what it saw, the others fail as workers can. */
const workers: WorkerDispatcher = {
  async dispatch(target, exchange): Promise<WorkerResult> {
    if (target.script === 'gone') return { result: 'not-deployed' };
    if (target.script === 'thrower') return { result: 'exception', version: 'v1', error: 'Error: boom', written: false };
    if (target.script === 'spinner') return { result: 'exceeded-resources', version: 'v1', written: false };
    if (target.script === 'half') {
      exchange.response.writeHead(200, { 'content-length': '10' });
      await new Promise<void>((resolve) => exchange.response.write('half', () => resolve()));
      exchange.response.destroy();
      return { result: 'exception', version: 'v1', error: 'cut', written: true };
    }
    const body = JSON.stringify({ target, url: exchange.request.url, cf: exchange.cf });
    exchange.response.writeHead(200, { 'content-type': 'application/json' });
    exchange.response.end(body);
    return { result: 'ok', version: 'v1' };
  },
};

const outcomes: Outcome[] = [];
let edge: RunningEdge;
let withOrigin: RunningEdge;

beforeAll(async () => {
  const serverOptions = { headersTimeout: 300, requestTimeout: 1000, keepAliveTimeout: 1000, connectionsCheckingInterval: 100 };
  edge = await startEdgeServer({
    port: 0,
    hostname: '127.0.0.1',
    serverOptions,
    maxConnections: 4,
    workers,
    routes: ROUTES,
    stages: {
      before: [
        {
          name: 'stamp',
          run: (exchange: Exchange) => {
            exchange.response.setHeader('x-stamp', 'edge');
            exchange.cf.country = 'DE';
          },
        },
        {
          name: 'block',
          run: (exchange: Exchange) => {
            if (exchange.request.headers['x-block'] === 'yes') {
              exchange.response.writeHead(403, { 'content-type': 'text/plain' });
              exchange.response.end('blocked');
            }
          },
        },
      ],
      after: [(exchange) => outcomes.push(exchange.outcome!)],
    },
    report: () => {},
  });
  withOrigin = await startEdgeServer({
    port: 0,
    hostname: '127.0.0.1',
    serverOptions,
    maxConnections: 4,
    workers,
    routes: ROUTES,
    stages: {
      origin: async (exchange) => {
        exchange.response.writeHead(200, { 'content-type': 'text/plain' });
        exchange.response.end(`origin of ${exchange.route?.kind === 'zone' ? exchange.route.zone.name : '?'}`);
      },
    },
    report: () => {},
  });
});

afterAll(async () => {
  await edge?.close();
  await withOrigin?.close();
});

/** A request with a Host header of our choosing (fetch would not let us set it), or none. */
function request(target: RunningEdge, host: string | undefined, path = '/', method = 'GET', headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
    let answered = false;
    let body = '';
    const sent = http.request(
      { host: '127.0.0.1', port: target.port, path, method, agent: false, setHost: false, headers: { ...(host === undefined ? {} : { host }), ...headers } },
      (response) => {
        answered = true;
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        const done = () => resolve({ status: response.statusCode!, headers: response.headers as Record<string, string>, body });
        response.on('end', done);
        response.on('aborted', done);
        response.on('error', done);
      },
    );
    sent.on('error', (error) => (answered ? undefined : reject(error)));
    sent.end();
  });
}

describe('the edge', () => {
  it('runs the worker a workers.dev hostname or a zone route names, with what the steps added', async () => {
    const dev = await request(edge, 'hello.team.workers.dev:8789', '/path?q=1');
    expect(dev.status).toBe(200);
    expect(dev.headers['x-stamp']).toBe('edge');
    expect(JSON.parse(dev.body)).toEqual({ target: { account: 'a1', script: 'hello' }, url: '/path?q=1', cf: { country: 'DE' } });
    const zone = await request(edge, 'EXAMPLE.com', '/app/x');
    expect(JSON.parse(zone.body).target).toEqual({ account: 'a1', script: 'hello' });
  });

  it('answers as the platform for hostnames it does not serve, IP addresses, empty workers.dev names and zones without an origin', async () => {
    const unknown = await request(edge, 'example.org');
    expect([unknown.status, unknown.body, unknown.headers['content-type']]).toEqual([530, 'error code: 1001', 'text/plain; charset=UTF-8']);
    expect(unknown.headers['x-stamp']).toBe('edge');
    const ip = await request(edge, '127.0.0.1:8789');
    expect([ip.status, ip.body]).toEqual([403, 'error code: 1003']);
    // HTTP/1.1 requires a Host header: a request without one is malformed.
    const none = await request(edge, undefined);
    expect(none.status).toBe(400);
    const empty = await request(edge, 'nobody.team.workers.dev');
    expect([empty.status, empty.body]).toEqual([404, 'There is nothing here yet.']);
    const noOrigin = await request(edge, 'www.example.com', '/');
    expect([noOrigin.status, noOrigin.body]).toEqual([530, 'error code: 1016']);
    const head = await request(edge, 'example.org', '/', 'HEAD');
    expect([head.status, head.headers['content-length'], head.body]).toEqual([530, '16', '']);
  });

  it('answers a script deleted on its way to the routes as if no route named it', async () => {
    expect((await request(edge, 'gone.team.workers.dev')).body).toBe('There is nothing here yet.');
    expect((await request(edge, 'example.com', '/gone/x')).body).toBe('error code: 1016');
    expect((await request(withOrigin, 'example.com', '/gone/x')).body).toBe('origin of example.com');
  });

  it('sends a zone request no route runs a worker for to the origin step when there is one', async () => {
    const origin = await request(withOrigin, 'www.origin.test');
    expect([origin.status, origin.body]).toEqual([200, 'origin of origin.test']);
  });

  it('answers a failed worker with the platform error, and cuts a connection whose answer had begun', async () => {
    const thrown = await request(edge, 'thrower.team.workers.dev');
    expect([thrown.status, thrown.body]).toEqual([500, 'error code: 1101']);
    const spun = await request(edge, 'spinner.team.workers.dev');
    expect([spun.status, spun.body]).toEqual([503, 'error code: 1102']);
    const half = await request(edge, 'half.team.workers.dev');
    expect([half.status, half.body]).toEqual([200, 'half']);
  });

  it('lets a step answer before the answer, and tells the steps after the answer how each request ended', async () => {
    outcomes.length = 0;
    const blocked = await request(edge, 'hello.team.workers.dev', '/', 'GET', { 'x-block': 'yes' });
    expect([blocked.status, blocked.body]).toEqual([403, 'blocked']);
    await request(edge, 'hello.team.workers.dev');
    await request(edge, 'thrower.team.workers.dev');
    await request(edge, 'example.org');
    await expect.poll(() => outcomes.length).toBe(4);
    expect(outcomes).toEqual([
      { kind: 'step', step: 'block' },
      { kind: 'worker', script: 'hello', version: 'v1', result: 'ok' },
      { kind: 'worker', script: 'thrower', version: 'v1', result: 'exception', code: 1101, error: 'Error: boom' },
      { kind: 'platform', status: 530, code: 1001 },
    ]);
  });

  it('routes by new routes from the next request', async () => {
    edge.setRoutes({ workersDev: [{ account: 'a1', subdomain: 'team', scripts: [] }], zones: [] });
    try {
      expect((await request(edge, 'hello.team.workers.dev')).status).toBe(404);
      expect((await request(edge, 'example.com', '/app/x')).status).toBe(530);
    } finally {
      edge.setRoutes(ROUTES);
    }
    expect((await request(edge, 'hello.team.workers.dev')).status).toBe(200);
  });

  it('cuts off a client that trickles its headers, and holds no more connections than allowed', async () => {
    const slow = net.connect(edge.port, '127.0.0.1');
    slow.write('GET / HTTP/1.1\r\nHost: hello.team.workers.dev\r\n');
    const started = Date.now();
    let answer = '';
    slow.setEncoding('latin1').on('data', (chunk: string) => (answer += chunk));
    await new Promise((resolve) => slow.on('close', resolve));
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeLessThan(3000);

    // A client that keeps its side open after the 408 (and never reads again) does not keep the
    // connection: the edge cuts it a second later, and what the client writes then is refused.
    const stalled = net.connect({ port: edge.port, host: '127.0.0.1', allowHalfOpen: true });
    stalled.write('GET / HTTP/1.1\r\nHost: hello.team.workers.dev\r\n');
    let stalledAnswer = '';
    stalled.setEncoding('latin1').on('data', (chunk: string) => (stalledAnswer += chunk));
    await new Promise((resolve) => stalled.once('end', resolve));
    expect(stalledAnswer).toMatch(/^HTTP\/1\.1 408 /);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const afterwards = await new Promise<string>((resolve) => {
      stalled.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      stalled.once('close', () => resolve('closed'));
      stalled.write('X-Late: 1\r\n');
      setTimeout(() => stalled.writable && stalled.write('X-Later: 2\r\n'), 100);
      setTimeout(() => resolve('still open'), 1_000);
    });
    stalled.destroy();
    expect(['ECONNRESET', 'EPIPE', 'closed']).toContain(afterwards);

    // Four connections are the most this edge holds: a fifth takes the place of the oldest one
    // without a request under way, which is closed, while the other three stay open (until their
    // own headers timeout).
    const held: net.Socket[] = [];
    for (let i = 0; i < 4; i++) held.push(await new Promise<net.Socket>((resolve) => { const socket = net.connect(edge.port, '127.0.0.1', () => resolve(socket)); }));
    const oldestClosed = new Promise((resolve) => held[0]!.on('close', resolve));
    const fifth = net.connect(edge.port, '127.0.0.1');
    await oldestClosed;
    expect(held.slice(1).map((socket) => socket.readyState)).toEqual(['open', 'open', 'open']);
    expect(fifth.destroyed).toBe(false);
    for (const socket of [...held, fifth]) socket.destroy();
  });
});
