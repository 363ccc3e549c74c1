// `npm start` serves what wrangler deploys: `wrangler deploy` (the real program, pointed at the
// platform with CLOUDFLARE_API_BASE_URL and nothing else; the first one in a terminal, claiming
// the account's workers.dev subdomain through its prompt), then the worker through the edge port
// with its workers.dev Host, as `curl -H 'Host: ...'` reaches it; a secret, a new version while a
// request is in flight, a rollback, zone routes, a deletion; workers that throw or hang answered
// as the platform answers them, their errors in its log, beside others serving; the same
// versions, deployments, routes and secrets after a restart and after a state export and
// import; a data directory given another secrets key refused; and two platforms on one
// PostgreSQL database.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { wrangler } from '../server/api-process';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { COMMAND_TEST_TIMEOUT_MS, ROOT } from '../worker/commands';
import { runPlatform, startPlatform, temporaryDirectory, type Platform } from './platform-process';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS * 2, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const TOKEN = 'deployed-workers-token-0123456789';
const SECRETS_KEY = 'a'.repeat(64);
const HOST = 'hello.team.workers.dev';
const ZONE = 'db737a563ced53f224ff5eae44905c5e'; // example.com

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

/** `wrangler secret put`, the value on its standard input as a user types it. */
function putSecret(target: Platform, dir: string, name: string, value: string): void {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'secret', 'put', name], {
    cwd: dir,
    input: value,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', XDG_CONFIG_HOME: path.join(work, '.config'), CI: 'true', WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_API_BASE_URL: target.urls.api!, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT },
    encoding: 'utf8',
  });
  expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
}

/** What the API says of the script: its versions, deployments, secrets' names, and the zone's routes. */
async function recorded(target: Platform) {
  const script = `/accounts/${ACCOUNT}/workers/scripts/hello`;
  return {
    versions: (await api(target, 'GET', `${script}/versions?per_page=100`)).result,
    deployments: (await api(target, 'GET', `${script}/deployments`)).result,
    secrets: (await api(target, 'GET', `${script}/secrets`)).result,
    routes: (await api(target, 'GET', `/zones/${ZONE}/workers/routes`)).result,
  };
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

// Every request logged (LOG_LEVEL=info), so that the log can be searched for secret values.
const start = (dataDir: string, env: Record<string, string> = {}) => startPlatform(work, [], { PORT: '0', API_TOKEN: TOKEN, DATA_DIR: dataDir, WORKERS_SECRETS_KEY: SECRETS_KEY, LOG_LEVEL: 'info', ...env });

/**
 * `wrangler deploy` in a terminal (`script` gives it one), answering its prompts as a user types:
 * each answer is typed once its question shows.
 */
async function deployAtTerminal(target: Platform, dir: string, answers: [RegExp, string][]): Promise<string> {
  const command = `'${process.execPath}' '${path.join(ROOT, 'node_modules/wrangler/bin/wrangler.js')}' deploy`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'dumb', XDG_CONFIG_HOME: path.join(work, '.config'), WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_API_BASE_URL: target.urls.api!, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const pending = [...answers];
  const read = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    const next = pending[0];
    if (next && next[0].test(output)) {
      pending.shift();
      setTimeout(() => child.stdin!.write(next[1]), 100);
    }
  };
  child.stdout!.on('data', read);
  child.stderr!.on('data', read);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, output).toBe(0);
  expect(pending, output).toEqual([]);
  return output;
}

beforeAll(async () => {
  platform = await start(path.join(work, 'data'));
  await api(platform, 'POST', `/accounts/${ACCOUNT}/r2/buckets`, { name: 'files' });
});

afterAll(() => platform?.stop());

describe('a worker deployed with wrangler', () => {
  it('claims the account\'s workers.dev subdomain through wrangler\'s prompt on a first deploy, then answers through the edge port with its workers.dev Host, its bucket and vars as bound', async () => {
    expect((await edgeGet(platform, HOST)).body).toBe('There is nothing here yet.');
    // The account has no subdomain yet: wrangler asks for one, checks it is free, and claims it.
    const output = await deployAtTerminal(platform, project('v1', 'v1'), [
      [/Would you like to register a workers\.dev subdomain now\?/, 'y'],
      [/What would you like your workers\.dev subdomain to be\?/, 'team\r'],
      [/Creating a workers\.dev subdomain for your account at https:\/\/team\.workers\.dev\. Ok to proceed\?/, 'y'],
    ]);
    expect(output).toContain('https://hello.team.workers.dev');
    expect((await api(platform, 'GET', `/accounts/${ACCOUNT}/workers/subdomain`)).result).toEqual({ subdomain: 'team' });
    // Served within a second of the API's answer (wrangler's last call).
    await served(platform, HOST, 'v1 no object no secret');
    const bucket = await fetch(`${platform.urls.api}/accounts/${ACCOUNT}/r2/buckets/files/objects/greeting.txt`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}` }, body: 'hello' });
    expect(bucket.status).toBeLessThan(300);
    expect((await edgeGet(platform, HOST)).body).toBe('v1 hello no secret');
  });

  it('gets a secret put with wrangler within a second', async () => {
    putSecret(platform, path.join(work, 'v1'), 'TOKEN', 's3cr3t');
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

  it('answers a worker that throws or hangs with the platform error, its error in the log only, while other scripts serve', async () => {
    const dir = path.join(work, 'failing');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'index.js'),
      `export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === '/throw') throw new TypeError('boom-in-the-failing-worker');
    if (path === '/hang') return new Promise(() => {});
    return new Response('failing is fine');
  },
};
`,
    );
    writeFileSync(path.join(dir, 'wrangler.toml'), 'name = "failing"\nmain = "index.js"\ncompatibility_date = "2026-07-01"\nworkers_dev = true\n');
    await deploy(platform, dir);
    const host = 'failing.team.workers.dev';
    await served(platform, host, 'failing is fine');
    const before = await edgeGet(platform, HOST);
    expect(before.status).toBe(200);
    const [thrown, other] = await Promise.all([edgeGet(platform, host, '/throw'), edgeGet(platform, HOST)]);
    expect(thrown).toEqual({ status: 500, body: 'error code: 1101' });
    expect(other).toEqual(before);
    const [hung, again] = await Promise.all([edgeGet(platform, host, '/hang'), edgeGet(platform, HOST)]);
    expect(hung).toEqual({ status: 500, body: 'error code: 1101' });
    expect(again).toEqual(before);
    // The error is in the platform's log, tagged with the script (in the request's line, and in
    // the worker's own line of its uncaught exception); never in the answer.
    // Whole lines only: the log is written as it goes, and the last line may be on its way.
    const lines = () => platform.stdout().split('\n').slice(0, -1).filter((entry) => entry.startsWith('{')).map((entry) => JSON.parse(entry) as Record<string, unknown>);
    await expect.poll(() => lines().find((entry) => entry.path === '/throw'), { timeout: 2000 }).toMatchObject({ host, status: 500, kind: 'worker', script: 'failing', result: 'exception', code: 1101 });
    await expect.poll(() => lines().some((entry) => entry.script === 'failing' && JSON.stringify(entry).includes('TypeError: boom-in-the-failing-worker')), { timeout: 2000 }).toBe(true);
    await expect.poll(() => lines().find((entry) => entry.path === '/hang'), { timeout: 2000 }).toMatchObject({ host, status: 500, script: 'failing', result: 'exception', code: 1101 });
    expect((await edgeGet(platform, host)).body).toBe('failing is fine');
    await deploy(platform, dir, ['delete']);
  });

  it('answers on zone routes, and stops answering once deleted', async () => {
    await deploy(platform, project('routed', 'routed', 'routes = [{ pattern = "shop.example.com/*", zone_name = "example.com" }]\n'));
    await served(platform, 'shop.example.com', 'routed hello no secret', 1000, '/cart?x=1');
    expect((await edgeGet(platform, 'other.example.com')).body).toBe('error code: 1016');
    await deploy(platform, path.join(work, 'routed'), ['delete']);
    await served(platform, HOST, 'There is nothing here yet.');
    expect((await edgeGet(platform, 'shop.example.com', '/cart')).status).toBe(530);
  });

  it('is served again after a restart and after a state export and import, with the same versions, deployments, routes and secrets, and no runtime outlives the platform', async () => {
    const dir = project('kept', 'kept', 'routes = [{ pattern = "kept.example.com/*", zone_name = "example.com" }]\n');
    await deploy(platform, dir);
    putSecret(platform, dir, 'TOKEN', 'kept-secret');
    await served(platform, HOST, 'kept hello kept-secret');
    await served(platform, 'kept.example.com', 'kept hello kept-secret', 1000, '/any');
    const before = await recorded(platform);
    expect(before.secrets).toEqual([{ name: 'TOKEN', type: 'secret_text' }]);
    expect(before.routes.map((route: { pattern: string; script: string }) => [route.pattern, route.script])).toEqual([['kept.example.com/*', 'hello']]);
    const runtimes = workerdProcesses(platform.child.pid!);
    expect(runtimes.length).toBeGreaterThanOrEqual(1);
    expect(await platform.stop()).toBe(0);
    // No secret value in anything the platform logged, every request of this file included.
    const logged = platform.stdout() + platform.stderr();
    expect(logged).toContain('"msg":"edge request"');
    for (const value of ['s3cr3t', 'kept-secret']) expect(logged).not.toContain(value);
    await expect.poll(() => runtimes.filter(alive), { timeout: 5000 }).toEqual([]);

    platform = await start(path.join(work, 'data'));
    expect(await recorded(platform)).toEqual(before);
    expect((await edgeGet(platform, HOST)).body).toBe('kept hello kept-secret');
    expect((await edgeGet(platform, 'kept.example.com', '/any')).body).toBe('kept hello kept-secret');

    const state = path.join(work, 'saved.state');
    const exported = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/state.ts'), 'export', state, '--data-dir', path.join(work, 'data')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, WORKERS_SECRETS_KEY: SECRETS_KEY } });
    expect(exported.status, exported.stderr).toBe(0);
    expect(readFileSync(state).includes('kept-secret')).toBe(false);
    const imported = await start(path.join(work, 'imported'), { STATE_FILE: state });
    try {
      expect(await recorded(imported)).toEqual(before);
      expect((await edgeGet(imported, HOST)).body).toBe('kept hello kept-secret');
      expect((await edgeGet(imported, 'kept.example.com', '/any')).body).toBe('kept hello kept-secret');
    } finally {
      expect(await imported.stop()).toBe(0);
    }
  });

  it('refuses to start on a store whose secrets another key sealed, saying so', async () => {
    const refused = await runPlatform(work, [], { PORT: '0', API_TOKEN: TOKEN, DATA_DIR: path.join(work, 'imported'), WORKERS_SECRETS_KEY: 'b'.repeat(64) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^cannot start the server: the store holds workers' secrets sealed under another key \(key id \S+; this platform's key is \S+\): give it the key they were sealed with \(WORKERS_SECRETS_KEY/m);
    expect(refused.stdout).not.toContain('Ready on');
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
