// wrangler 4 (the pinned devDependency, as a separate process) deploying workers to the API as
// `npm start` runs it, pointed at it with CLOUDFLARE_API_BASE_URL and nothing else: deploy with
// workers_dev, with routes and with cron triggers, triggers deploy, versions list and view, deployments list and status, rollback,
// secret put, list, bulk and delete, delete; then what it did survives a restart and a state
// export and import, and no secret value is stored in plain text.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMAND_TEST_TIMEOUT_MS, ROOT } from '../worker/commands';
import { startApiProcess, temporaryDirectory, wrangler, type ApiProcess } from './api-process';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS * 2, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const ZONE = 'db737a563ced53f224ff5eae44905c5e'; // example.com
const TOKEN = 'workers-wrangler-token-0123456789';
const SECRET_VALUE = 'never-in-plain-text-4f1d2c';

const work = temporaryDirectory('workers-wrangler-');
const dataDir = path.join(work, 'data');
let api: ApiProcess;
let env: Record<string, string>;

const run = (project: string, args: string[]) => wrangler(args, env, path.join(work, project));
const call = async (method: string, pathAndQuery: string, body?: unknown) => {
  const response = await fetch(`${api.baseUrl}${pathAndQuery}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as { success: boolean; result: any; errors: { code: number; message: string }[] } };
};

function project(name: string, config: string, source: string): void {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'wrangler.toml'), config);
  writeFileSync(path.join(dir, 'index.js'), source);
}

beforeAll(async () => {
  api = await startApiProcess({ DATA_DIR: dataDir, API_TOKEN: TOKEN });
  env = { CLOUDFLARE_API_BASE_URL: api.baseUrl, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT };
  expect((await call('PUT', `/accounts/${ACCOUNT}/workers/subdomain`, { subdomain: 'example-corp' })).status).toBe(200);
  expect((await call('POST', `/accounts/${ACCOUNT}/r2/buckets`, { name: 'hello-bucket' })).status).toBe(200);
  project(
    'hello',
    'name = "hello"\nmain = "index.js"\ncompatibility_date = "2026-11-01"\nworkers_dev = true\n\n[vars]\nGREETING = "hi"\nLIMITS = { max = 3 }\n\n[[r2_buckets]]\nbinding = "BUCKET"\nbucket_name = "hello-bucket"\n\n[triggers]\ncrons = ["*/5 * * * *", "0 9 * * MON-FRI"]\n',
    'export default { async fetch(request, env) { return new Response(env.GREETING); } };\n',
  );
  project(
    'shop',
    'name = "shop"\nmain = "index.js"\ncompatibility_date = "2026-11-01"\nworkers_dev = false\nroutes = ["shop.example.com/*", { pattern = "example.com/api/*", zone_name = "example.com" }]\n',
    'export default { fetch() { return new Response("shop"); } };\n',
  );
});

afterAll(async () => {
  await api?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('wrangler deploy', () => {
  it('deploys a new worker with its bindings to workers.dev, then a second version over it', async () => {
    const first = await run('hello', ['deploy']);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain('env.BUCKET (hello-bucket)');
    expect(first.output).toContain('https://hello.example-corp.workers.dev');
    const firstVersion = /Current Version ID: ([0-9a-f-]{36})/.exec(first.output)![1]!;
    const second = await run('hello', ['deploy']);
    expect(second.code, second.output).toBe(0);
    const secondVersion = /Current Version ID: ([0-9a-f-]{36})/.exec(second.output)![1]!;
    expect(secondVersion).not.toBe(firstVersion);

    const settings = await call('GET', `/accounts/${ACCOUNT}/workers/scripts/hello/settings`);
    expect(settings.body.result.bindings).toEqual([
      { type: 'plain_text', name: 'GREETING', text: 'hi' },
      { type: 'json', name: 'LIMITS', json: { max: 3 } },
      { type: 'r2_bucket', name: 'BUCKET', bucket_name: 'hello-bucket' },
    ]);
    const switch_ = await call('GET', `/accounts/${ACCOUNT}/workers/scripts/hello/subdomain`);
    expect(switch_.body.result.enabled).toBe(true);
    const content = await fetch(`${api.baseUrl}/accounts/${ACCOUNT}/workers/scripts/hello`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(await content.text()).toContain('new Response(env.GREETING)');
    // [triggers] crons: put whole after the upload.
    expect(second.output).toContain('schedule: */5 * * * *');
    expect(second.output).toContain('schedule: 0 9 * * MON-FRI');
    const schedules = await call('GET', `/accounts/${ACCOUNT}/workers/scripts/hello/schedules`);
    expect(schedules.body.result.schedules.map((schedule: { cron: string }) => schedule.cron)).toEqual(['*/5 * * * *', '0 9 * * MON-FRI']);
  });

  it('replaces the cron triggers with `triggers deploy`, and answers a bad expression with the platform\'s error', async () => {
    const config = path.join(work, 'hello', 'wrangler.toml');
    const original = readFileSync(config, 'utf8');
    writeFileSync(config, original.replace('crons = ["*/5 * * * *", "0 9 * * MON-FRI"]', 'crons = ["0 18 * * friL", "*/5 * * * *"]'));
    const replaced = await run('hello', ['triggers', 'deploy']);
    expect(replaced.code, replaced.output).toBe(0);
    expect(replaced.output).toContain('schedule: 0 18 * * friL');
    const schedules = await call('GET', `/accounts/${ACCOUNT}/workers/scripts/hello/schedules`);
    expect(schedules.body.result.schedules.map((schedule: { cron: string }) => schedule.cron)).toEqual(['0 18 * * friL', '*/5 * * * *']);

    writeFileSync(config, original.replace('crons = ["*/5 * * * *", "0 9 * * MON-FRI"]', 'crons = ["0 22 * * 0"]'));
    const refused = await run('hello', ['triggers', 'deploy']);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('invalid cron string "0 22 * * 0"');
    expect(refused.output).toContain('[code: 10100]');
    expect((await call('GET', `/accounts/${ACCOUNT}/workers/scripts/hello/schedules`)).body.result).toEqual(schedules.body.result);
    writeFileSync(config, original);
  });

  it('deploys a worker on routes of a zone, and refuses a route outside the account\'s zones', async () => {
    const deployed = await run('shop', ['deploy']);
    expect(deployed.code, deployed.output).toBe(0);
    expect(deployed.output).toContain('shop.example.com/*');
    const routes = await call('GET', `/zones/${ZONE}/workers/routes`);
    expect(routes.body.result.map((route: { pattern: string; script: string }) => [route.pattern, route.script]).sort()).toEqual([
      ['example.com/api/*', 'shop'],
      ['shop.example.com/*', 'shop'],
    ]);
    const switch_ = await call('GET', `/accounts/${ACCOUNT}/workers/scripts/shop/subdomain`);
    expect(switch_.body.result.enabled).toBe(false);

    project('stray', 'name = "stray"\nmain = "index.js"\ncompatibility_date = "2026-11-01"\nroutes = [{ pattern = "shop.example.org/*", zone_name = "example.com" }]\n', 'export default { fetch() { return new Response("x"); } };\n');
    const stray = await run('stray', ['deploy']);
    expect(stray.code).not.toBe(0);
    expect(stray.output).toContain('Route pattern must include zone name');
    // wrangler uploads the script before its routes: the script is there, without routes.
    expect((await call('GET', `/accounts/${ACCOUNT}/workers/scripts/stray/routes`)).body.result).toEqual([]);
  });
});

describe('versions, deployments and rollback', () => {
  it('lists and views versions, lists deployments and their status, and rolls back', async () => {
    const listed = await run('hello', ['versions', 'list']);
    expect(listed.code, listed.output).toBe(0);
    const versions = [...listed.output.matchAll(/Version ID:\s+([0-9a-f-]{36})/g)].map((match) => match[1]!);
    expect(versions.length).toBeGreaterThanOrEqual(2);

    const viewed = await run('hello', ['versions', 'view', versions[0]!]);
    expect(viewed.code, viewed.output).toBe(0);
    expect(viewed.output).toContain('Compatibility Date:   2026-11-01');
    expect(viewed.output).toContain('env.GREETING ("hi")');

    const deployments = await run('hello', ['deployments', 'list']);
    expect(deployments.code, deployments.output).toBe(0);
    expect(deployments.output).toMatch(/\(100%\) [0-9a-f-]{36}/);

    const serving = (await call('GET', `/accounts/${ACCOUNT}/workers/scripts/hello/deployments`)).body.result.deployments[0].versions[0].version_id as string;
    const older = versions.find((id) => id !== serving)!;
    const rolled = await run('hello', ['rollback', older, '--message', 'back we go', '-y']);
    expect(rolled.code, rolled.output).toBe(0);
    expect(rolled.output).toContain(`Worker Version ${older} has been deployed to 100% of traffic.`);

    const status = await run('hello', ['deployments', 'status']);
    expect(status.code, status.output).toBe(0);
    expect(status.output).toContain(`(100%) ${older}`);
    expect(status.output).toContain('back we go');
    // Deploy again so the latest version serves (secrets change the latest version only).
    expect((await run('hello', ['deploy'])).code).toBe(0);
  });
});

describe('secrets', () => {
  it('puts, lists, puts in bulk and deletes secrets, never answering a value', async () => {
    const put = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'secret', 'put', 'API_KEY'], {
      cwd: path.join(work, 'hello'),
      input: SECRET_VALUE,
      env: { ...process.env, ...env, XDG_CONFIG_HOME: path.join(work, 'hello', '.config'), WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expect(put.status, put.stdout + put.stderr).toBe(0);
    expect(put.stdout).toContain('Success! Uploaded secret API_KEY');

    writeFileSync(path.join(work, 'hello', 'secrets.json'), JSON.stringify({ FIRST: 'one', SECOND: 'two' }));
    const bulk = await run('hello', ['secret', 'bulk', 'secrets.json']);
    expect(bulk.code, bulk.output).toBe(0);
    expect(bulk.output).toContain('2 secrets successfully created');

    const deleted = await run('hello', ['secret', 'delete', 'SECOND']);
    expect(deleted.code, deleted.output).toBe(0);
    const listed = await run('hello', ['secret', 'list']);
    expect(JSON.parse(listed.output.slice(listed.output.indexOf('[')))).toEqual([
      { name: 'API_KEY', type: 'secret_text' },
      { name: 'FIRST', type: 'secret_text' },
    ]);
    const missing = await run('hello', ['secret', 'delete', 'NEVER_SET']);
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain('[code: 10007]');

    // A later deploy keeps the secrets (wrangler sends keep_bindings).
    expect((await run('hello', ['deploy'])).code).toBe(0);
    expect((await call('GET', `/accounts/${ACCOUNT}/workers/scripts/hello/secrets`)).body.result.map((secret: { name: string }) => secret.name)).toEqual(['API_KEY', 'FIRST']);

    const everything = JSON.stringify((await call('GET', `/accounts/${ACCOUNT}/workers/scripts/hello/versions?per_page=100`)).body);
    expect(everything).not.toContain(SECRET_VALUE);
    for (const file of filesUnder(dataDir)) expect(readFileSync(file).includes(SECRET_VALUE), file).toBe(false);
    expect(statSync(path.join(dataDir, 'workers-secrets.key')).mode & 0o777).toBe(0o600);
  });

  it('refuses a secret for a worker that does not exist', async () => {
    const refused = await call('PUT', `/accounts/${ACCOUNT}/workers/scripts/nobody/secrets`, { name: 'X', text: 'y', type: 'secret_text' });
    expect(refused.status).toBe(404);
    expect(refused.body.errors[0]!.code).toBe(10007);
  });
});

describe('after a restart and through a state file', () => {
  it('keeps scripts, versions, deployments, routes, secrets and cron triggers', async () => {
    const before = await snapshot();
    await api.stop();
    api = await startApiProcess({ DATA_DIR: dataDir, API_TOKEN: TOKEN });
    env.CLOUDFLARE_API_BASE_URL = api.baseUrl;
    expect(await snapshot()).toEqual(before);

    const file = path.join(work, 'state.bin');
    const exported = spawnSync('npm', ['run', 'state', '--', 'export', file], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir }, encoding: 'utf8' });
    expect(exported.status, exported.stderr).toBe(0);
    expect(readFileSync(file).includes(SECRET_VALUE)).toBe(false);
    const elsewhere = path.join(work, 'elsewhere');
    mkdirSync(elsewhere);
    // The key travels beside the file, never in it: the new place is given the same key.
    writeFileSync(path.join(elsewhere, 'workers-secrets.key'), readFileSync(path.join(dataDir, 'workers-secrets.key')), { mode: 0o600 });
    const imported = spawnSync('npm', ['run', 'state', '--', 'import', file], { cwd: ROOT, env: { ...process.env, DATA_DIR: elsewhere }, encoding: 'utf8' });
    expect(imported.status, imported.stderr).toBe(0);
    await api.stop();
    api = await startApiProcess({ DATA_DIR: elsewhere, API_TOKEN: TOKEN });
    env.CLOUDFLARE_API_BASE_URL = api.baseUrl;
    expect(await snapshot()).toEqual(before);

    const deleted = await run('hello', ['delete']);
    expect(deleted.code, deleted.output).toBe(0);
    expect(deleted.output).toContain('Successfully deleted hello');
    expect((await call('GET', `/accounts/${ACCOUNT}/workers/scripts`)).body.result.map((script: { id: string }) => script.id)).toEqual(['shop', 'stray']);
  });
});

async function snapshot() {
  const base = `/accounts/${ACCOUNT}/workers/scripts`;
  return {
    scripts: (await call('GET', base)).body.result,
    versions: (await call('GET', `${base}/hello/versions?per_page=100`)).body.result,
    deployments: (await call('GET', `${base}/hello/deployments`)).body.result,
    secrets: (await call('GET', `${base}/hello/secrets`)).body.result,
    schedules: (await call('GET', `${base}/hello/schedules`)).body.result,
    routes: (await call('GET', `/zones/${ZONE}/workers/routes`)).body.result,
    subdomain: (await call('GET', `/accounts/${ACCOUNT}/workers/subdomain`)).body.result,
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}
