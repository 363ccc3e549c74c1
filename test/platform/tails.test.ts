// Live logs of deployed workers, served for real: `wrangler tail --format json` (the real
// program, pointed at `npm start` with CLOUDFLARE_API_BASE_URL and nothing else) prints the
// traces of a worker that logs and of one that throws, called through the edge, and deletes its
// tail when it stops; the official client's `workers.scripts.tail.create/get/delete`; a raw
// WebSocket client for what is refused (an unknown tail, the wrong subprotocol, a deleted tail,
// a second client, another account's script); the traces of one account never reach another's
// tail; and a worker that tries to reach the platform's trace sink gets nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import Cloudflare, { toFile } from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { COMMAND_TEST_TIMEOUT_MS, ROOT } from '../worker/commands';
import { startPlatform, temporaryDirectory, type Platform } from './platform-process';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const OTHER_ACCOUNT = '5a7805061c76ada191ed06f989cc3dac';
const TOKEN = 'tails-token-0123456789abcdef';
/** A token of the first account alone. */
const SCOPED_TOKEN = 'tails-scoped-token-0123456789';

const LOGGER = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    console.log('hello from logger', { path: url.pathname });
    console.warn('a warning', 42);
    return new Response('logged ' + url.pathname);
  },
};
`;
const THROWER = `export default {
  async fetch() {
    console.error('about to throw');
    throw new TypeError('kaboom');
  },
};
`;
/** Computes without a pause when asked: cut off at the CPU limit. */
const SPINNER = `export default {
  async fetch(request) {
    console.log('spinning');
    if (new URL(request.url).pathname === '/spin') for (;;) {}
    return new Response('not spinning');
  },
};
`;
/** Tries to reach the trace sink whose path it is given (each try bounded, every failure caught), and says what it found. */
const PROBER = `export default {
  async fetch(request, env) {
    const sink = new URL(request.url).searchParams.get('sink');
    const found = { bindings: Object.keys(env) };
    const forged = JSON.stringify({ events: [{ outcome: 'ok', logs: [{ message: ['forged'], level: 'log', timestamp: 0 }] }], headers: [{}] });
    for (const target of ['http://unix:' + sink + ':/', 'http://trace-sink/', 'http://tail/']) {
      try {
        const answer = await Promise.race([fetch(target, { method: 'POST', body: forged }), scheduler.wait(3000).then(() => null)]);
        found[target] = answer === null ? 'no answer' : answer.status;
      } catch {
        found[target] = 'unreachable';
      }
    }
    return Response.json(found);
  },
};
`;

const work = temporaryDirectory();
let platform: Platform;
let cf: Cloudflare;
let otherCf: Cloudflare;
let scopedCf: Cloudflare;

function client(token: string): Cloudflare {
  return new Cloudflare({ baseURL: platform.urls.api!, apiToken: token, apiEmail: null, apiKey: null, userServiceKey: null, maxRetries: 0 });
}

async function deploy(sdk: Cloudflare, account: string, name: string, source: string): Promise<void> {
  await sdk.workers.scripts.update(name, { account_id: account, metadata: { main_module: 'index.js', compatibility_date: '2026-07-01' }, files: [await toFile(Buffer.from(source), 'index.js', { type: 'application/javascript+module' })] });
  await sdk.workers.scripts.subdomain.create(name, { account_id: account, enabled: true });
}

/** A request through the edge port with a Host of our choosing. */
function edge(host: string, requestPath = '/', headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string }> {
  const url = new URL(platform.urls.edge!);
  return new Promise((resolve, reject) => {
    http
      .request({ host: url.hostname, port: url.port, path: requestPath, method, headers: { host, ...headers }, agent: false }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      })
      .on('error', reject)
      .end();
  });
}

/** Waits until `check` holds (polling), or fails naming what it waited for. */
async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - started > ms) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The JSON values written one after another (wrangler prints each trace indented, over several lines). */
function jsonValues(text: string): any[] {
  const values: any[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"' && depth > 0) inString = true;
    else if (char === '{') {
      if (depth++ === 0) start = index;
    } else if (char === '}' && depth > 0 && --depth === 0) values.push(JSON.parse(text.slice(start, index + 1)));
  }
  return values;
}

interface Tailing {
  child: ChildProcess;
  output: () => string;
  events: () => any[];
  exited: Promise<number | null>;
}

/** `wrangler tail <script> --format json` (or `pretty`) as a user runs it, its output read as it comes. */
function wranglerTail(script: string, args: string[] = [], format: 'json' | 'pretty' = 'json'): Tailing {
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'tail', script, '--format', format, ...args], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: path.join(work, '.config'), WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1', CLOUDFLARE_API_BASE_URL: platform.urls.api!, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, output: () => `${stdout}\n${stderr}`, events: () => jsonValues(stdout), exited };
}

/** Requests `warm` through the edge until the tail shows one (its client connected), then answers the events so far. */
async function connected(tailing: Tailing, host: string): Promise<void> {
  await until(`the tail of ${host} to connect (wrangler said: ${tailing.output()})`, async () => {
    await edge(host, '/warm');
    return tailing.events().some((event) => String(event.event?.request?.url).endsWith('/warm')) ? true : undefined;
  });
}

/** A raw client of a tail's URL: opened, or refused with the status the server answered. */
function openTail(url: string, protocol: string | null = 'trace-v1'): Promise<{ socket: WebSocket } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = protocol === null ? new WebSocket(url) : new WebSocket(url, protocol);
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    socket.once('error', reject);
  });
}

function messages(socket: WebSocket): any[] {
  const received: any[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data))));
  return received;
}

function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
}

beforeAll(async () => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  writeFileSync(path.join(work, 'auth.json'), JSON.stringify({ tokens: [{ name: 'first-account', sha256: sha256(SCOPED_TOKEN), accounts: [ACCOUNT] }] }));
  // A short CPU limit, for the worker that spins.
  writeFileSync(path.join(work, 'platform.toml'), '[edge]\ncpu_ms = 500\n');
  platform = await startPlatform(work, [], { PORT: '0', API_TOKEN: TOKEN, AUTH_FILE: path.join(work, 'auth.json'), DATA_DIR: path.join(work, 'data'), WORKERS_SECRETS_KEY: 'b'.repeat(64) });
  cf = client(TOKEN);
  scopedCf = client(SCOPED_TOKEN);
  otherCf = cf;
  await cf.workers.subdomains.update({ account_id: ACCOUNT, subdomain: 'team' });
  await cf.workers.subdomains.update({ account_id: OTHER_ACCOUNT, subdomain: 'others' });
  await deploy(cf, ACCOUNT, 'logger', LOGGER);
  await deploy(cf, ACCOUNT, 'thrower', THROWER);
  await deploy(cf, ACCOUNT, 'prober', PROBER);
  await deploy(cf, ACCOUNT, 'spinner', SPINNER);
  // The same name in another account: its traces are its own.
  await deploy(otherCf, OTHER_ACCOUNT, 'logger', LOGGER);
  await until('the workers to serve', async () => ((await edge('logger.others.workers.dev')).status === 200 && (await edge('prober.team.workers.dev')).status === 200 ? true : undefined));
});

afterAll(() => platform?.stop());

describe('wrangler tail', () => {
  it('prints each invocation of a worker that logs and of one that throws, in the platform\'s shape, and deletes its tail when it stops', async () => {
    const logger = wranglerTail('logger');
    const thrower = wranglerTail('thrower');
    try {
      await connected(logger, 'logger.team.workers.dev');
      await connected(thrower, 'thrower.team.workers.dev');
      expect((await cf.workers.scripts.tail.get('logger', { account_id: ACCOUNT })) as unknown).toHaveLength(1);

      const before = Date.now();
      expect(await edge('logger.team.workers.dev', '/hello?x=1', { authorization: 'Bearer sekrit', cookie: 'session=abc', 'x-api-key': 'k', 'x-visible': 'shown' })).toEqual({ status: 200, body: 'logged /hello' });
      expect((await edge('thrower.team.workers.dev', '/boom')).status).toBe(500);
      // Another account's script of the same name: never in this account's tail.
      expect((await edge('logger.others.workers.dev', '/elsewhere')).body).toBe('logged /elsewhere');

      const hello = await until('the trace of /hello', () => logger.events().find((event) => String(event.event?.request?.url).endsWith('/hello?x=1')));
      expect(hello).toMatchObject({
        outcome: 'ok',
        scriptName: 'logger',
        exceptions: [],
        logs: [
          { message: ['hello from logger', { path: '/hello' }], level: 'log', timestamp: expect.any(Number) },
          { message: ['a warning', 42], level: 'warn', timestamp: expect.any(Number) },
        ],
        event: {
          request: { url: 'http://logger.team.workers.dev/hello?x=1', method: 'GET', headers: { authorization: 'REDACTED', cookie: 'REDACTED', 'x-api-key': 'REDACTED', 'x-visible': 'shown', host: 'logger.team.workers.dev' }, cf: expect.any(Object) },
          response: { status: 200 },
        },
      });
      expect(hello.eventTimestamp).toBeGreaterThanOrEqual(before - 1000);
      expect(JSON.stringify(logger.events())).not.toContain('sekrit');

      const boom = await until('the trace of /boom', () => thrower.events().find((event) => String(event.event?.request?.url).endsWith('/boom')));
      expect(boom).toMatchObject({
        outcome: 'exception',
        scriptName: 'thrower',
        exceptions: [{ name: 'TypeError', message: 'kaboom', timestamp: expect.any(Number) }],
        logs: [{ message: ['about to throw'], level: 'error', timestamp: expect.any(Number) }],
        event: { request: { url: 'http://thrower.team.workers.dev/boom', method: 'GET' } },
      });

      // The other account's request has been answered; a trace of it would have come by now.
      await edge('logger.team.workers.dev', '/last');
      await until('the trace of /last', () => logger.events().find((event) => String(event.event?.request?.url).endsWith('/last')));
      expect(logger.events().filter((event) => String(event.event?.request?.url).includes('elsewhere'))).toEqual([]);
    } finally {
      logger.child.kill('SIGINT');
      thrower.child.kill('SIGINT');
    }
    expect(await logger.exited, logger.output()).toBe(0);
    await thrower.exited;
    // wrangler deletes its tail on the way out.
    expect(await cf.workers.scripts.tail.get('logger', { account_id: ACCOUNT })).toEqual([]);
  });

  it('prints --format pretty as for the platform: the request and its outcome, then its logs and its exception', async () => {
    const tailing = wranglerTail('thrower', [], 'pretty');
    try {
      // Printed once the connection is open, which the platform answers once the script is traced.
      await until(`wrangler to connect (${tailing.output()})`, () => (tailing.output().includes('Connected to thrower, waiting for logs...') ? true : undefined));
      expect((await edge('thrower.team.workers.dev', '/pretty')).status).toBe(500);
      await until(`the pretty lines (${tailing.output()})`, () => (tailing.output().includes('TypeError: kaboom') ? true : undefined));
      expect(tailing.output()).toMatch(/GET http:\/\/thrower\.team\.workers\.dev\/pretty - Exception Thrown @ .+\n {2}\(error\) about to throw\n/);
    } finally {
      tailing.child.kill('SIGINT');
    }
    expect(await tailing.exited, tailing.output()).toBe(0);
  });

  it('applies the filters wrangler sends (--status, --method, --search, --header, --ip self)', async () => {
    const tailing = wranglerTail('logger', ['--status', 'ok', '--method', 'POST', '--search', 'needle', '--header', 'x-pass:yes', '--ip', 'self']);
    const pass = { 'x-pass': 'yes' };
    try {
      await until(`the tail to be created (${tailing.output()})`, async () => (((await cf.workers.scripts.tail.get('logger', { account_id: ACCOUNT })) as unknown as unknown[]).length === 1 ? true : undefined));
      // POST requests pass the method filter; none logs "needle", so the search filter drops them until one does.
      await until('a POST whose log holds the needle', async () => {
        await edge('logger.team.workers.dev', '/needle', pass, 'POST');
        return tailing.events().length > 0 ? true : undefined;
      });
      await edge('logger.team.workers.dev', '/needle', pass, 'GET');
      await edge('logger.team.workers.dev', '/hay', pass, 'POST');
      await edge('logger.team.workers.dev', '/needle-no-header', {}, 'POST');
      await edge('logger.team.workers.dev', '/needle-again', pass, 'POST');
      await until('the last POST', () => tailing.events().find((event) => String(event.event?.request?.url).endsWith('/needle-again')));
      const seen = tailing.events().map((event) => `${event.event.request.method} ${new URL(event.event.request.url).pathname}`);
      expect(new Set(seen)).toEqual(new Set(['POST /needle', 'POST /needle-again']));
    } finally {
      tailing.child.kill('SIGINT');
    }
    await tailing.exited;
  });
});

describe('a worker cut off for its CPU time', () => {
  it('is told to its tail with the outcome exceededCpu (its process, and the tail worker in it, are gone)', async () => {
    const tailing = wranglerTail('spinner');
    try {
      await connected(tailing, 'spinner.team.workers.dev');
      expect(await edge('spinner.team.workers.dev', '/spin', { authorization: 'Bearer sekrit' })).toEqual({ status: 503, body: 'error code: 1102' });
      const spun = await until('the trace of /spin', () => tailing.events().find((event) => String(event.event?.request?.url).endsWith('/spin')));
      expect(spun).toMatchObject({ outcome: 'exceededCpu', scriptName: 'spinner', exceptions: [], event: { request: { url: 'http://spinner.team.workers.dev/spin', method: 'GET', headers: { authorization: 'REDACTED' } } } });
      // The next request is served, and traced, by a new process.
      await edge('spinner.team.workers.dev', '/after');
      await until('the trace after the cut', () => tailing.events().find((event) => String(event.event?.request?.url).endsWith('/after') && event.outcome === 'ok'));
    } finally {
      tailing.child.kill('SIGINT');
    }
    await tailing.exited;
  });
});

describe('the official client', () => {
  it('creates, lists and deletes tails; a script that does not exist, a tail that does not, and the limit of 10 are refused', async () => {
    const created = await cf.workers.scripts.tail.create('logger', { account_id: ACCOUNT });
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), url: `${platform.urls.api!.replace('http://', 'ws://').replace('/client/v4', '')}/tails/${created.id}`, expires_at: expect.any(String) });
    const expires = Date.parse(created.expires_at) - Date.now();
    expect(expires).toBeGreaterThan(6 * 3600_000 - 60_000);
    expect(expires).toBeLessThanOrEqual(6 * 3600_000);
    expect(await cf.workers.scripts.tail.get('logger', { account_id: ACCOUNT })).toEqual([created]);

    await expect(cf.workers.scripts.tail.create('nobody', { account_id: ACCOUNT })).rejects.toMatchObject({ status: 404, errors: [{ code: 10007 }] });
    // Filters the platform cannot apply are refused, never ignored (the client sends none; wrangler does).
    for (const filters of [[{ client_ip: ['not-an-ip'] }], [{ colour: 'blue' }], [{ sampling_rate: 0 }], [{ outcome: ['fine'] }]]) {
      const answer = await fetch(`${platform.urls.api}/accounts/${ACCOUNT}/workers/scripts/logger/tails`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ filters }) });
      expect({ status: answer.status, code: ((await answer.json()) as { errors: { code: number }[] }).errors[0]!.code }, JSON.stringify(filters)).toEqual({ status: 400, code: 10021 });
    }

    const more = [];
    for (let index = 1; index < 10; index++) more.push(await cf.workers.scripts.tail.create('logger', { account_id: ACCOUNT }));
    await expect(cf.workers.scripts.tail.create('logger', { account_id: ACCOUNT })).rejects.toMatchObject({ status: 429, errors: [{ code: 10057 }] });
    // Another script has tails of its own to spare.
    const other = await cf.workers.scripts.tail.create('thrower', { account_id: ACCOUNT });

    const deleted = await cf.workers.scripts.tail.delete(created.id, { account_id: ACCOUNT, script_name: 'logger' });
    expect(deleted).toMatchObject({ success: true, errors: [] });
    await expect(cf.workers.scripts.tail.delete(created.id, { account_id: ACCOUNT, script_name: 'logger' })).rejects.toMatchObject({ status: 404, errors: [{ code: 10007 }] });
    // A tail is deleted through its own script only.
    await expect(cf.workers.scripts.tail.delete(other.id, { account_id: ACCOUNT, script_name: 'logger' })).rejects.toMatchObject({ status: 404 });
    for (const tail of [...more]) await cf.workers.scripts.tail.delete(tail.id, { account_id: ACCOUNT, script_name: 'logger' });
    await cf.workers.scripts.tail.delete(other.id, { account_id: ACCOUNT, script_name: 'thrower' });
    expect(await cf.workers.scripts.tail.get('logger', { account_id: ACCOUNT })).toEqual([]);
  });
});

describe('a tail\'s WebSocket', () => {
  it('refuses an unknown tail, the wrong subprotocol, a second client and a deleted tail; a deletion closes its client', async () => {
    const origin = platform.urls.api!.replace('http://', 'ws://').replace('/client/v4', '');
    expect(await openTail(`${origin}/tails/${'0'.repeat(32)}`)).toMatchObject({ status: 404 });
    expect(await openTail(`${origin}/tails/not-a-tail`)).toMatchObject({ status: 404 });

    const tail = await cf.workers.scripts.tail.create('logger', { account_id: ACCOUNT });
    expect(await openTail(tail.url, 'trace-v2')).toMatchObject({ status: 400, body: expect.stringContaining('trace-v1') });
    expect(await openTail(tail.url, null)).toMatchObject({ status: 400 });

    const opened = await openTail(tail.url);
    if (!('socket' in opened)) throw new Error(`the tail refused its client: ${opened.status} ${opened.body}`);
    const received = messages(opened.socket);
    opened.socket.send(JSON.stringify({ debug: false }));
    // wrangler's keep-alive: a ping is answered.
    const pong = new Promise<Buffer>((resolve) => opened.socket.once('pong', resolve));
    opened.socket.ping(Buffer.from('wrangler tail ping'));
    expect(String(await pong)).toBe('wrangler tail ping');
    expect(await openTail(tail.url)).toMatchObject({ status: 409 });

    await edge('logger.team.workers.dev', '/raw');
    await until('the raw client\'s trace', () => received.find((event) => String(event.event?.request?.url).endsWith('/raw')));

    const closing = closed(opened.socket);
    await cf.workers.scripts.tail.delete(tail.id, { account_id: ACCOUNT, script_name: 'logger' });
    expect(await closing).toEqual({ code: 1000, reason: 'the tail was deleted' });
    expect(await openTail(tail.url)).toMatchObject({ status: 404 });
  });

  it('closes a client that sends anything but {"debug": false}', async () => {
    const tail = await cf.workers.scripts.tail.create('logger', { account_id: ACCOUNT });
    const opened = await openTail(tail.url);
    if (!('socket' in opened)) throw new Error(`refused: ${opened.status}`);
    const closing = closed(opened.socket);
    opened.socket.send('{"debug": true}');
    expect((await closing).code).toBe(1008);
    await cf.workers.scripts.tail.delete(tail.id, { account_id: ACCOUNT, script_name: 'logger' });
  });

  it('is not created for another account\'s script by credentials that do not reach it', async () => {
    await expect(scopedCf.workers.scripts.tail.create('logger', { account_id: OTHER_ACCOUNT })).rejects.toMatchObject({ status: 403, errors: [{ code: 9109 }] });
    const own = await scopedCf.workers.scripts.tail.create('logger', { account_id: ACCOUNT });
    await scopedCf.workers.scripts.tail.delete(own.id, { account_id: ACCOUNT, script_name: 'logger' });
  });
});

describe('the trace sink', () => {
  it('is out of reach of a deployed worker: it has no binding to it and cannot connect to it, and nothing it sends reaches a tail', async () => {
    const sink = await until('the runtime\'s directory', () => traceSink(platform.child.pid!));
    const tail = await cf.workers.scripts.tail.create('logger', { account_id: ACCOUNT });
    const opened = await openTail(tail.url);
    if (!('socket' in opened)) throw new Error(`refused: ${opened.status}`);
    const received = messages(opened.socket);
    const answer = await edge('prober.team.workers.dev', `/?sink=${encodeURIComponent(sink)}`);
    expect(answer.status, answer.body).toBe(200);
    const unreachable = expect.stringMatching(/^(unreachable|no answer)$/);
    expect(JSON.parse(answer.body)).toEqual({ bindings: [], [`http://unix:${sink}:/`]: unreachable, 'http://trace-sink/': unreachable, 'http://tail/': unreachable });
    // And a post without the grant workerd adds for a traced version is refused by the sink itself.
    for (const grant of [undefined, 'made-up']) {
      const status = await new Promise<number>((resolve, reject) =>
        http
          .request({ socketPath: sink, method: 'POST', path: '/', headers: grant ? { 'cf-edge-trace': grant } : {} }, (response) => {
            response.resume();
            resolve(response.statusCode!);
          })
          .on('error', reject)
          .end(JSON.stringify({ events: [{ outcome: 'ok', logs: [{ message: ['forged'], level: 'log', timestamp: 0 }] }], headers: [{}] })),
      );
      expect(status).toBe(403);
    }
    await edge('logger.team.workers.dev', '/after-probe');
    await until('the trace after the probe', () => received.find((event) => String(event.event?.request?.url).endsWith('/after-probe')));
    expect(JSON.stringify(received)).not.toContain('forged');
    opened.socket.close();
    await cf.workers.scripts.tail.delete(tail.id, { account_id: ACCOUNT, script_name: 'logger' });
  });
});

/** The trace sink's socket of a platform: beside the configuration files of its workerd processes. */
function traceSink(pid: number): string | undefined {
  const children = (parent: number): number[] => {
    try {
      return readdirSync(`/proc/${parent}/task`).flatMap((task) => readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      return [];
    }
  };
  for (let queue = children(pid); queue.length > 0; ) {
    const next = queue.shift()!;
    queue.push(...children(next));
    try {
      const args = readFileSync(`/proc/${next}/cmdline`, 'utf8').split('\0');
      const config = args.find((arg) => arg.endsWith('.capnp'));
      if (config) return path.join(path.dirname(config), 'traces.sock');
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}
