// Static assets uploads through the API, as wrangler drives them and as the official client
// starts them: the upload session (only what the account does not hold is asked for), the
// uploads authorized by the session's token, the version that names the completion token; and
// every bad input refused with the platform's answer: tokens that are bad, expired, of another
// account, script or kind, files that do not match their hash, limits, config members not served.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { blake3 } from '@noble/hashes/blake3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_TOKEN_PURPOSE, SecretBox } from '../../src/store';
import { bearer, ids, json, startServer, type TestServer } from './harness';
import { officialClient } from './official-client';

const account = ids.account;
const OTHER_ACCOUNT = '5a7805061c76ada191ed06f989cc3dac' as typeof account;
let server: TestServer;

/** wrangler's hash of a file: BLAKE3 over its base64 and extension, 32 hex digits. */
function hashOf(content: string, file: string): string {
  const base64 = Buffer.from(content).toString('base64');
  return Buffer.from(blake3(Buffer.from(base64 + path.extname(file).slice(1)))).toString('hex').slice(0, 32);
}

function manifestOf(files: Record<string, string>) {
  return Object.fromEntries(Object.entries(files).map(([file, content]) => [file, { hash: hashOf(content, file), size: Buffer.byteLength(content) }]));
}

async function openSession(script: string, files: Record<string, string>, accountId = account) {
  const response = await server.fetch(`/accounts/${accountId}/workers/scripts/${script}/assets-upload-session`, json('POST', { manifest: manifestOf(files) }));
  return { status: response.status, body: await envelope<{ result: { jwt: string; buckets: string[][] }; errors: { code: number; message: string }[] }>(response) };
}

/** One upload request as wrangler sends it: a part per hash, base64 content, the file's content type. */
async function upload(jwt: string, parts: { hash: string; content: string; type?: string }[], accountId = account, query = '?base64=true') {
  const form = new FormData();
  for (const part of parts) form.append(part.hash, new File([Buffer.from(part.content).toString('base64')], part.hash, { type: part.type ?? 'text/plain' }));
  const response = await server.fetch(`/accounts/${accountId}/workers/assets/upload${query}`, { method: 'POST', headers: { Authorization: `Bearer ${jwt}` }, body: form });
  return { status: response.status, body: await envelope<{ result: { jwt?: string } | null; errors: { code: number; message: string }[] }>(response) };
}

/** A version of an assets-only worker naming a completion token. */
async function uploadAssetsOnly(script: string, jwt: string, config: Record<string, unknown> = {}) {
  const form = new FormData();
  form.append('metadata', new Blob([JSON.stringify({ assets: { jwt, config }, compatibility_date: '2026-07-01' })], { type: 'application/json' }));
  const response = await server.fetch(`/accounts/${account}/workers/scripts/${script}`, { method: 'PUT', headers: bearer(), body: form });
  return { status: response.status, body: await envelope<{ errors: { code: number; message: string }[] }>(response) };
}

/** A token as the platform signs them, with the key the data directory holds: for tokens a client could not make. */
function forgedToken(claims: Record<string, unknown>): string {
  const box = SecretBox.fromText(readFileSync(path.join(server.dataDir, 'workers-secrets.key'), 'utf8'), 'key file');
  const key = box.derive(ASSET_TOKEN_PURPOSE);
  const body = `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The envelope of an answer (its text in the failure when it is not JSON). */
async function envelope<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${response.status} answered ${text.slice(0, 300)}`);
  }
}

const SITE = { '/index.html': '<h1>home</h1>', '/app.js': 'console.log(1)', '/about/index.html': '<h1>about</h1>' };

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

describe('an upload session', () => {
  it('asks for the files the account does not hold, answers the completion token on the last upload, and a version names it', async () => {
    const session = await openSession('site', SITE);
    expect(session.status).toBe(200);
    const hashes = Object.values(manifestOf(SITE)).map((entry) => entry.hash);
    expect(session.body.result.buckets.flat().sort()).toEqual([...hashes].sort());
    const byHash = new Map(Object.entries(SITE).map(([file, content]) => [hashOf(content, file), content]));
    const [first, ...others] = session.body.result.buckets.flat();
    const partial = await upload(session.body.result.jwt, [{ hash: first!, content: byHash.get(first!)! }]);
    expect(partial).toMatchObject({ status: 200, body: { result: {} } });
    expect(partial.body.result).not.toHaveProperty('jwt');
    const last = await upload(session.body.result.jwt, others.map((hash) => ({ hash, content: byHash.get(hash)!, type: 'text/html' })));
    expect(last.status).toBe(200);
    const completion = last.body.result!.jwt!;
    expect(completion.split('.')).toHaveLength(3);
    // The upload token is not a completion token, nor the other way round.
    expect(await uploadAssetsOnly('site', session.body.result.jwt)).toMatchObject({ status: 400, body: { errors: [{ code: 10021 }] } });
    expect((await upload(completion, [{ hash: first!, content: byHash.get(first!)! }])).status).toBe(403);
    expect((await uploadAssetsOnly('site', completion, { html_handling: 'drop-trailing-slash', not_found_handling: '404-page' })).status).toBe(200);
    const version = (await server.store.workers.getScript(account, 'site'))!.latest;
    expect(await server.store.workers.versionAssets(account, 'site', version.id)).toEqual({
      manifest: manifestOf(SITE),
      config: { html_handling: 'drop-trailing-slash', not_found_handling: '404-page', run_worker_first: false },
    });
    // An assets-only worker has no worker to give a secret to.
    const secret = await server.fetch(`/accounts/${account}/workers/scripts/site/secrets`, json('PUT', { name: 'TOKEN', text: 'x', type: 'secret_text' }));
    expect(secret.status).toBe(400);
    expect(await secret.text()).toContain('static assets only');
    // A completion token serves one version: its session is over.
    const again = await uploadAssetsOnly('site', completion);
    expect(again.status).toBe(400);
    expect(again.body.errors[0]!.message).toContain('session is over');
  });

  it('asks again only for what changed: files the account holds are not uploaded again, and none at all gives the completion token at once', async () => {
    const unchanged = await openSession('site', SITE);
    expect(unchanged.body.result.buckets).toEqual([]);
    expect((await uploadAssetsOnly('site', unchanged.body.result.jwt)).status).toBe(200);
    // Another script of the same account shares the account's files.
    const changed = await openSession('site-two', { ...SITE, '/app.js': 'console.log(2)' });
    expect(changed.body.result.buckets).toEqual([[hashOf('console.log(2)', '/app.js')]]);
  });

  it('keeps the latest version\'s assets for keep_assets, with a worker and its ASSETS binding (the official client\'s workers.scripts.update)', async () => {
    const { cf } = officialClient(server);
    const session = await openSession('kept', { '/kept.txt': 'kept file' });
    const done = await upload(session.body.result.jwt, [{ hash: hashOf('kept file', '/kept.txt'), content: 'kept file' }]);
    const worker = new File(['export default { fetch: (r, env) => env.ASSETS.fetch(r) };'], 'index.js', { type: 'application/javascript+module' });
    await cf.workers.scripts.update('kept', {
      account_id: account,
      metadata: { main_module: 'index.js', bindings: [{ type: 'assets', name: 'ASSETS' }], assets: { jwt: done.body.result!.jwt!, config: { not_found_handling: 'single-page-application' } } },
      files: [worker],
    });
    await cf.workers.scripts.update('kept', { account_id: account, metadata: { main_module: 'index.js', bindings: [{ type: 'assets', name: 'ASSETS' }], keep_assets: true }, files: [worker] });
    // Keeping the binding without keeping the assets would leave it nothing to reach.
    await expect(cf.workers.scripts.update('kept', { account_id: account, metadata: { main_module: 'index.js', keep_bindings: ['assets'] }, files: [worker] })).rejects.toMatchObject({
      status: 400,
      errors: [{ code: 10021 }],
    });
    const latest = (await server.store.workers.getScript(account, 'kept'))!.latest;
    expect(latest.number).toBe(2);
    expect(latest.bindings).toEqual([{ type: 'assets', name: 'ASSETS' }]);
    expect(await server.store.workers.versionAssets(account, 'kept', latest.id)).toEqual({
      manifest: manifestOf({ '/kept.txt': 'kept file' }),
      config: { html_handling: 'auto-trailing-slash', not_found_handling: 'single-page-application', run_worker_first: false },
    });
  });

  it('is started by the official client (workers.scripts.assets.upload.create)', async () => {
    const { cf } = officialClient(server);
    const started = await cf.workers.scripts.assets.upload.create('sdk-site', { account_id: account, manifest: manifestOf({ '/sdk.txt': 'from the sdk' }) });
    expect(started.buckets).toEqual([[hashOf('from the sdk', '/sdk.txt')]]);
    expect(started.jwt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});

describe('refused', () => {
  it('an upload token that is not the platform\'s, expired, of another account or script, or missing', async () => {
    const session = await openSession('guarded', { '/a.txt': 'a' });
    const jwt = session.body.result.jwt;
    const part = [{ hash: hashOf('a', '/a.txt'), content: 'a' }];
    const [header, claims, signature] = jwt.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...payload, scr: 'other' })).toString('base64url')}.${signature}`;
    const cases: [string, string, string][] = [
      ['garbage', 'not-a-jwt', 'not a token of this platform'],
      ['tampered claims', tampered, 'signature does not match'],
      ['expired', forgedToken({ ...payload, iat: 1, exp: 2 }), 'expired'],
      ['its session gone', forgedToken({ ...payload, sub: '00000000-0000-4000-8000-000000000000' }), 'session is over'],
    ];
    for (const [what, token, says] of cases) {
      const answer = await upload(token, part);
      expect({ what, status: answer.status, code: answer.body.errors[0]!.code }).toEqual({ what, status: 403, code: 10000 });
      expect(answer.body.errors[0]!.message).toContain(says);
    }
    // Another account in the path than the token's.
    const elsewhere = await upload(jwt, part, OTHER_ACCOUNT);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.errors[0]!.message).toContain('another account');
    // An API token is not an upload token.
    const apiToken = await server.fetch(`/accounts/${account}/workers/assets/upload?base64=true`, { method: 'POST', headers: bearer(), body: new FormData() });
    expect(apiToken.status).toBe(403);
    const none = await server.fetch(`/accounts/${account}/workers/assets/upload?base64=true`, { method: 'POST', body: new FormData() });
    expect(none.status).toBe(403);
    // A completion token of one script does not give another its files.
    const done = await openSession('guarded', {});
    const stolen = await uploadAssetsOnly('not-guarded', done.body.result.jwt);
    expect(stolen.status).toBe(400);
    expect(stolen.body.errors[0]!.message).toContain('another script');
    expect(await server.store.workers.getScript(account, 'not-guarded')).toBeNull();
  });

  it('files that do not match their hash or size, or that the session did not ask for; uploads that are not base64', async () => {
    const session = await openSession('checked', { '/a.txt': 'a', '/b.txt': 'b' });
    const jwt = session.body.result.jwt;
    const a = hashOf('a', '/a.txt');
    const cases: [string, { hash: string; content: string }[], string, string][] = [
      ['content of another hash', [{ hash: a, content: 'b' }], '', 'does not match its hash'],
      ['a hash the session did not ask for', [{ hash: hashOf('c', '/c.txt'), content: 'c' }], '', 'not a hash of this upload session'],
      ['the same hash twice', [{ hash: a, content: 'a' }, { hash: a, content: 'a' }], '', 'twice'],
      ['without base64=true', [{ hash: a, content: 'a' }], '?base64=false', 'base64=true'],
    ];
    for (const [what, parts, query, says] of cases) {
      const answer = await upload(jwt, parts, account, query || '?base64=true');
      expect({ what, status: answer.status, code: answer.body.errors[0]?.code }).toEqual({ what, status: 400, code: 10021 });
      expect(answer.body.errors[0]!.message).toContain(says);
    }
    // Nothing was kept: both files are still asked for.
    expect((await openSession('checked', { '/a.txt': 'a', '/b.txt': 'b' })).body.result.buckets.flat()).toHaveLength(2);
  });

  it('manifests over the platform\'s limits (20,000 files, 25 MiB a file) or with paths that are not paths', async () => {
    const many = Object.fromEntries(Array.from({ length: 20_001 }, (_, i) => [`/f${i}.txt`, { hash: '0'.repeat(32), size: 1 }]));
    const cases: [string, unknown, string][] = [
      ['too many files', many, '20000'],
      ['a file over 25 MiB', { '/big.bin': { hash: '0'.repeat(32), size: 25 * 1024 * 1024 + 1 } }, '25 MiB'],
      ['a path with ..', { '/../etc/passwd': { hash: '0'.repeat(32), size: 1 } }, '..'],
      ['a path without /', { 'index.html': { hash: '0'.repeat(32), size: 1 } }, 'index.html'],
    ];
    for (const [what, manifest, says] of cases) {
      const response = await server.fetch(`/accounts/${account}/workers/scripts/limits/assets-upload-session`, json('POST', { manifest }));
      const body = (await response.json()) as { errors: { code: number; message: string }[] };
      expect({ what, status: response.status }).toEqual({ what, status: 400 });
      expect(JSON.stringify(body.errors), what).toContain(says);
    }
  });

  it('config members and files not served (_headers, _redirects, base_path, unknown), run_worker_first without a worker, an assets binding without assets', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['a _headers file', { _headers: '/*\n  X-Frame-Options: DENY' }, '_headers'],
      ['a _redirects file', { _redirects: '/old /new 301' }, '_redirects'],
      ['base_path', { base_path: '/blog' }, 'base_path'],
      ['an unknown member', { serve_directly: true }, 'serve_directly'],
      ['an unknown html_handling', { html_handling: 'sometimes' }, 'html_handling'],
      ['run_worker_first on an assets-only worker', { run_worker_first: true }, 'run_worker_first'],
    ];
    for (const [what, config, says] of cases) {
      const done = await openSession('configured', { '/x.txt': 'x' });
      await upload(done.body.result.jwt, [{ hash: hashOf('x', '/x.txt'), content: 'x' }]);
      const session = await openSession('configured', { '/x.txt': 'x' });
      const answer = await uploadAssetsOnly('configured', session.body.result.jwt, config);
      expect({ what, status: answer.status, code: answer.body.errors[0]?.code }).toEqual({ what, status: 400, code: 10021 });
      expect(answer.body.errors[0]!.message).toContain(says);
    }
    const form = new FormData();
    form.append('metadata', new Blob([JSON.stringify({ main_module: 'index.js', bindings: [{ type: 'assets', name: 'ASSETS' }] })], { type: 'application/json' }));
    form.append('index.js', new File(['export default { fetch() { return new Response("x"); } };'], 'index.js', { type: 'application/javascript+module' }));
    const response = await server.fetch(`/accounts/${account}/workers/scripts/configured`, { method: 'PUT', headers: bearer(), body: form });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('binding ASSETS of type assets: the upload has no assets');
    expect(await server.store.workers.getScript(account, 'configured')).toBeNull();
  });
});
