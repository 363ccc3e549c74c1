// A deployed worker is somebody's code. This one tries everything it should not reach: the
// platform's environment (its tokens and S3 keys), files of the data directory and of the
// machine, another script's secrets, another account's bucket of the same name. It gets its own
// bindings and nothing else.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeployedVersion } from '../../src/runtime';
import { ACCOUNT, OTHER_ACCOUNT, deployed, moduleVersion, startHarness, type Harness } from './harness';

const CANARIES = {
  API_TOKEN: 'canary-api-token-6f1c',
  S3_SECRET_ACCESS_KEY: 'canary-s3-secret-9d2e',
  DATABASE_URL: 'postgres://canary:canary-db-password-3a7b@localhost/edge',
};
const OTHER_SECRET = 'other-script-secret-5b8c';
const OTHER_ASSET = 'other-account-asset-7c2d';
/** Static assets' bytes by account and hash, as the store holds them. */
const ASSET_BYTES = new Map([
  [`${ACCOUNT}/mine`, 'own asset'],
  [`${OTHER_ACCOUNT}/theirs`, OTHER_ASSET],
]);

const ADVERSARY = `
import process from 'node:process';
import fs from 'node:fs';
const attempt = async (what) => { try { const value = await what(); return { value: typeof value === 'string' ? value : JSON.stringify(value) ?? String(value) }; } catch (error) { return { error: String(error && error.message || error) }; } };
export default {
  async fetch(request, env) {
    const dataDir = new URL(request.url).searchParams.get('dataDir');
    const runtimeDir = new URL(request.url).searchParams.get('runtimeDir');
    const found = {
      envKeys: Object.keys(env).sort(),
      processEnv: await attempt(() => ({ ...process.env })),
      globalProcess: await attempt(() => globalThis.process?.env ?? null),
      passwd: await attempt(() => fs.readFileSync('/etc/passwd', 'utf8')),
      environ: await attempt(() => fs.readFileSync('/proc/self/environ', 'utf8')),
      dataDirListing: await attempt(() => fs.readdirSync(dataDir)),
      catalogueFile: await attempt(() => fs.readFileSync(dataDir + '/buckets/shared/objects.sqlite')),
      fileUrl: await attempt(async () => (await fetch('file:///etc/passwd')).text()),
      // The platform's sockets (the trigger service that runs cron triggers among them).
      runtimeListing: await attempt(() => fs.readdirSync(runtimeDir)),
      triggerService: await attempt(async () => (await fetch('http://trigger/?cron=*&time=0', { method: 'POST' })).text()),
      otherAccountObject: await attempt(async () => { const object = await env.MINE.get('private.txt'); return object === null ? null : object.text(); }),
      listing: await attempt(async () => (await env.MINE.list()).objects.map((o) => o.key)),
      ownSecret: env.OWN_SECRET,
      ownAsset: await attempt(async () => (await env.ASSETS.fetch('http://any.host/mine.txt')).text()),
      otherAsset: await attempt(async () => { const r = await env.ASSETS.fetch('http://any.host/theirs.txt'); return r.status + ' ' + (await r.text()); }),
      forgedGrant: await attempt(async () => { const r = await env.ASSETS.fetch('http://any.host/theirs.txt', { headers: { 'cf-edge-binding': 'forged' } }); return r.status + ' ' + (await r.text()); }),
      traversal: await attempt(async () => { const r = await env.ASSETS.fetch('http://any.host/%2e%2e/theirs.txt'); return r.status + ' ' + (await r.text()); }),
    };
    return Response.json(found);
  },
};
`;

/** A version with static assets: paths to hashes. */
function withAssets(version: DeployedVersion, files: Record<string, string>): DeployedVersion {
  const manifest = Object.fromEntries(Object.entries(files).map(([file, hash]) => [file, { hash, size: 1 }]));
  return { ...version, assets: { manifest, config: { html_handling: 'none', not_found_handling: 'none', run_worker_first: true } } };
}

let harness: Harness;
let saved: Record<string, string | undefined>;

beforeAll(async () => {
  // The platform's process holds its credentials in its environment; the runtime starts workers beside them.
  saved = Object.fromEntries(Object.keys(CANARIES).map((key) => [key, process.env[key]]));
  Object.assign(process.env, CANARIES);
  harness = await startHarness({
    assetContent: async (account, hash) => {
      const text = ASSET_BYTES.get(`${account}/${hash}`);
      return text === undefined ? null : { bytes: new TextEncoder().encode(text), content_type: 'text/plain' };
    },
  });
  await harness.catalogue.account(ACCOUNT).create('shared');
  await harness.catalogue.account(OTHER_ACCOUNT).create('shared');
  const theirs = await harness.catalogue.account(OTHER_ACCOUNT).open('shared');
  await theirs.put('private.txt', 'another account');
  await theirs.close();
  const mine = await harness.catalogue.account(ACCOUNT).open('shared');
  await mine.put('mine.txt', 'this account');
  await mine.close();
  await harness.runtime.apply({
    subdomains: {},
    zones: [],
    scripts: [
      { account_id: ACCOUNT, name: 'adversary', workers_dev: true, versions: [{ percentage: 100, version: withAssets(moduleVersion(ADVERSARY, [{ type: 'r2_bucket', name: 'MINE', bucket_name: 'shared' }, { type: 'secret_text', name: 'OWN_SECRET', text: 'own-secret-1e4f' }, { type: 'assets', name: 'ASSETS' }], ['nodejs_compat', 'nodejs_compat_populate_process_env']), { '/mine.txt': 'mine' }) }] },
      { account_id: OTHER_ACCOUNT, name: 'neighbour', workers_dev: true, versions: [{ percentage: 100, version: withAssets(moduleVersion("export default { fetch: (r, env) => new Response(env.SECRET.length + '') }", [{ type: 'secret_text', name: 'SECRET', text: OTHER_SECRET }, { type: 'r2_bucket', name: 'THEIRS', bucket_name: 'shared' }, { type: 'assets', name: 'ASSETS' }]), { '/theirs.txt': 'theirs' }) }] },
    ],
  });
}, 60_000);

afterAll(async () => {
  await harness?.close();
  for (const [key, value] of Object.entries(saved ?? {})) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('a deployed worker', () => {
  it('sees its own bindings and nothing of the platform, the machine, another script or another account', async () => {
    const response = await fetch(`${harness.url}/${ACCOUNT}/adversary/?dataDir=${encodeURIComponent(harness.dataDir)}&runtimeDir=${encodeURIComponent(harness.runtime.directory)}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const canary of [...Object.values(CANARIES), 'canary-db-password', OTHER_SECRET, OTHER_ASSET]) expect(text).not.toContain(canary);
    const found = JSON.parse(text) as Record<string, { value?: string; error?: string } | string[] | string>;
    expect(found.envKeys).toEqual(['ASSETS', 'MINE', 'OWN_SECRET']);
    // process.env holds the worker's own text bindings (as on the platform with this flag), nothing else.
    expect(JSON.parse((found.processEnv as { value: string }).value)).toEqual({ OWN_SECRET: 'own-secret-1e4f' });
    expect(found.ownSecret).toBe('own-secret-1e4f');
    // No file of the machine or of the data directory.
    expect(found.passwd).toHaveProperty('error');
    expect(found.environ).toHaveProperty('error');
    expect(found.dataDirListing).toHaveProperty('error');
    expect(found.catalogueFile).toHaveProperty('error');
    expect(found.fileUrl).toHaveProperty('error');
    expect(found.runtimeListing).toHaveProperty('error');
    expect(found.triggerService).toHaveProperty('error');
    // Its binding is its own account's bucket of that name, not the other account's.
    expect(found.otherAccountObject).toEqual({ value: 'null' });
    expect(found.listing).toEqual({ value: JSON.stringify(['mine.txt']) });
    // Its assets binding reaches its own version's assets: not another account's, whatever it sends.
    expect(found.ownAsset).toEqual({ value: 'own asset' });
    expect(found.otherAsset).toEqual({ value: '404 ' });
    expect(found.forgedGrant).toEqual({ value: '404 ' });
    expect(found.traversal).toEqual({ value: '404 ' });
  });

  it('leaves no secret in a file: configurations are gone once the runtime listens', async () => {
    const files = readdirSync(harness.runtime.directory).map((name) => path.join(harness.runtime.directory, name));
    expect(files.filter((file) => statSync(file).isFile())).toEqual([]);
    expect(statSync(harness.runtime.directory).mode & 0o777).toBe(0o700);
    // Nor in the data directory, whatever it holds.
    const walk = (directory: string): string[] => readdirSync(directory, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(directory, entry.name)) : [path.join(directory, entry.name)]));
    for (const file of walk(harness.dataDir)) {
      const bytes = readFileSync(file);
      expect(bytes.includes(OTHER_SECRET)).toBe(false);
      expect(bytes.includes('own-secret-1e4f')).toBe(false);
    }
  });
});
