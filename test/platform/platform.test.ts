// `npm start` runs the whole platform: the API and the S3 endpoint over one data directory, the
// workers a configuration file lists beside them; every component reachable, configurable by
// the file and by variables, refused with file, key and reason when the configuration is wrong.
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOME_ACCOUNT_ID } from '../../src/bucket';
import { freePort } from '../support/ports';
import { runPlatform, startPlatform, temporaryDirectory, withFiles, type Platform } from './platform-process';

const TOKEN = 'platform-test-token';

function s3Client(platform: Platform, credentials = platform.s3Key!, maxAttempts?: number): S3Client {
  return new S3Client({ endpoint: platform.urls.s3!, region: 'auto', forcePathStyle: true, credentials, ...(maxAttempts ? { maxAttempts } : {}) });
}

async function apiBuckets(platform: Platform, token: string): Promise<string[]> {
  const response = await fetch(`${platform.urls.api}/accounts/${HOME_ACCOUNT_ID}/r2/buckets`, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { buckets: { name: string }[] } };
  return body.result.buckets.map((bucket) => bucket.name);
}

/** A request to the platform's edge port with a Host of our choosing. */
function edgeRequest(platform: Platform, host: string, path = '/'): Promise<{ status: number; body: string }> {
  const url = new URL(platform.urls.edge!);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path, headers: { host }, agent: false }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      })
      .on('error', reject);
  });
}

/** A module worker over its bucket binding: GET reads a key, PUT writes one. */
const WORKER = `export default {
  async fetch(request, env) {
    const key = new URL(request.url).pathname.slice(1);
    if (request.method === 'PUT') {
      await env.FILES.put(key, await request.text());
      return new Response('stored', { status: 201 });
    }
    const object = await env.FILES.get(key);
    return object ? new Response(object.body) : new Response('no such key', { status: 404 });
  },
};
`;

function workerFiles(bucket: string): Record<string, string> {
  return {
    'worker.mjs': WORKER,
    'wrangler.toml': `name = "files"\nmain = "worker.mjs"\ncompatibility_date = "2026-07-01"\n\n[[r2_buckets]]\nbinding = "FILES"\nbucket_name = "${bucket}"\n`,
  };
}

describe('npm start without a configuration file', () => {
  it('runs the API and the S3 endpoint over one data directory, the S3 key generated and printed once', async () => {
    const cwd = temporaryDirectory();
    const platform = await startPlatform(cwd, [], { PORT: '0' });
    try {
      expect(Object.keys(platform.urls).sort()).toEqual(['api', 'edge', 's3']);
      expect(platform.token).toBeDefined();
      expect(platform.s3Key).toBeDefined();
      // Shown once: the secret appears in the output exactly one time.
      expect(platform.stdout().split(platform.s3Key!.secretAccessKey).length - 1).toBe(1);
      expect(platform.stdout()).toContain(`over the data directory ${path.join(cwd, 'data')}`);

      const s3 = s3Client(platform);
      await s3.send(new CreateBucketCommand({ Bucket: 'made-through-s3' }));
      await s3.send(new PutObjectCommand({ Bucket: 'made-through-s3', Key: 'hello.txt', Body: 'hello' }));
      // The same bucket, through the management API.
      expect(await apiBuckets(platform, platform.token!)).toContain('made-through-s3');
      // A wrong secret is refused.
      await expect(s3Client(platform, { accessKeyId: platform.s3Key!.accessKeyId, secretAccessKey: 'not-the-secret' }).send(new CreateBucketCommand({ Bucket: 'other' }))).rejects.toMatchObject({
        name: 'SignatureDoesNotMatch',
      });

      // The edge answers as the platform does a zone without an origin, and a hostname it does not serve.
      const zone = await edgeRequest(platform, 'example.org');
      expect([zone.status, zone.body]).toEqual([530, 'error code: 1016']);
      const unknown = await edgeRequest(platform, 'nowhere.example');
      expect([unknown.status, unknown.body]).toEqual([530, 'error code: 1001']);

      const ready = await fetch(`${new URL(platform.urls.api!).origin}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        ready: true,
        database: 'sqlite',
        components: { api: { state: 'running', url: platform.urls.api }, s3: { state: 'running', url: platform.urls.s3 }, edge: { state: 'running', url: platform.urls.edge } },
      });
      s3.destroy();
    } finally {
      expect(await platform.stop()).toBe(0);
    }
  });

  it('puts the S3 endpoint on the port after the API, and takes given keys instead of generating one', async () => {
    const port = await freePort();
    const platform = await startPlatform(temporaryDirectory(), [], { PORT: String(port), API_TOKEN: TOKEN, S3_ACCESS_KEY_ID: 'given_key', S3_SECRET_ACCESS_KEY: 'given-secret-0123' });
    try {
      expect(platform.urls.api).toBe(`http://127.0.0.1:${port}/client/v4`);
      expect(platform.urls.s3).toBe(`http://127.0.0.1:${port + 1}`);
      expect(platform.s3Key).toBeUndefined();
      expect(platform.token).toBeUndefined();
      expect(platform.stdout()).not.toContain('given-secret-0123');
      const s3 = s3Client(platform, { accessKeyId: 'given_key', secretAccessKey: 'given-secret-0123' });
      await s3.send(new CreateBucketCommand({ Bucket: 'given-keys' }));
      expect(await apiBuckets(platform, TOKEN)).toEqual(['given-keys']);
      s3.destroy();
    } finally {
      expect(await platform.stop()).toBe(0);
    }
  });
});

describe('a configuration file', () => {
  it('adds a worker whose bucket binding sees the buckets of the API and the S3 endpoint; port 0 everywhere', async () => {
    const cwd = withFiles(workerFiles('shared'));
    // First the bucket, made through S3 on the default platform of that directory.
    const first = await startPlatform(cwd, [], { PORT: '0', API_TOKEN: TOKEN });
    const s3 = s3Client(first);
    await s3.send(new CreateBucketCommand({ Bucket: 'shared' }));
    await s3.send(new PutObjectCommand({ Bucket: 'shared', Key: 'from-s3.txt', Body: 'written through S3' }));
    s3.destroy();
    expect(await first.stop()).toBe(0);

    withFiles(
      {
        'platform.toml': `[api]\nport = 0\n\n[s3]\nport = 0\naccess_keys = [{ id = "file_key", secret = "file-secret-0123" }]\n\n[[workers]]\nconfig = "wrangler.toml"\nport = 1\n`,
      },
      cwd,
    );
    // platform.toml in the working directory is read without --config.
    // The worker's variable (named after it) wins over the file's port, which could not be used.
    const platform = await startPlatform(cwd, [], { API_TOKEN: TOKEN, WORKER_FILES_PORT: '0' });
    try {
      expect(Object.keys(platform.urls).sort()).toEqual(['api', 'edge', 's3', 'worker:files']);
      for (const url of Object.values(platform.urls)) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:(?!0\b)\d+/);
      expect(platform.s3Key).toBeUndefined();
      const worker = platform.urls['worker:files']!;
      expect(await (await fetch(`${worker}/from-s3.txt`)).text()).toBe('written through S3');
      expect((await fetch(`${worker}/from-worker.txt`, { method: 'PUT', body: 'written by the worker' })).status).toBe(201);
      const s3again = s3Client(platform, { accessKeyId: 'file_key', secretAccessKey: 'file-secret-0123' });
      const read = await s3again.send(new GetObjectCommand({ Bucket: 'shared', Key: 'from-worker.txt' }));
      expect(await read.Body!.transformToString()).toBe('written by the worker');
      s3again.destroy();
      expect(await apiBuckets(platform, TOKEN)).toEqual(['shared']);
      const ready = (await (await fetch(`${new URL(platform.urls.api!).origin}/readyz`)).json()) as { components: Record<string, { state: string; url: string }> };
      expect(ready.components['worker:files']).toEqual({ state: 'running', url: worker });
    } finally {
      expect(await platform.stop()).toBe(0);
    }
  });

  it('turns components off: the API alone, the edge alone, or the S3 endpoint alone', async () => {
    const cwd = withFiles({ 'api-only.toml': '[s3]\nenabled = false\n', 's3-only.jsonc': '// JSON with comments is read too\n{ "api": { "enabled": false }, "s3": { "port": 0 }, "edge": { "enabled": false }, }\n' });
    const apiOnly = await startPlatform(cwd, ['--config', 'api-only.toml'], { PORT: '0', API_TOKEN: TOKEN });
    try {
      expect(Object.keys(apiOnly.urls)).toEqual(['api', 'edge']);
      expect(apiOnly.s3Key).toBeUndefined();
      const ready = (await (await fetch(`${new URL(apiOnly.urls.api!).origin}/readyz`)).json()) as { components: object };
      expect(ready.components).toEqual({ edge: { state: 'running', url: apiOnly.urls.edge }, api: { state: 'running', url: apiOnly.urls.api } });
    } finally {
      expect(await apiOnly.stop()).toBe(0);
    }
    // The edge alone reads what is deployed from the store itself.
    const edgeOnly = await startPlatform(withFiles({ 'platform.toml': '[api]\nenabled = false\n\n[s3]\nenabled = false\n\n[edge]\nport = 0\n' }), [], { DATA_DIR: temporaryDirectory() });
    try {
      expect(Object.keys(edgeOnly.urls)).toEqual(['edge']);
      // A zone's hostname without a workers route or an origin: the platform's origin DNS error.
      expect(await edgeRequest(edgeOnly, 'example.org')).toEqual({ status: 530, body: 'error code: 1016' });
      expect(await edgeRequest(edgeOnly, 'not-a-zone.example')).toEqual({ status: 530, body: 'error code: 1001' });
    } finally {
      expect(await edgeOnly.stop()).toBe(0);
    }
    const s3Only = await startPlatform(cwd, ['--config', 's3-only.jsonc']);
    try {
      expect(Object.keys(s3Only.urls)).toEqual(['s3']);
      expect(s3Only.token).toBeUndefined();
      expect(s3Only.stdout()).toContain(`Ready on ${s3Only.urls.s3} (pid`);
      const s3 = s3Client(s3Only);
      await s3.send(new CreateBucketCommand({ Bucket: 'alone' }));
      s3.destroy();
    } finally {
      expect(await s3Only.stop()).toBe(0);
    }
  });

  it('lets variables win over the file, and runs two platforms side by side', async () => {
    const cwd = withFiles({ 'platform.toml': '[api]\nport = 1\n\n[s3]\nport = 2\n' });
    const [one, two] = await Promise.all([
      startPlatform(cwd, [], { PORT: '0', S3_PORT: '0', DATA_DIR: 'one', API_TOKEN: TOKEN }),
      startPlatform(cwd, [], { PORT: '0', S3_PORT: '0', DATA_DIR: 'two', API_TOKEN: TOKEN }),
    ]);
    try {
      expect(new Set(Object.values({ ...one.urls, ...Object.fromEntries(Object.entries(two.urls).map(([k, v]) => [`2${k}`, v])) }).map((url) => new URL(url).port)).size).toBe(6);
      const s3 = s3Client(one);
      await s3.send(new CreateBucketCommand({ Bucket: 'only-in-one' }));
      s3.destroy();
      expect(await apiBuckets(one, TOKEN)).toEqual(['only-in-one']);
      expect(await apiBuckets(two, TOKEN)).toEqual([]);
    } finally {
      expect(await Promise.all([one.stop(), two.stop()])).toEqual([0, 0]);
    }
  });
});

describe('state', () => {
  it('starts a new data directory from the state file [state] load names, and leaves a used one alone', async () => {
    const cwd = temporaryDirectory();
    const first = await startPlatform(cwd, [], { PORT: '0', API_TOKEN: TOKEN, DATA_DIR: 'first' });
    const s3 = s3Client(first);
    await s3.send(new CreateBucketCommand({ Bucket: 'saved' }));
    await s3.send(new PutObjectCommand({ Bucket: 'saved', Key: 'kept.txt', Body: 'kept across the file' }));
    s3.destroy();
    expect(await first.stop()).toBe(0);
    const { spawnSync } = await import('node:child_process');
    const root = path.resolve(import.meta.dirname, '../..');
    const exported = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/state.ts'), 'export', path.join(cwd, 'saved.state'), '--data-dir', path.join(cwd, 'first')], { cwd: root, encoding: 'utf8' });
    expect(exported.status, exported.stderr).toBe(0);

    withFiles({ 'platform.toml': '[state]\ndata_dir = "second"\nload = "saved.state"\n\n[api]\nport = 0\n' }, cwd);
    const second = await startPlatform(cwd, [], { API_TOKEN: TOKEN, LOG_LEVEL: 'info' });
    try {
      expect(second.stdout()).toContain('"msg":"state loaded"');
      expect(await apiBuckets(second, TOKEN)).toEqual(['saved']);
      const read = await s3Client(second).send(new GetObjectCommand({ Bucket: 'saved', Key: 'kept.txt' }));
      expect(await read.Body!.transformToString()).toBe('kept across the file');
    } finally {
      expect(await second.stop()).toBe(0);
    }
    const third = await startPlatform(cwd, [], { API_TOKEN: TOKEN, LOG_LEVEL: 'info' });
    expect(third.stdout()).toContain('state file not loaded');
    expect(await third.stop()).toBe(0);
  });
});

describe('a configuration that cannot be used', () => {
  const refused = async (files: Record<string, string>, env: Record<string, string> = {}) => {
    const cwd = withFiles(files);
    const result = await runPlatform(cwd, ['--config', 'platform.toml'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('Ready on');
    // No stack trace, ever.
    expect(result.stderr).not.toMatch(/^\s+at /m);
    return { file: path.join(cwd, 'platform.toml'), stderr: result.stderr };
  };

  it('names the file, the key and the reason of every problem, before anything listens', async () => {
    const { file, stderr } = await refused({ 'platform.toml': '[api]\nport = 70000\nhots = "x"\n\n[s3]\nport = "eighty"\n\n[colour]\nblue = true\n' });
    expect(stderr).toContain(`${file}: api.port: must be a port from 0 to 65535, not 70000`);
    expect(stderr).toContain(`${file}: api.hots: unknown key (keys of api: enabled, port, host)`);
    expect(stderr).toContain(`${file}: s3.port: must be a port from 0 to 65535, not "eighty"`);
    expect(stderr).toContain(`${file}: colour: unknown key (keys: state, api, s3, edge, workers, rate_limit, faults)`);
  });

  it('refuses two components on one port', async () => {
    const { file, stderr } = await refused({ 'platform.toml': '[api]\nport = 9100\n\n[s3]\nport = 9100\n' });
    expect(stderr).toContain(`${file}: s3.port: 9100 is the port of api.port in ${file} too; each component needs its own`);
    const environment = await refused({ 'platform.toml': '[api]\nport = 9100\n' }, { S3_PORT: '9100' });
    expect(environment.stderr).toContain(`S3_PORT: 9100 is the port of api.port in ${environment.file} too; each component needs its own`);
  });

  it('refuses a worker whose configuration is missing or wrong, naming both files', async () => {
    const missing = await refused({ 'platform.toml': '[[workers]]\nconfig = "nowhere/wrangler.toml"\n' });
    expect(missing.stderr).toContain(`${missing.file}: workers[0].config: ${path.join(path.dirname(missing.file), 'nowhere/wrangler.toml')}: cannot read the file (ENOENT)`);
    const unnamed = await refused({ 'platform.toml': '[[workers]]\nport = 9000\n' });
    expect(unnamed.stderr).toContain(`${unnamed.file}: workers[0].config: must be a file path, not nothing`);
    const wrong = await refused({ 'platform.toml': '[[workers]]\nconfig = "wrangler.toml"\n', 'wrangler.toml': 'main = "absent.mjs"\n' });
    expect(wrong.stderr).toContain(`${wrong.file}: workers[0].config: ${path.join(path.dirname(wrong.file), 'wrangler.toml')}: main: no such file: ${path.join(path.dirname(wrong.file), 'absent.mjs')}`);
  });

  it('refuses a worker bound to a bucket the data directory lacks, and a port already taken', async () => {
    const missing = await refused({ ...workerFiles('nowhere'), 'platform.toml': '[api]\nport = 0\n\n[s3]\nport = 0\n\n[[workers]]\nconfig = "wrangler.toml"\nport = 0\n' });
    expect(missing.stderr).toContain(`worker files: ${path.join(path.dirname(missing.file), 'wrangler.toml')}: r2_buckets[0].bucket_name: no bucket "nowhere"`);
    const taken = net.createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    try {
      const port = (taken.address() as AddressInfo).port;
      const busy = await refused({ 'platform.toml': '[api]\nport = 0\n' }, { S3_PORT: String(port) });
      expect(busy.stderr).toContain(`the S3 endpoint: port ${port} on 127.0.0.1 is already in use; choose another with S3_PORT or [s3] port`);
    } finally {
      taken.close();
    }
  });

  it('refuses bad fault rules, each named by its place in the file', async () => {
    const { file, stderr } = await refused({
      'platform.toml': '[[faults.api]]\nmatch = { operationId = "listZone" }\nstatus = 429\n\n[[faults.s3]]\nstatus = 200\nprobability = 2\n',
    });
    expect(stderr).toContain(`${file}: faults.s3[0]: status must be an error status from 400 to 599, not 200`);
    expect(stderr).toContain(`${file}: faults.s3[0]: probability must be a number from 0 to 1, not 2`);
    // The API's rules are checked against its document's operationIds.
    const api = await refused({ 'platform.toml': '[[faults.api]]\nmatch = { operationId = "listZone" }\nstatus = 429\n' });
    expect(api.stderr).toContain(`${api.file}: faults.api[0]: match.operationId "listZone" is not an operationId of the API document (did you mean listZones?)`);
  });

  it('refuses a bad variable with its name, as ever', async () => {
    const result = await runPlatform(temporaryDirectory(), [], { PORT: 'eighty', S3_PORT: '-1' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT must be an integer from 0 to 65535, not "eighty"');
    expect(result.stderr).toContain('S3_PORT must be an integer from 0 to 65535, not "-1"');
  });
});

describe('faults, the rate limit and stopping', () => {
  it('applies fault rules and the rate limit of the file to the API and the S3 endpoint', async () => {
    const cwd = withFiles({
      'platform.toml': `[api]\nport = 0\n\n[s3]\nport = 0\n\n[rate_limit]\nrequests = 3\nwindow_seconds = 60\n
[[faults.api]]
match = { operationId = "listZones" }
status = 503
first = 1

[[faults.s3]]
match = { operation = "PutObject" }
status = 503
first = 1
`,
    });
    const platform = await startPlatform(cwd, [], { API_TOKEN: TOKEN });
    try {
      const zones = () => fetch(`${platform.urls.api}/zones`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const failed = await zones();
      expect(failed.status).toBe(503);
      expect(((await failed.json()) as { success: boolean }).success).toBe(false);
      expect((await zones()).status).toBe(200);
      expect((await zones()).status).toBe(200);
      const limited = await zones();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

      // The AWS SDK retries the SlowDown and completes; without retries it fails with it.
      const once = s3Client(platform, platform.s3Key!, 1);
      await once.send(new CreateBucketCommand({ Bucket: 'faulty' }));
      const error = await once.send(new PutObjectCommand({ Bucket: 'faulty', Key: 'a', Body: 'a' })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(S3ServiceException);
      expect((error as S3ServiceException).name).toBe('SlowDown');
      await once.send(new PutObjectCommand({ Bucket: 'faulty', Key: 'a', Body: 'a' }));
      once.destroy();
      expect(platform.stderr()).toContain('fault injected');
    } finally {
      expect(await platform.stop()).toBe(0);
    }
  });

  it('lets requests in flight finish on SIGTERM, then exits 0', async () => {
    const cwd = withFiles({
      'platform.toml': `[api]\nport = 0\n\n[s3]\nport = 0\n\n[[faults.api]]\nmatch = { operationId = "listZones" }\ndelayMs = 1500\n\n[[faults.s3]]\nmatch = { operation = "ListBuckets" }\ndelayMs = 1500\n`,
    });
    const platform = await startPlatform(cwd, [], { API_TOKEN: TOKEN });
    const s3 = s3Client(platform);
    const apiRequest = fetch(`${platform.urls.api}/zones`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const { ListBucketsCommand } = await import('@aws-sdk/client-s3');
    const s3Request = s3.send(new ListBucketsCommand({}));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const code = platform.stop('SIGTERM');
    expect((await apiRequest).status).toBe(200);
    expect((await s3Request).Buckets).toEqual([]);
    expect(await code).toBe(0);
    s3.destroy();
  });
});

describe('the example configuration', () => {
  it('is read and checked as the platform reads it', async () => {
    const { resolveSettings } = await import('../../src/platform/settings');
    const root = path.resolve(import.meta.dirname, '../..');
    const settings = resolveSettings(path.join(root, 'examples/platform.toml'), { AUTH_KEY_SECRET: 'change-me' });
    expect(settings.dataDir).toBe(path.join(root, 'data'));
    expect([settings.api?.port, settings.s3?.port, settings.edge?.port, settings.workers.map((worker) => [worker.name, worker.port])]).toEqual([8787, 8788, 8789, [['reference-worker', 8790]]]);
    expect(settings.s3?.generatedKey).toBeDefined();
  });
});
