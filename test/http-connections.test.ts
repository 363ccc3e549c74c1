// The connection rules every port shares (src/http-connections.ts): the HTTP_* variables, the
// timeouts on plain and TLS servers, and the per-port limit that sheds the oldest connection
// without a request under way instead of locking well-behaved clients out.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionLimitsFrom, connectionServerOptions, defaultConnectionLimits, limitConnections } from '../src/http-connections';
import { rawConnection, slowClient, wellBehaved } from './support/slow-connection';
import { waitUntil } from './support/wait';

describe('the HTTP_* variables', () => {
  it('keep the documented defaults when unset, and set each limit', () => {
    expect(connectionLimitsFrom({})).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, maxConnections: 4096 });
    expect(defaultConnectionLimits).toEqual(connectionLimitsFrom({}));
    expect(
      connectionLimitsFrom({ HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '900', HTTP_KEEP_ALIVE_TIMEOUT_MS: '300', HTTP_MAX_CONNECTIONS: '7' }),
    ).toEqual({ headersTimeoutMs: 500, requestTimeoutMs: 900, keepAliveTimeoutMs: 300, maxConnections: 7 });
  });

  it('refuse what is not a positive whole number, and headers allowed longer than the request', () => {
    expect(() => connectionLimitsFrom({ HTTP_MAX_CONNECTIONS: '0' })).toThrow('HTTP_MAX_CONNECTIONS must be a positive whole number, not "0"');
    expect(() => connectionLimitsFrom({ HTTP_HEADERS_TIMEOUT_MS: '1.5' })).toThrow('HTTP_HEADERS_TIMEOUT_MS must be a positive whole number, not "1.5"');
    expect(() => connectionLimitsFrom({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      'HTTP_HEADERS_TIMEOUT_MS (40000) must not exceed HTTP_REQUEST_TIMEOUT_MS (30000): the headers are part of the request',
    );
  });
});

const LIMITS = { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300, maxConnections: 3 };

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server whose requests to /hold wait until `release` is called; others answer at once. */
async function start(secure = false) {
  const held: (() => void)[] = [];
  const handler = (request: { url?: string }, response: { end(body: string): void }) => {
    if (request.url === '/hold') held.push(() => response.end('released'));
    else response.end('ok');
  };
  let tlsFiles: { cert: Buffer; key: Buffer } | undefined;
  if (secure) {
    const directory = path.join(os.tmpdir(), `connections-tls-${process.pid}`);
    execFileSync('mkdir', ['-p', directory]);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', `${directory}/key.pem`, '-out', `${directory}/cert.pem`], { stdio: 'ignore' });
    tlsFiles = { cert: readFileSync(`${directory}/cert.pem`), key: readFileSync(`${directory}/key.pem`) };
  }
  const options = connectionServerOptions(LIMITS);
  server = tlsFiles ? createTlsServer({ ...options, ...tlsFiles }, handler as never) : createServer(options, handler as never);
  const limit = limitConnections(server, LIMITS.maxConnections);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `${secure ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, limit, release: () => held.splice(0).forEach((answer) => answer()) };
}

describe('the timeouts', () => {
  it('cut a stalled client, half a request line and a trickled header with 408 at the headers timeout', async () => {
    const { url } = await start();
    const results = await Promise.all((['nothing', 'half a request line', 'a trickled header'] as const).map((kind) => slowClient(url, kind).closed));
    for (const { received, afterMs } of results) {
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(afterMs).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
      expect(afterMs).toBeLessThan(LIMITS.headersTimeoutMs + 3000);
    }
  });

  it('cut a TLS client that never finishes its handshake at the headers timeout', async () => {
    const { url } = await start(true);
    // A plain TCP connection to the TLS port: no ClientHello ever comes.
    const { closed } = rawConnection(url.replace('https:', 'http:'));
    const { received, afterMs } = await closed;
    expect(received).toBe('');
    expect(afterMs).toBeGreaterThanOrEqual(LIMITS.headersTimeoutMs - 50);
    expect(afterMs).toBeLessThan(LIMITS.headersTimeoutMs + 3000);
  });
});

describe('the connection limit of a port', () => {
  it('sheds the oldest connection without a request under way, so a well-behaved client is served', async () => {
    const { url, limit } = await start();
    const stalled = [rawConnection(url), rawConnection(url), rawConnection(url)];
    for (const { connected } of stalled) await connected;
    await waitUntil('three connections counted', () => limit.counts().open === 3);
    expect(await wellBehaved(url)).toBe('HTTP/1.1 200 OK');
    // The first stalled connection made room; it was sent nothing.
    expect((await stalled[0]!.closed).received).toBe('');
    expect(stalled[1]!.socket.destroyed || stalled[2]!.socket.destroyed).toBe(false);
    expect(limit.counts()).toMatchObject({ shed: 1, refused: 0 });
  });

  it('never sheds a connection whose request is under way: when all are, the new one is refused', async () => {
    const { url, limit, release } = await start();
    const busy = [rawConnection(url), rawConnection(url), rawConnection(url)];
    for (const { socket, connected } of busy) {
      await connected;
      socket.write('GET /hold HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    }
    await waitUntil('three requests under way', () => limit.counts().open === 3 && limit.counts().waiting === 0);
    const extra = rawConnection(url);
    expect((await extra.closed).received).toBe('');
    expect(limit.counts()).toMatchObject({ refused: 1, shed: 0 });
    release();
    for (const { closed } of busy) expect((await closed).received).toMatch(/^HTTP\/1\.1 200 [\s\S]*released$/);
  });

  it('counts only connections not yet cut: once the timeout cut the stalled ones, new ones need no room made', async () => {
    const { url, limit } = await start();
    const stalled = [slowClient(url, 'nothing'), slowClient(url, 'half a request line'), slowClient(url, 'a trickled header')];
    for (const { closed } of stalled) expect((await closed).received).toMatch(/^HTTP\/1\.1 408 /);
    await waitUntil('the cut connections uncounted', () => limit.counts().open === 0);
    const again = [rawConnection(url), rawConnection(url), rawConnection(url)];
    for (const { connected } of again) await connected;
    await waitUntil('three connections counted', () => limit.counts().open === 3);
    expect(limit.counts()).toMatchObject({ shed: 0, refused: 0 });
    for (const { socket } of again) socket.destroy();
  });

  it('on TLS, a request under way is not shed; a stalled TLS connection is', async () => {
    const { url, limit, release } = await start(true);
    const busy = rawConnection(url, { tls: true });
    await busy.connected;
    busy.socket.write('GET /hold HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await waitUntil('the request under way', () => limit.counts().open === 1 && limit.counts().waiting === 0);
    const stalled = [rawConnection(url, { tls: true }), rawConnection(url, { tls: true })];
    for (const { connected } of stalled) await connected;
    const extra = rawConnection(url, { tls: true });
    await extra.connected;
    expect((await stalled[0]!.closed).received).toBe('');
    expect(busy.socket.destroyed).toBe(false);
    release();
    expect((await busy.closed).received).toMatch(/^HTTP\/1\.1 200 [\s\S]*released$/);
    expect(limit.counts()).toMatchObject({ shed: 1, refused: 0 });
    extra.socket.destroy();
    stalled[1]!.socket.destroy();
  });
});
