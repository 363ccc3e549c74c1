// Slow and many clients on every port: `npm start` (the API, the S3 endpoint, the edge, a worker),
// `npm run s3` and `npm run worker` cut a connection that has not finished its headers within
// HTTP_HEADERS_TIMEOUT_MS (stalled, half a request line, a header trickled), and at
// HTTP_MAX_CONNECTIONS a well-behaved client is still served. Small limits set by the variables
// keep the test short; `npm run bench -- slow-clients` measures 2,000 slow connections.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawConnection, slowClient, wellBehaved, type SlowKind } from '../support/slow-connection';
import { startPlatform, temporaryDirectory, withFiles, type Platform } from './platform-process';

const HEADERS_TIMEOUT_MS = 600;
const MAX_CONNECTIONS = 6;
const LIMITS = { HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), HTTP_REQUEST_TIMEOUT_MS: '1500', HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS) };
const KEYS = { S3_ACCESS_KEY_ID: 'slowkey', S3_SECRET_ACCESS_KEY: 'slow-secret-0123456789' };
const ROOT = path.resolve(import.meta.dirname, '../..');
const KINDS: SlowKind[] = ['nothing', 'half a request line', 'a trickled header'];

const WORKER_FILES = {
  'worker.mjs': "export default { fetch: () => new Response('hello from the worker') };\n",
  'wrangler.toml': 'name = "hello"\nmain = "worker.mjs"\ncompatibility_date = "2026-07-01"\n',
};

/** Every slow kind against `url` at once: each cut with 408 at the headers timeout. */
async function expectSlowClientsCut(url: string): Promise<void> {
  const results = await Promise.all(KINDS.map((kind) => slowClient(url, kind).closed));
  for (const [index, { received, afterMs }] of results.entries()) {
    expect(received, KINDS[index]).toMatch(/^HTTP\/1\.1 408 /);
    expect(afterMs, KINDS[index]).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(afterMs, KINDS[index]).toBeLessThan(HEADERS_TIMEOUT_MS + 4000);
  }
}

describe('npm start', () => {
  let platform: Platform;
  beforeAll(async () => {
    const directory = withFiles({ ...WORKER_FILES, 'platform.toml': '[[workers]]\nconfig = "wrangler.toml"\n' });
    platform = await startPlatform(directory, [], { PORT: '0', API_TOKEN: 'slow-clients-token', ...KEYS, ...LIMITS });
  });
  afterAll(() => platform?.stop());

  const ports: { port: string; path: string; headers?: Record<string, string>; served: RegExp }[] = [
    { port: 'api', path: '/client/v4/user/tokens/verify', headers: { Authorization: 'Bearer slow-clients-token' }, served: /^HTTP\/1\.1 200 / },
    { port: 's3', path: '/', served: /^HTTP\/1\.1 403 / },
    { port: 'edge', path: '/', served: /^HTTP\/1\.1 \d{3} / },
    { port: 'worker:hello', path: '/', served: /^HTTP\/1\.1 200 / },
  ];

  for (const { port, path: requestPath, headers, served } of ports) {
    it(`${port}: cuts a stalled client, half a request line and a trickled header with 408 at HTTP_HEADERS_TIMEOUT_MS`, async () => {
      await expectSlowClientsCut(platform.urls[port]!);
    });

    it(`${port}: with HTTP_MAX_CONNECTIONS stalled connections open, serves a well-behaved client by cutting the oldest`, async () => {
      const url = platform.urls[port]!;
      const stalled = Array.from({ length: MAX_CONNECTIONS }, () => rawConnection(url));
      for (const { connected } of stalled) await connected;
      const origin = new URL(url).origin;
      expect(await wellBehaved(origin, requestPath, headers)).toMatch(served);
      expect((await stalled[0]!.closed).received).toBe('');
      expect(stalled.slice(1).every(({ socket }) => !socket.destroyed)).toBe(true);
      for (const { socket } of stalled) socket.destroy();
    });
  }
});

/** Starts a script (`scripts/<name>.ts`) and resolves with its URL once it says it is ready. */
async function startScript(script: string, args: string[]) {
  // From the project's directory, where tsx is found; every path given is absolute.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', script), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...KEYS, ...LIMITS },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const match = /^Ready on (http:\/\/\S+) /m.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${script} ended (exit ${code}):\n${output}`)));
  });
  return { url, stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))) };
}

describe('the faces started alone read the same variables', () => {
  it('npm run s3 and npm run worker cut slow clients at HTTP_HEADERS_TIMEOUT_MS', async () => {
    const directory = withFiles(WORKER_FILES, temporaryDirectory());
    const dataDir = path.join(directory, 'data');
    const [s3, worker] = await Promise.all([
      startScript('s3.ts', ['--port', '0', '--data-dir', dataDir]),
      startScript('worker.ts', ['--config', path.join(directory, 'wrangler.toml'), '--port', '0', '--data-dir', dataDir]),
    ]);
    try {
      await Promise.all([expectSlowClientsCut(s3.url), expectSlowClientsCut(worker.url)]);
    } finally {
      await Promise.all([s3.stop(), worker.stop()]);
    }
  });

  it('npm run worker refuses an HTTP_* variable that is not a whole number', async () => {
    const directory = withFiles(WORKER_FILES, temporaryDirectory());
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'worker.ts'), '--config', path.join(directory, 'wrangler.toml'), '--port', '0'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HTTP_MAX_CONNECTIONS: 'many' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('HTTP_MAX_CONNECTIONS must be a positive whole number, not "many".');
  });
});
