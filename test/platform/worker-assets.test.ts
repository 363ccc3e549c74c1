// Static assets deployed with wrangler (the real program, CLOUDFLARE_API_BASE_URL and nothing
// else) to `npm start`, served through the edge port: an assets-only site (html handling, its
// 404 page, etags and 304, HEAD, a redeploy that uploads only what changed, a rollback serving
// the old files, a gradual deployment splitting requests between two versions' files), and a worker with assets and the ASSETS binding
// (run_worker_first patterns, the single-page-application fallback for navigations, the binding
// reaching the version's own assets); both the same after a restart and a state export and import.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { wrangler } from '../server/api-process';
import { COMMAND_TEST_TIMEOUT_MS, ROOT } from '../worker/commands';
import { startPlatform, temporaryDirectory, type Platform } from './platform-process';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS * 2, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const TOKEN = 'worker-assets-token-0123456789';
const SITE_HOST = 'site.assets-team.workers.dev';
const APP_HOST = 'app.assets-team.workers.dev';

const work = temporaryDirectory();
let platform: Platform;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function edge(host: string, requestPath: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const url = new URL(platform.urls.edge!);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: requestPath, method: options.method ?? 'GET', headers: { host, ...options.headers }, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject).end();
  });
}

/** Polls until the path answers `expected` (a deployment serves from the next request after the platform follows it). */
async function served(host: string, requestPath: string, expected: string, ms = 2000): Promise<void> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < ms) {
    last = (await edge(host, requestPath)).body;
    if (last === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${host}${requestPath} answered ${JSON.stringify(last)}, not ${JSON.stringify(expected)}`);
}

function files(dir: string, contents: Record<string, string>): string {
  for (const [file, text] of Object.entries(contents)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

async function run(dir: string, args: string[]): Promise<string> {
  const result = await wrangler(args, { CLOUDFLARE_API_BASE_URL: platform.urls.api!, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT }, dir);
  expect(result.code, result.output).toBe(0);
  return result.output;
}

const start = () => startPlatform(work, [], { PORT: '0', S3_PORT: '0', EDGE_PORT: '0', API_TOKEN: TOKEN, DATA_DIR: path.join(work, 'data') });

const site = path.join(work, 'site');

beforeAll(async () => {
  platform = await start();
  const response = await fetch(`${platform.urls.api}/accounts/${ACCOUNT}/workers/subdomain`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subdomain: 'assets-team' }),
  });
  expect(response.status).toBe(200);
});

afterAll(() => platform?.stop());

describe('an assets-only site', () => {
  it('is uploaded by wrangler deploy and served by the default html handling, its 404 page, etags and HEAD', async () => {
    files(site, {
      'wrangler.jsonc': JSON.stringify({ name: 'site', compatibility_date: '2026-07-01', workers_dev: true, assets: { directory: './public', not_found_handling: '404-page' } }),
      'public/index.html': '<h1>home</h1>',
      'public/about/index.html': '<h1>about</h1>',
      'public/contact.html': '<h1>contact</h1>',
      'public/style.css': 'body { color: red }',
      'public/404.html': '<h1>not here</h1>',
    });
    const output = await run(site, ['deploy']);
    expect(output).toContain('Found 5 new or modified static assets to upload');
    await served(SITE_HOST, '/', '<h1>home</h1>');

    const home = await edge(SITE_HOST, '/');
    expect(home).toMatchObject({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=0, must-revalidate' } });
    expect(home.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    // auto-trailing-slash: a folder's index at /folder/, a file at /file; the other spellings redirect.
    expect(await edge(SITE_HOST, '/index.html?x=1')).toMatchObject({ status: 307, headers: { location: '/?x=1' } });
    expect(await edge(SITE_HOST, '/about')).toMatchObject({ status: 307, headers: { location: '/about/' } });
    expect(await edge(SITE_HOST, '/about/')).toMatchObject({ status: 200, body: '<h1>about</h1>' });
    expect(await edge(SITE_HOST, '/contact')).toMatchObject({ status: 200, body: '<h1>contact</h1>' });
    expect(await edge(SITE_HOST, '/contact.html')).toMatchObject({ status: 307, headers: { location: '/contact' } });
    expect(await edge(SITE_HOST, '/style.css')).toMatchObject({ status: 200, body: 'body { color: red }', headers: { 'content-type': 'text/css; charset=utf-8' } });
    expect(await edge(SITE_HOST, '/nowhere/page')).toMatchObject({ status: 404, body: '<h1>not here</h1>' });
    expect(await edge(SITE_HOST, '/', { headers: { 'if-none-match': home.headers.etag! } })).toMatchObject({ status: 304, body: '' });
    expect(await edge(SITE_HOST, '/', { headers: { 'if-none-match': `W/${home.headers.etag!}` } })).toMatchObject({ status: 304 });
    const head = await edge(SITE_HOST, '/', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '', headers: { 'content-length': String('<h1>home</h1>'.length), etag: home.headers.etag } });
    expect(await edge(SITE_HOST, '/', { method: 'POST' })).toMatchObject({ status: 405 });
  });

  it('uploads only what changed on a redeploy, and a rollback serves the old files again', async () => {
    writeFileSync(path.join(site, 'public/style.css'), 'body { color: blue }');
    const output = await run(site, ['deploy']);
    expect(output).toContain('Found 1 new or modified static asset to upload');
    expect(output).toContain('+ /style.css');
    await served(SITE_HOST, '/style.css', 'body { color: blue }');
    await run(site, ['rollback', '-y', '-m', 'the red one']);
    await served(SITE_HOST, '/style.css', 'body { color: red }');
    expect((await edge(SITE_HOST, '/about/')).body).toBe('<h1>about</h1>');
  });

  it('splits requests between two versions\' files in a gradual deployment (wrangler versions upload and versions deploy)', async () => {
    const current = (await edge(SITE_HOST, '/style.css')).body;
    expect(current).toBe('body { color: red }');
    writeFileSync(path.join(site, 'public/style.css'), 'body { color: green }');
    const uploaded = await run(site, ['versions', 'upload']);
    const green = /Worker Version ID: (\S+)/.exec(uploaded)![1]!;
    // The version serving now (the rollback's) is the deployment's only one.
    const status = await fetch(`${platform.urls.api}/accounts/${ACCOUNT}/workers/scripts/site/deployments`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const red = ((await status.json()) as { result: { deployments: { versions: { version_id: string }[] }[] } }).result.deployments[0]!.versions[0]!.version_id;
    await run(site, ['versions', 'deploy', `${red}@50%`, `${green}@50%`, '-y']);
    const seen = new Set<string>();
    for (let i = 0; i < 100 && seen.size < 2; i++) seen.add((await edge(SITE_HOST, '/style.css')).body);
    expect([...seen].sort()).toEqual(['body { color: green }', 'body { color: red }']);
    await run(site, ['versions', 'deploy', `${red}@100%`, '-y']);
    await served(SITE_HOST, '/style.css', 'body { color: red }');
    writeFileSync(path.join(site, 'public/style.css'), 'body { color: red }');
  });

  it('refuses a _headers file by name rather than ignore it', async () => {
    const refused = path.join(work, 'refused');
    files(refused, {
      'wrangler.jsonc': JSON.stringify({ name: 'refused', compatibility_date: '2026-07-01', assets: { directory: './public' } }),
      'public/index.html': 'x',
      'public/_headers': '/*\n  X-Frame-Options: DENY\n',
    });
    const result = await wrangler(['deploy'], { CLOUDFLARE_API_BASE_URL: platform.urls.api!, CLOUDFLARE_API_TOKEN: TOKEN, CLOUDFLARE_ACCOUNT_ID: ACCOUNT }, refused);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('_headers (the _headers file) is not served by this platform');
  });
});

describe('a worker with assets and the ASSETS binding', () => {
  it('runs the worker first for its patterns, serves assets (and index.html to navigations) otherwise, and reaches its assets through the binding', async () => {
    const app = files(path.join(work, 'app'), {
      'wrangler.jsonc': JSON.stringify({
        name: 'app',
        main: 'index.js',
        compatibility_date: '2026-07-01',
        workers_dev: true,
        assets: { directory: './public', binding: 'ASSETS', not_found_handling: 'single-page-application', run_worker_first: ['/api/*', '!/api/docs/*'] },
      }),
      'index.js': `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/api/asset') {
      const asset = await env.ASSETS.fetch(new URL('/data.json', url));
      return new Response('via binding: ' + (await asset.text()));
    }
    return new Response('worker ' + url.pathname);
  },
};
`,
      'public/index.html': '<div id="app"></div>',
      'public/data.json': '{"n":1}',
      'public/api/docs/index.html': '<h1>docs</h1>',
    });
    await run(app, ['deploy']);
    await served(APP_HOST, '/api/hello', 'worker /api/hello');
    expect((await edge(APP_HOST, '/api/asset')).body).toBe('via binding: {"n":1}');
    expect(await edge(APP_HOST, '/api/docs/')).toMatchObject({ status: 200, body: '<h1>docs</h1>' });
    expect(await edge(APP_HOST, '/data.json')).toMatchObject({ status: 200, body: '{"n":1}', headers: { 'content-type': 'application/json' } });
    // With the pattern form, what no asset matches gets not_found_handling: the app's index.
    expect(await edge(APP_HOST, '/deep/link', { headers: { 'sec-fetch-mode': 'navigate' } })).toMatchObject({ status: 200, body: '<div id="app"></div>' });
  });

  it('serves the same assets after a restart, and after a state export and import', async () => {
    await platform.stop();
    platform = await start();
    await served(SITE_HOST, '/style.css', 'body { color: red }', 5000);
    expect((await edge(APP_HOST, '/api/asset')).body).toBe('via binding: {"n":1}');

    const state = path.join(work, 'saved.state');
    const exported = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/state.ts'), 'export', state, '--data-dir', path.join(work, 'data')], { cwd: ROOT, encoding: 'utf8' });
    expect(exported.status, exported.stderr).toBe(0);
    await platform.stop();
    platform = await startPlatform(work, [], { PORT: '0', S3_PORT: '0', EDGE_PORT: '0', API_TOKEN: TOKEN, DATA_DIR: path.join(work, 'imported'), STATE_FILE: state });
    await served(SITE_HOST, '/style.css', 'body { color: red }', 5000);
    expect(await edge(SITE_HOST, '/nowhere')).toMatchObject({ status: 404, body: '<h1>not here</h1>' });
    expect((await edge(APP_HOST, '/api/asset')).body).toBe('via binding: {"n":1}');
  });
});
