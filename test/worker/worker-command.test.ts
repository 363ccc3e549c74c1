// `npm run worker`: the committed example starts with one command; bad configurations and bad
// arguments stop it with a message and an exit code.
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { COMMAND_TEST_TIMEOUT_MS, expectCleanStop, ROOT, runCommand, startHost } from './commands';
import { configFile, dataDirectoryWith } from './config-files';
import { REFERENCE_WORKER } from './reference-host';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const EXAMPLE = join(ROOT, 'examples/reference-worker/wrangler.toml');

test('the example configuration serves the reference worker as docs/buckets-and-workers.md says', async () => {
  const dataDir = await dataDirectoryWith('my-bucket');
  const host = await startHost(
    ['--config', 'examples/reference-worker/wrangler.toml', '--port', '0', '--data-dir', dataDir],
    { AUTH_KEY_SECRET: 'example-secret' },
  );
  const stored = await fetch(`${host.url}/cat-pic.jpg`, {
    method: 'PUT',
    body: new Uint8Array([0xff, 0xd8, 0xff]),
    headers: { 'X-Custom-Auth-Key': 'example-secret', 'Content-Type': 'image/jpeg' },
  });
  expect([stored.status, await stored.text()]).toEqual([200, 'Put cat-pic.jpg successfully!']);
  const served = await fetch(`${host.url}/cat-pic.jpg`);
  expect(served.headers.get('content-type')).toBe('image/jpeg');
  expect([...new Uint8Array(await served.arrayBuffer())]).toEqual([0xff, 0xd8, 0xff]);
  expect((await fetch(`${host.url}/docs/readme.txt`)).status).toBe(404);
  expect((await fetch(`${host.url}/elsewhere.txt`)).status).toBe(403);
  await expectCleanStop(host);
});

/** Runs the worker command on a configuration that must not start, answering its stderr. */
async function refusedStart(config: string, env: Record<string, string> = {}, buckets = ['my-bucket']): Promise<string> {
  const dataDir = await dataDirectoryWith(...buckets);
  const { code, stdout, stderr } = await runCommand('worker', ['--config', config, '--port', '0', '--data-dir', dataDir], env);
  expect(code).toBe(1);
  expect(stdout).not.toContain('Ready on');
  const start = stderr.indexOf('cannot start the worker:\n');
  expect(start).toBeGreaterThanOrEqual(0);
  return stderr.slice(start + 'cannot start the worker:\n'.length);
}

const worker = (body: string) => configFile('wrangler.toml', `main = "${REFERENCE_WORKER}"\n${body}`);

describe.concurrent('configurations that do not start, each with its message', () => {
  test('a binding that is not a JavaScript identifier', async () => {
    const config = worker('[[r2_buckets]]\nbinding = "my-bucket"\nbucket_name = "my-bucket"');
    expect(await refusedStart(config)).toContain(
      `${config}: r2_buckets[0].binding: "my-bucket" is not a valid JavaScript identifier (letters, digits, _ and $, not starting with a digit)\n`,
    );
  });

  test('a bucket that does not exist in the data directory', async () => {
    const config = worker('[[r2_buckets]]\nbinding = "MY_BUCKET"\nbucket_name = "no-such-bucket"');
    expect(await refusedStart(config)).toMatch(
      new RegExp(`^${config}: r2_buckets\\[0\\]\\.bucket_name: no bucket "no-such-bucket" in the data directory /\\S+ \\(create it with: npm run bucket -- create no-such-bucket --data-dir /\\S+\\)\\n$`),
    );
  });

  test('an unknown key', async () => {
    const config = worker('[[r2_buckets]]\nbinding = "MY_BUCKET"\nbucket_name = "my-bucket"\nbucket_id = "x"');
    expect(await refusedStart(config)).toContain(
      `${config}: r2_buckets[0].bucket_id: unknown key; an entry here has binding, bucket_name, preview_bucket_name, jurisdiction\n`,
    );
  });

  test('a binding given twice', async () => {
    const config = worker('[[r2_buckets]]\nbinding = "MY_BUCKET"\nbucket_name = "my-bucket"\n[[r2_buckets]]\nbinding = "MY_BUCKET"\nbucket_name = "my-bucket"');
    expect(await refusedStart(config)).toContain(`${config}: r2_buckets[1].binding: "MY_BUCKET" is already bound by r2_buckets[0].binding\n`);
  });

  test('malformed TOML, with line and column', async () => {
    const config = configFile('wrangler.toml', 'main = "worker.ts"\n[[r2_buckets]\nbinding = "B"\n');
    expect(await refusedStart(config)).toBe(
      `${config}:2:14: malformed TOML: expected end of table array declaration\n1:  main = "worker.ts"\n2:  [[r2_buckets]\n                 ^\n3:  binding = "B"\n`,
    );
  });

  test('malformed JSONC, with line and column', async () => {
    const config = configFile('wrangler.jsonc', '{\n  // comment\n  "main": "worker.ts"\n  "r2_buckets": []\n}\n');
    expect(await refusedStart(config)).toBe(`${config}:4:3: malformed JSON: comma expected\n`);
  });

  test('a required secret that is not set', async () => {
    const config = worker('[secrets]\nrequired = ["AUTH_KEY_SECRET"]');
    expect(await refusedStart(config, { AUTH_KEY_SECRET: '' })).toBe(
      `${config}: secrets.required[0]: AUTH_KEY_SECRET is set but empty (in the environment)\n`,
    );
    expect(await refusedStart(config)).toBe(
      `${config}: secrets.required[0]: AUTH_KEY_SECRET is not set: export AUTH_KEY_SECRET in the environment or add a line AUTH_KEY_SECRET=... to ${join(config, '..', '.dev.vars')}\n`,
    );
  });

  test('a configuration file that does not exist', async () => {
    expect(await refusedStart(join(ROOT, 'no-such-config.toml'))).toBe(`${join(ROOT, 'no-such-config.toml')}: cannot read the file (ENOENT)\n`);
  });
});

describe.concurrent('arguments', () => {
  const USAGE = 'Usage: npm run worker -- --config <file> [--port <n>] [--data-dir <dir>]';

  test.each([
    [[], '--config <file> is required.'],
    [['--config', EXAMPLE, '--port', 'eighty'], '--port must be a whole number from 0 to 65535, not eighty.'],
    [['--config', EXAMPLE, '--port', '65536'], '--port must be a whole number from 0 to 65535, not 65536.'],
    [['--config', EXAMPLE, '--verbose'], "Unknown option '--verbose'"],
    [['--config', EXAMPLE, 'extra'], "Unexpected argument 'extra'"],
  ])('%j: exit 2 with the reason and the usage', async (args, reason) => {
    const { code, stderr } = await runCommand('worker', args);
    expect(code).toBe(2);
    expect(stderr).toContain(reason);
    expect(stderr).toContain(USAGE);
  });

  test('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await runCommand('worker', ['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(USAGE);
  });
});
