// The official client (npm `cloudflare`, unchanged, `baseURL` only) over the Workers family:
// scripts uploaded, read, listed and deleted, secrets, zone routes and the account's workers.dev
// subdomain; then every bad upload the platform refuses, each changing nothing.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { toFile } from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, json, bearer, startServer, type TestServer } from './harness';
import { officialClient } from './official-client';

const account_id = ids.account;
const SANDBOX_ZONE = '0f3b0a2e5c1d4b7a9e8f6d5c4b3a2e1d';
let server: TestServer;
let cf: ReturnType<typeof officialClient>['cf'];

const module = (source: string, name = 'index.js') => toFile(Buffer.from(source), name, { type: 'application/javascript+module' });
const HELLO = "export default { fetch(request, env) { return new Response(env.GREETING); } };";

beforeAll(async () => {
  server = await startServer();
  cf = officialClient(server).cf;
  await server.buckets.account(account_id).create('sdk-bucket');
});

afterAll(async () => {
  await server?.stop();
});

describe('workers.scripts', () => {
  it('uploads a module worker with bindings, reads its main module, lists it and deletes it', async () => {
    const uploaded = await cf.workers.scripts.update('sdk-worker', {
      account_id,
      metadata: {
        main_module: 'index.js',
        compatibility_date: '2026-11-01',
        bindings: [
          { type: 'plain_text', name: 'GREETING', text: 'hello' },
          { type: 'r2_bucket', name: 'BUCKET', bucket_name: 'sdk-bucket' },
          { type: 'secret_text', name: 'TOKEN', text: 'sdk-secret-value' },
        ],
      },
      files: [await module(HELLO)],
    });
    expect(uploaded).toMatchObject({ id: 'sdk-worker', handlers: ['fetch'], compatibility_date: '2026-11-01', has_modules: true });
    expect(await cf.workers.scripts.get('sdk-worker', { account_id })).toBe(HELLO);
    const listed = [];
    for await (const script of cf.workers.scripts.list({ account_id })) listed.push(script.id);
    expect(listed).toContain('sdk-worker');

    const settings = await cf.workers.scripts.scriptAndVersionSettings.get('sdk-worker', { account_id });
    expect(settings.bindings).toEqual([
      { type: 'plain_text', name: 'GREETING', text: 'hello' },
      { type: 'r2_bucket', name: 'BUCKET', bucket_name: 'sdk-bucket' },
      { type: 'secret_text', name: 'TOKEN' },
    ]);

    await cf.workers.scripts.update('sdk-doomed', { account_id, metadata: { main_module: 'index.js' }, files: [await module(HELLO)] });
    await cf.workers.scripts.delete('sdk-doomed', { account_id, force: true });
    await expect(cf.workers.scripts.get('sdk-doomed', { account_id })).rejects.toMatchObject({ status: 404, errors: [{ code: 10007 }] });
  });

  it('puts, lists, gets, changes in bulk and deletes secrets', async () => {
    expect(await cf.workers.scripts.secrets.update('sdk-worker', { account_id, name: 'API_KEY', text: 'k-1', type: 'secret_text' })).toEqual({ name: 'API_KEY', type: 'secret_text' });
    const names = [];
    for await (const secret of cf.workers.scripts.secrets.list('sdk-worker', { account_id })) names.push(secret.name);
    expect(names.sort()).toEqual(['API_KEY', 'TOKEN']);
    expect(await cf.workers.scripts.secrets.get('API_KEY', { account_id, script_name: 'sdk-worker' })).toEqual({ name: 'API_KEY', type: 'secret_text' });
    const bulk = await cf.workers.scripts.secrets.bulkUpdate('sdk-worker', { account_id, secrets: { EXTRA: { name: 'EXTRA', text: 'x', type: 'secret_text' }, TOKEN: null } });
    expect(Object.keys(bulk).sort()).toEqual(['API_KEY', 'EXTRA']);
    await cf.workers.scripts.secrets.delete('EXTRA', { account_id, script_name: 'sdk-worker' });
    await expect(cf.workers.scripts.secrets.get('EXTRA', { account_id, script_name: 'sdk-worker' })).rejects.toMatchObject({ status: 404 });
    // What the runtime reads: the value opened, only there.
    const deployed = await server.store.deployedWorkers.snapshot();
    const script = deployed.scripts.find((candidate) => candidate.name === 'sdk-worker')!;
    expect(script.versions[0]!.version.bindings).toContainEqual({ type: 'secret_text', name: 'API_KEY', text: 'k-1' });
  });
});

describe('workers.routes and workers.subdomains', () => {
  it('creates, lists, gets, updates and deletes a route of a zone', async () => {
    const zone_id = ids.enterpriseZone; // example.com
    const created = await cf.workers.routes.create({ zone_id, pattern: 'shop.example.com/*', script: 'sdk-worker' });
    expect(created).toMatchObject({ pattern: 'shop.example.com/*', script: 'sdk-worker' });
    const routes = [];
    for await (const route of cf.workers.routes.list({ zone_id })) routes.push(route.pattern);
    expect(routes).toEqual(['shop.example.com/*']);
    expect(await cf.workers.routes.get(created.id, { zone_id })).toMatchObject({ id: created.id, pattern: 'shop.example.com/*' });
    expect(await cf.workers.routes.update(created.id, { zone_id, pattern: '*.example.com/api/*', script: 'sdk-worker' })).toMatchObject({ pattern: '*.example.com/api/*' });
    await cf.workers.routes.delete(created.id, { zone_id });
    await expect(cf.workers.routes.get(created.id, { zone_id })).rejects.toMatchObject({ status: 404 });
  });

  it('sets, reads and releases the account subdomain; another account cannot take it', async () => {
    expect(await cf.workers.subdomains.update({ account_id, subdomain: 'sdk-corp' })).toEqual({ subdomain: 'sdk-corp' });
    expect(await cf.workers.subdomains.get({ account_id })).toEqual({ subdomain: 'sdk-corp' });
    const taken = await server.fetch('/accounts/5a7805061c76ada191ed06f989cc3dac/workers/subdomain', json('PUT', { subdomain: 'sdk-corp' }));
    expect({ status: taken.status, code: ((await taken.json()) as { errors: { code: number }[] }).errors[0]!.code }).toEqual({ status: 400, code: 10031 });
    // wrangler's look-up before its prompt claims one: the holder reads it, another account gets
    // 10031, a name nobody holds 10032 (the platform's "subdomain_unavailable": free to claim).
    const lookUp = async (account: string, subdomain: string) => {
      const response = await server.fetch(`/accounts/${account}/workers/subdomains/${subdomain}`, { headers: bearer() });
      const body = (await response.json()) as { result: unknown; errors: { code: number; message: string }[] };
      return { status: response.status, result: body.result, errors: body.errors.map(({ code }) => code) };
    };
    expect(await lookUp(account_id, 'sdk-corp')).toEqual({ status: 200, result: { subdomain: 'sdk-corp' }, errors: [] });
    expect(await lookUp('5a7805061c76ada191ed06f989cc3dac', 'sdk-corp')).toEqual({ status: 400, result: null, errors: [10031] });
    expect(await lookUp(account_id, 'nobody-has-it')).toEqual({ status: 404, result: null, errors: [10032] });
    // wrangler's prompt sends its claim without a content type (its fetch labels it text/plain).
    const claimed = await server.fetch('/accounts/5a7805061c76ada191ed06f989cc3dac/workers/subdomain', { method: 'PUT', headers: { ...bearer(), 'Content-Type': 'text/plain;charset=UTF-8' }, body: JSON.stringify({ subdomain: 'other-corp' }) });
    expect({ status: claimed.status, result: ((await claimed.json()) as { result: unknown }).result }).toEqual({ status: 200, result: { subdomain: 'other-corp' } });
    await cf.workers.subdomains.delete({ account_id });
    await expect(cf.workers.subdomains.get({ account_id })).rejects.toMatchObject({ status: 404, errors: [{ code: 10007 }] });
  });
});

/** A multipart upload sent by hand: the metadata part and the modules. */
function form(metadata: unknown, modules: { name: string; type: string; body: string | Buffer }[], { close = true } = {}) {
  const boundary = 'test-boundary-7e1f';
  const parts = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(metadata)}\r\n`),
    ...modules.flatMap((module) => [
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${module.name}"; filename="${module.name}"\r\nContent-Type: ${module.type}\r\n\r\n`),
      Buffer.from(module.body),
      Buffer.from('\r\n'),
    ]),
    ...(close ? [Buffer.from(`--${boundary}--\r\n`)] : []),
  ];
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function upload(name: string, sent: { body: Buffer; contentType: string }) {
  const response = await server.fetch(`/accounts/${account_id}/workers/scripts/${name}`, {
    method: 'PUT',
    headers: { ...bearer(), 'Content-Type': sent.contentType },
    body: sent.body,
  });
  return { status: response.status, errors: ((await response.json()) as { errors: { code: number; message: string }[] }).errors };
}

const esm = (body: string) => ({ name: 'index.js', type: 'application/javascript+module', body });

describe('bad uploads get the platform\'s answer and change nothing', () => {
  const cases: [string, string, () => { body: Buffer; contentType: string }, number, string][] = [
    ['a module that does not parse', 'bad-parse', () => form({ main_module: 'index.js' }, [esm('export default { fetch() {')]), 10021, 'Uncaught SyntaxError'],
    ['no main_module', 'bad-main', () => form({ bindings: [] }, [esm(HELLO)]), 10021, 'main_module is required'],
    ['a main_module naming no part', 'bad-missing', () => form({ main_module: 'worker.js' }, [esm(HELLO)]), 10021, 'No such module "worker.js"'],
    ['a bucket that does not exist', 'bad-bucket', () => form({ main_module: 'index.js', bindings: [{ type: 'r2_bucket', name: 'B', bucket_name: 'no-such-bucket' }] }, [esm(HELLO)]), 10021, 'bucket no-such-bucket does not exist'],
    ['a binding type this platform does not serve', 'bad-kv', () => form({ main_module: 'index.js', bindings: [{ type: 'kv_namespace', name: 'KV', namespace_id: 'x' }] }, [esm(HELLO)]), 10021, 'binding KV of type kv_namespace is not served'],
    ['a name the platform refuses', 'Bad_Name', () => form({ main_module: 'index.js' }, [esm(HELLO)]), 10016, 'Invalid Worker name'],
    ['a form cut off before its end', 'bad-cut', () => form({ main_module: 'index.js' }, [esm(HELLO)], { close: false }), 10026, 'incomplete'],
    ['modules over the size limit', 'bad-large', () => form({ main_module: 'index.js' }, [esm(HELLO), { name: 'blob.bin', type: 'application/octet-stream', body: randomBytes(11 * 1024 * 1024) }]), 10027, 'size limit of 10 MiB'],
  ];

  it.each(cases)('%s', async (_what, name, sent, code, message) => {
    const answer = await upload(name, sent());
    expect(answer.status).toBe(400);
    expect(answer.errors[0]).toMatchObject({ code });
    expect(answer.errors[0]!.message).toContain(message);
    const services = await server.fetch(`/accounts/${account_id}/workers/services/${name}`, { headers: bearer() });
    expect(services.status).toBe(404);
  });

  it('an upload whose connection drops half-way stores nothing', async () => {
    const sent = form({ main_module: 'index.js' }, [esm(HELLO)]);
    const url = new URL(`${server.baseUrl}/accounts/${account_id}/workers/scripts/bad-dropped`);
    await new Promise<void>((resolve) => {
      const req = request(url, { method: 'PUT', headers: { ...bearer(), 'Content-Type': sent.contentType, 'Content-Length': String(sent.body.length) } });
      req.on('error', () => resolve());
      req.write(sent.body.subarray(0, 100));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const services = await server.fetch(`/accounts/${account_id}/workers/services/bad-dropped`, { headers: bearer() });
    expect(services.status).toBe(404);
  });

  it('a route outside its zone, on a zone of another account, or for an unknown script', async () => {
    const outside = await server.fetch(`/zones/${ids.enterpriseZone}/workers/routes`, json('POST', { pattern: 'shop.example.org/*', script: 'sdk-worker' }));
    expect((await outside.json()) as object).toMatchObject({ errors: [{ code: 10022 }] });
    const otherAccount = await server.fetch(`/zones/${SANDBOX_ZONE}/workers/routes`, json('POST', { pattern: 'sandbox-labs.dev/*', script: 'sdk-worker' }));
    expect({ status: otherAccount.status, body: (await otherAccount.json()) as object }).toMatchObject({ status: 404, body: { errors: [{ code: 10007 }] } });
    const scriptRoutes = await server.fetch(`/accounts/${account_id}/workers/scripts/sdk-worker/routes`, json('PUT', [{ pattern: 'sandbox-labs.dev/*', zone_id: SANDBOX_ZONE }]));
    expect((await scriptRoutes.json()) as object).toMatchObject({ errors: [{ code: 10022 }] });
    expect(await server.store.workers.listRoutes(SANDBOX_ZONE)).toEqual([]);
  });
});
