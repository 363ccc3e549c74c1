// The worker host as `npm run worker` runs it: what a worker gets (env, request, ctx), what
// happens when it fails, compatibility settings reaching the bucket, and stopping.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { BucketCatalogue } from '../../src/bucket';
import { waitUntil } from '../support/wait';
import { COMMAND_TEST_TIMEOUT_MS, expectCleanStop, type Host, isRunning, ROOT, runCommand, startHost } from './commands';
import { configFile, dataDirectoryWith, temporaryDirectory } from './config-files';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const PROBE = join(ROOT, 'test/worker/fixtures/probe-worker.ts');

/** A configuration for the probe worker with BUCKET bound to `probe-bucket`, plus `extra` lines. */
function probeConfig(extra = '', directory = temporaryDirectory()): string {
  return configFile(
    'wrangler.toml',
    `name = "probe"\nmain = "${PROBE}"\n${extra}\n[[r2_buckets]]\nbinding = "BUCKET"\nbucket_name = "probe-bucket"\n`,
    directory,
  );
}

async function startProbe(extra = '', env: Record<string, string> = {}, directory?: string) {
  const dataDir = await dataDirectoryWith('probe-bucket');
  const host = await startHost(['--config', probeConfig(extra, directory), '--port', '0', '--data-dir', dataDir], env);
  return { host, dataDir };
}

const getJson = async (host: Host, path: string) => (await fetch(`${host.url}${path}`)).json();


describe('what the worker is given', () => {
  let host: Host;
  beforeAll(async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, '.dev.vars'), 'FROM_FILE=file-value\nNOT_DECLARED=left out\n');
    ({ host } = await startProbe(
      'workers_dev = true\n[vars]\nTEXT = "hello"\nCOUNT = 3\nON = true\nLIST = ["a", "b"]\nTABLE = { depth = { n = 1 } }\n[secrets]\nrequired = ["FROM_ENV", "FROM_FILE"]\n',
      { FROM_ENV: 'env-value', FROM_FILE_UNUSED: 'x' },
      directory,
    ));
  });
  afterAll(() => expectCleanStop(host));

  test('env holds the bound bucket, the vars as JSON values and the declared secrets, nothing else', async () => {
    expect(await getJson(host, '/env')).toEqual({
      BUCKET: { methods: ['head', 'get', 'put', 'delete', 'list'] },
      TEXT: 'hello',
      COUNT: 3,
      ON: true,
      LIST: ['a', 'b'],
      TABLE: { depth: { n: 1 } },
      FROM_ENV: 'env-value',
      FROM_FILE: 'file-value',
    });
  });

  test('the start-up lines say what each env entry is, and never a secret value', () => {
    expect(host.output.stdout).toContain(
      [
        `Worker probe: ${PROBE}`,
        '  env.BUCKET: bucket probe-bucket',
        '  env.TEXT: var',
        '  env.COUNT: var',
        '  env.ON: var',
        '  env.LIST: var',
        '  env.TABLE: var',
        '  env.FROM_ENV: secret (from environment)',
        '  env.FROM_FILE: secret (from .dev.vars)',
        'Ignored deployment settings: workers_dev',
        `Ready on ${host.url} (pid ${host.pid})`,
      ].join('\n'),
    );
    expect(host.output.stdout + host.output.stderr).not.toMatch(/env-value|file-value/);
  });

  test('the request is a standard Request with the method, URL and headers sent', async () => {
    const response = await fetch(`${host.url}/request?q=1`, { method: 'PATCH', headers: { 'X-Probe': 'yes' } });
    expect(await response.json()).toEqual({ isRequest: true, method: 'PATCH', url: `${host.url}/request?q=1`, probe: 'yes' });
  });

  test('request bodies stream through to the response', async () => {
    const body = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
    const response = await fetch(`${host.url}/echo`, { method: 'POST', body });
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    // Compared as one buffer: an element-by-element deep equality of 3 MiB would take seconds.
    expect(Buffer.from(await response.arrayBuffer()).equals(body)).toBe(true);
  });

  test('ctx has waitUntil, passThroughOnException and props', async () => {
    expect(await getJson(host, '/ctx')).toEqual({ waitUntil: 'function', passThroughOnException: 'function', props: {} });
  });

  test('work given to waitUntil runs after the response', async () => {
    const accepted = await fetch(`${host.url}/later?key=after-response`);
    expect([accepted.status, await accepted.text()]).toEqual([202, 'accepted']);
    let text = '';
    await waitUntil('the work after the response to be stored', async () => (text = await (await fetch(`${host.url}/read?key=after-response`)).text()) !== 'absent');
    expect(text).toBe('done later');
  });

  test('an exception, or a result that is not a Response, answers a bare 500 and is reported', async () => {
    for (const path of ['/throw', '/not-a-response']) {
      const response = await fetch(`${host.url}${path}`);
      expect(response.status).toBe(500);
      expect(await response.text()).toBe('Internal Server Error');
    }
    expect(host.output.stderr).toContain('GET /throw: the worker threw Error: boom\n    at ');
    expect(host.output.stderr).toContain("GET /not-a-response: the worker's fetch returned plain text, not a Response");
    // The host goes on serving.
    expect((await fetch(`${host.url}/ctx`)).status).toBe(200);
  });

  test('a client that hangs up mid-upload is reported as such, and the host goes on', async () => {
    const aborter = new AbortController();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (++sent < 4) return controller.enqueue(new Uint8Array(64 * 1024));
        aborter.abort();
        controller.error(new Error('the client gave up'));
      },
    });
    const upload = fetch(`${host.url}/consume`, { method: 'POST', body, signal: aborter.signal, duplex: 'half' } as RequestInit);
    await expect(upload).rejects.toThrow('This operation was aborted');
    await waitUntil('the hang-up to be reported', () => host.output.stderr.includes('POST /consume: the client went away before the response (Error: aborted)'));
    expect(host.output.stderr).not.toContain('POST /consume: the worker threw');
    expect(await (await fetch(`${host.url}/consume`, { method: 'POST', body: 'abc' })).text()).toBe('3 bytes');
  });

  test('failed waitUntil work is reported', async () => {
    expect((await fetch(`${host.url}/failing-wait`)).status).toBe(200);
    await waitUntil('the failed ctx.waitUntil work to be reported', () => host.output.stderr.includes('ctx.waitUntil work failed: Error: wait failed\n    at '));
  });
});

describe('the compatibility date and flags reach the bucket', () => {
  test.each([
    ['compatibility_date = "2022-08-03"', { httpMetadata: { contentType: 'text/plain' }, customMetadata: { colour: 'blue' } }],
    ['compatibility_date = "2022-08-04"', { httpMetadata: null, customMetadata: { colour: 'blue' } }],
    ['compatibility_date = "2022-08-03"\ncompatibility_flags = ["r2_list_honor_include"]', { httpMetadata: null, customMetadata: { colour: 'blue' } }],
  ])('%s: list with include: ["customMetadata"]', async (settings, listed) => {
    const { host } = await startProbe(settings);
    expect(await getJson(host, '/list')).toEqual(listed);
    await expectCleanStop(host);
  });
});

describe('stopping', () => {
  test('SIGTERM lets waitUntil work finish before the buckets close', async () => {
    const { host, dataDir } = await startProbe();
    expect((await fetch(`${host.url}/later?key=finished-on-stop`)).status).toBe(202);
    await expectCleanStop(host);
    const catalogue = new BucketCatalogue(dataDir);
    const bucket = await catalogue.open('probe-bucket');
    expect(await (await bucket.get('finished-on-stop'))?.text()).toBe('done later');
    await catalogue.close();
  });

  test('Ctrl-C (SIGINT to the process group) stops cleanly', async () => {
    const { host } = await startProbe();
    const { stdout } = await host.interrupt('SIGINT');
    expect(stdout).toMatch(/Stopping \(SIGINT\)\nStopped\n$/);
    expect(isRunning(host.pid)).toBe(false);
  });
});

describe('failures to start', () => {
  test('a port in use', async () => {
    const { host, dataDir } = await startProbe();
    const port = new URL(host.url).port;
    const second = await runCommand('worker', ['--config', probeConfig(), '--port', port, '--data-dir', dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`cannot start the worker:\nport ${port} on 127.0.0.1 is already in use; choose another with --port\n`);
    await expectCleanStop(host);
  });

  test.each([
    ['no-default-export.ts', (main: string) => `${main} is not a module worker: it must export default { fetch(request, env, ctx) { ... } }`],
    ['fails-to-load.ts', (main: string) => `cannot load the worker ${main}: broken at the top level`],
  ])('a main module that is not a worker: %s', async (fixture, message) => {
    const main = join(ROOT, 'test/worker/fixtures', fixture);
    const dataDir = await dataDirectoryWith('probe-bucket');
    const config = configFile('wrangler.toml', `main = "${main}"\n`);
    const { code, stderr } = await runCommand('worker', ['--config', config, '--port', '0', '--data-dir', dataDir]);
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot start the worker:\n${message(main)}\n`);
  });
});
