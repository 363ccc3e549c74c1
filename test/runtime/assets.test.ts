// Static assets in the runtime: a deployment split between two versions answers each request
// from the files of the version it picked; a worker with assets runs for what no file answers
// (and for every request with run_worker_first), and never for a file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeployedVersion } from '../../src/runtime';
import { VersionAssets } from '../../src/runtime/assets/version-assets';
import { deployed, moduleVersion, startHarness, type Harness } from './harness';

/** Bytes by hash, as the store holds them for the account. */
const CONTENTS = new Map([
  ['one', 'version one'],
  ['two', 'version two'],
  ['page', '<p>page</p>'],
]);

function withAssets(version: DeployedVersion, files: Record<string, string>, config: Partial<NonNullable<DeployedVersion['assets']>['config']> = {}): DeployedVersion {
  const manifest = Object.fromEntries(Object.entries(files).map(([file, hash]) => [file, { hash, size: CONTENTS.get(hash)!.length }]));
  return { ...version, assets: { manifest, config: { html_handling: 'auto-trailing-slash', not_found_handling: 'none', run_worker_first: false, ...config } } };
}

const assetsOnly = (files: Record<string, string>): DeployedVersion => withAssets({ ...moduleVersion(''), modules: [], main_module: '' }, files);
const WORKER = "export default { fetch: (request) => new Response('worker ' + new URL(request.url).pathname) };";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    assetContent: async (_account, hash) => {
      const text = CONTENTS.get(hash);
      return text === undefined ? null : { bytes: new TextEncoder().encode(text), content_type: 'text/plain; charset=utf-8' };
    },
  });
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

const get = async (script: string, requestPath: string, init: RequestInit = {}) => {
  const response = await fetch(`${harness.url}/023e105f4ecef8ad9ca31a8372d0c353/${script}${requestPath}`, init);
  return { status: response.status, body: await response.text() };
};

describe('static assets in the runtime', () => {
  it('answer each request of a split deployment from the files of the version it picked', async () => {
    await harness.runtime.apply(deployed({ split: [{ percentage: 50, version: assetsOnly({ '/v.txt': 'one' }) }, { percentage: 50, version: assetsOnly({ '/v.txt': 'two' }) }] }));
    const seen = new Set<string>();
    for (let i = 0; i < 60 && seen.size < 2; i++) seen.add((await get('split', '/v.txt')).body);
    expect([...seen].sort()).toEqual(['version one', 'version two']);
  });

  it('run the worker for what no file answers, never for a file; and for everything with run_worker_first', async () => {
    await harness.runtime.apply(
      deployed({
        app: withAssets(moduleVersion(WORKER), { '/page.html': 'page' }),
        first: withAssets(moduleVersion(WORKER), { '/page.html': 'page' }, { run_worker_first: true }),
      }),
    );
    expect(await get('app', '/page')).toEqual({ status: 200, body: '<p>page</p>' });
    expect(await get('app', '/api/x')).toEqual({ status: 200, body: 'worker /api/x' });
    // A file's path with another method is the assets' (405), as on the platform.
    expect((await get('app', '/page', { method: 'POST', body: 'x' })).status).toBe(405);
    expect(await get('first', '/page')).toEqual({ status: 200, body: 'worker /page' });
  });


  it('read a request in absolute form (GET http://host/path) by its path', async () => {
    const assets = new VersionAssets({
      account: 'a',
      manifest: { '/page.html': { hash: 'page', size: 11 } },
      config: { html_handling: 'auto-trailing-slash', not_found_handling: 'none', run_worker_first: false },
      hasWorker: true,
      compatibilityDate: '2026-07-01',
      compatibilityFlags: [],
      read: async () => ({ bytes: new TextEncoder().encode('<p>page</p>'), content_type: null }),
    });
    const request = { url: 'http://site.example/page?x=1', method: 'GET', headers: {}, resume() {} } as unknown as IncomingMessage;
    expect(assets.wantsWorker(request)).toBe(false);
    const written: { status?: number; body?: string } = {};
    const response = {
      writeHead: (status: number) => void (written.status = status),
      end: (body?: Uint8Array) => void (written.body = body === undefined ? '' : new TextDecoder().decode(body)),
    } as unknown as ServerResponse;
    await assets.serve(request, response);
    expect(written).toEqual({ status: 200, body: '<p>page</p>' });
  });
});
