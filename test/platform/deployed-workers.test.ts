// `npm start` serves what wrangler deploys: `wrangler deploy` (the real program, pointed at the
// platform with CLOUDFLARE_API_BASE_URL and nothing else), then the worker through the edge port
// with its workers.dev Host, as `curl -H 'Host: ...'` reaches it; a secret, a new version while a
// request is in flight, a rollback, zone routes, a deletion; the same after a restart and after a
// state export and import; and two platforms on one PostgreSQL database.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { wrangler } from '../server/api-process';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { COMMAND_TEST_TIMEOUT_MS, ROOT } from '../worker/commands';
import { startPlatform, temporaryDirectory, type Platform } from './platform-process';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS * 2, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const TOKEN = 'deployed-workers-token-0123456789';
const SECRETS_KEY = 'a'.repeat(64);
const HOST = 'hello.team.workers.dev';

/** A worker that names its version (a var), reads its bucket and its secret, and waits when asked. */
const HELLO = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const wait = Number(url.searchParams.get('wait') ?? 0);
    if (wait) await scheduler.wait(wait);
    const object = await env.FILES.get('greeting.txt');
    return new Response(\`\${env.VERSION} \${object ? await object.text() : 'no object'} \${env.TOKEN ?? 'no secret'}\`);
  },
};
`;

const work = temporaryDirectory();
let platform: Platform;

/** GET through the edge port with a Host of our choosing. */
function edgeGet(target: Platform, host: string, requestPath = '/'): Promise<{ status: number; body: string }> {
  const url = new URL(target.urls.edge!);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path: requestPath, headers: { host }, agent: false }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      })
      .on('error', reject);
  });
}

/** Polls the edge until `expected` answers (or fails after `ms`): what a deployment changed shows up at once. */
async function served(target: Platform, host: string, expected: string, ms = 1000, requestPath = '/'): Promise<void> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < ms) {
    last = (await edgeGet(target, host, requestPath)).body;
    if (last === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${host}${requestPath} answered ${JSON.stringify(last)}, not ${JSON.stringify(expected)}, for ${ms} ms`);
}

async function api(target: Platform, method: string, pathAndQuery: string, body?: unknown) {
  const response = await fetch(`${target.urls.api}${pathAndQuery}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as { result: any };
}

function project(name: string, version: string, extra = ''): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'index.js'), HELLO);
  writeFileSync(
    path.join(dir, 'wrangler.toml'),
    `name = "hello"\nmain = "index.js"\ncompatibility_date = "2026-07-01"\nworkers_dev = true\n${extra}\n[vars]\nVERSION = "${version}"\n\n[[r2_buckets]]\nbinding = "FILES"\nbucket_name = "files"\n`,
  );
  return dir;
}

async function deploy(target: Platform, dir: string, args: string[] = ['deploy']): Promise<string> {
  const result = await wrangler(args, { CLOUDFLARE_API_BASE_URL: target.urls.api!, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT }, dir);
  expect(result.code, result.output).toBe(0);
  return result.output;
}

/** The workerd processes a platform's runtime started (its descendants running workerd). */
function workerdProcesses(pid: number): number[] {
  const children = (parent: number): number[] => {
    try {
      return readdirSync(`/proc/${parent}/task`).flatMap((task) => readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      return [];
    }
  };
  const all: number[] = [];
  for (let queue = children(pid); queue.length > 0; ) {
    const next = queue.shift()!;
    all.push(next);
    queue.push(...children(next));
  }
  return all.filter((candidate) => {
    try {
      return readFileSync(`/proc/${candidate}/cmdline`, 'utf8').includes('workerd\0serve\0');
    } catch {
      return false;
    }
  });
}

/** Whether a process is still there. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const start = (dataDir: string, env: Record<string, string> = {}) => startPlatform(work, [], { PORT: '0', API_TOKEN: TOKEN, DATA_DIR: dataDir, WORKERS_SECRETS_KEY: SECRETS_KEY, ...env });

beforeAll(async () => {
  platform = await start(path.join(work, 'data'));
  await api(platform, 'PUT', `/accounts/${ACCOUNT}/workers/subdomain`, { subdomain: 'team' });
  await api(platform, 'POST', `/accounts/${ACCOUNT}/r2/buckets`, { name: 'files' });
});

afterAll(() => platform?.stop());

describe('a worker deployed with wrangler', () => {
  it('answers through the edge port with its workers.dev Host, its bucket and vars as bound', async () => {
    expect((await edgeGet(platform, HOST)).body).toBe('There is nothing here yet.');
    await deploy(platform, project('v1', 'v1'));
    // Served within a second of the API's answer (wrangler's last call).
    await served(platform, HOST, 'v1 no object no secret');
    const bucket = await fetch(`${platform.urls.api}/accounts/${ACCOUNT}/r2/buckets/files/objects/greeting.txt`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}` }, body: 'hello' });
    expect(bucket.status).toBeLessThan(300);
    expect((await edgeGet(platform, HOST)).body).toBe('v1 hello no secret');
  });

  it('gets a secret put with wrangler within a second', async () => {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'secret', 'put', 'TOKEN'], {
      cwd: path.join(work, 'v1'),
      input: 's3cr3t',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: path.join(work, '.config'), CI: 'true', WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_API_BASE_URL: platform.urls.api!, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT },
      encoding: 'utf8',
    });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    await served(platform, HOST, 'v1 hello s3cr3t');
  });

  it('serves a new version from the next request while a request in flight finishes on the old one, and rolls back', async () => {
    // Long enough to outlast wrangler's deployment of the next version.
    let finished = false;
    const inFlight = edgeGet(platform, HOST, '/?wait=15000').finally(() => (finished = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const output = await deploy(platform, project('v2', 'v2'));
    await served(platform, HOST, 'v2 hello s3cr3t');
    expect(finished).toBe(false);
    expect(await inFlight).toEqual({ status: 200, body: 'v1 hello s3cr3t' });
    const versions = (await api(platform, 'GET', `/accounts/${ACCOUNT}/workers/scripts/hello/versions`)).result.items as { id: string; number: number }[];
    const first = versions.find((version) => version.number === 1)!;
    expect(output).not.toContain(first.id);
    await deploy(platform, path.join(work, 'v2'), ['rollback', first.id, '-y', '-m', 'back to the first']);
    await served(platform, HOST, 'v1 hello no secret');
  });

  it('answers on zone routes, and stops answering once deleted', async () => {
    await deploy(platform, project('routed', 'routed', 'routes = [{ pattern = "shop.example.com/*", zone_name = "example.com" }]\n'));
    await served(platform, 'shop.example.com', 'routed hello no secret', 1000, '/cart?x=1');
    expect((await edgeGet(platform, 'other.example.com')).body).toBe('error code: 1016');
    await deploy(platform, path.join(work, 'routed'), ['delete']);
    await served(platform, HOST, 'There is nothing here yet.');
    expect((await edgeGet(platform, 'shop.example.com', '/cart')).status).toBe(530);
  });

  it('is served again after a restart and after a state export and import, and no runtime outlives the platform', async () => {
    await deploy(platform, project('kept', 'kept'));
    await served(platform, HOST, 'kept hello no secret');
    const runtimes = workerdProcesses(platform.child.pid!);
    expect(runtimes.length).toBeGreaterThanOrEqual(1);
    expect(await platform.stop()).toBe(0);
    await expect.poll(() => runtimes.filter(alive), { timeout: 5000 }).toEqual([]);
    platform = await start(path.join(work, 'data'));
    expect((await edgeGet(platform, HOST)).body).toBe('kept hello no secret');

    const state = path.join(work, 'saved.state');
    const exported = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/state.ts'), 'export', state, '--data-dir', path.join(work, 'data')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, WORKERS_SECRETS_KEY: SECRETS_KEY } });
    expect(exported.status, exported.stderr).toBe(0);
    const imported = await start(path.join(work, 'imported'), { STATE_FILE: state });
    try {
      expect((await edgeGet(imported, HOST)).body).toBe('kept hello no secret');
    } finally {
      expect(await imported.stop()).toBe(0);
    }
  });
});

describe('two platforms on one PostgreSQL database', () => {
  let cluster: PostgresCluster;
  afterAll(() => cluster?.stop());

  it('serve a deployment made through either within a second', async () => {
    cluster = await startPostgres();
    const database = await cluster.createDatabase();
    const [one, two] = await Promise.all([start(path.join(work, 'pg-one'), { DATABASE_URL: database }), start(path.join(work, 'pg-two'), { DATABASE_URL: database })]);
    try {
      await api(one, 'PUT', `/accounts/${ACCOUNT}/workers/subdomain`, { subdomain: 'team' });
      await api(one, 'POST', `/accounts/${ACCOUNT}/r2/buckets`, { name: 'files' });
      await deploy(one, project('pg', 'pg'));
      await served(two, HOST, 'pg no object no secret', 1000);
    } finally {
      await Promise.all([one.stop(), two.stop()]);
    }
  });
});
