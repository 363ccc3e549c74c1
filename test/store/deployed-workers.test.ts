// The runtime's read model: what a snapshot holds of what is deployed (modules with their bytes,
// bindings with secrets opened, workers.dev switches, subdomains, zone routes), and the change
// marker that moves with every committed change, seen by a second store on the same database.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, SecretBox, type Store, type WorkerVersionInput } from '../../src/store';

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const ZONE = 'db737a563ced53f224ff5eae44905c5e';
const dir = mkdtempSync(path.join(os.tmpdir(), 'deployed-workers-'));
const box = new SecretBox(Buffer.alloc(32, 7));
let store: Store;
let other: Store;

const version = (source: string, secret: string): WorkerVersionInput => ({
  main_module: 'index.js',
  compatibility_date: '2026-11-01',
  compatibility_flags: ['nodejs_compat'],
  bindings: [
    { type: 'plain_text', name: 'GREETING', text: 'hi' },
    { type: 'r2_bucket', name: 'BUCKET', bucket_name: 'assets' },
    { type: 'secret_text', name: 'TOKEN', text: secret },
  ],
  modules: [{ name: 'index.js', type: 'esm', bytes: new TextEncoder().encode(source) }],
  keep_bindings: [],
  annotations: {},
  source: 'api',
  author_email: null,
  handlers: ['fetch'],
});

beforeAll(async () => {
  store = await openSqliteStore({ dataDir: dir, secrets: box });
  other = await openSqliteStore({ dataDir: dir, secrets: box });
});

afterAll(async () => {
  await Promise.all([store?.close(), other?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('the deployed workers read model', () => {
  it('starts at marker 0 with nothing deployed', async () => {
    expect(await store.deployedWorkers.snapshot()).toEqual({ marker: 0, subdomains: {}, scripts: [], zones: [] });
  });

  it('holds the current deployment with modules, bindings and secrets opened, and moves the marker for every change', async () => {
    const first = await store.workers.uploadVersion(ACCOUNT, 'hello', version('export default {}', 's-1'), { create: true, deploy: true });
    const afterUpload = await other.deployedWorkers.changeMarker();
    expect(afterUpload).toBeGreaterThan(0);
    await store.workers.uploadVersion(ACCOUNT, 'hello', version('export default { fetch() {} }', 's-2'), { create: false, deploy: false });
    await store.workers.setWorkersDev(ACCOUNT, 'hello', { enabled: true });
    await store.workers.setSubdomain(ACCOUNT, 'example-corp');
    await store.workers.createRoute(ZONE, { pattern: 'shop.example.com/*', script: 'hello' });
    const marker = await other.deployedWorkers.changeMarker();
    expect(marker).toBe(afterUpload + 4);

    const snapshot = await other.deployedWorkers.snapshot();
    expect(snapshot.marker).toBe(marker);
    expect(snapshot.subdomains).toEqual({ [ACCOUNT]: 'example-corp' });
    expect(snapshot.zones).toEqual([{ id: ZONE, name: 'example.com', account_id: ACCOUNT, routes: [{ id: expect.any(String), pattern: 'shop.example.com/*', script: 'hello' }] }]);
    const [script] = snapshot.scripts;
    expect(script).toMatchObject({ account_id: ACCOUNT, name: 'hello', workers_dev: true, deployment_id: first.deployment!.id });
    // The version deployed, not the newer one uploaded without a deployment.
    expect(script!.versions.map((share) => [share.version_id, share.percentage])).toEqual([[first.version.id, 100]]);
    const deployed = script!.versions[0]!.version;
    expect(new TextDecoder().decode(deployed.modules[0]!.bytes)).toBe('export default {}');
    expect(deployed).toMatchObject({ main_module: 'index.js', compatibility_date: '2026-11-01', compatibility_flags: ['nodejs_compat'] });
    expect(deployed.bindings).toEqual([
      { type: 'plain_text', name: 'GREETING', text: 'hi' },
      { type: 'r2_bucket', name: 'BUCKET', bucket_name: 'assets' },
      { type: 'secret_text', name: 'TOKEN', text: 's-1' },
    ]);
  });

  it('a split deployment gives each version its share; deleting the script takes it and its routes away', async () => {
    const versions = (await store.workers.listVersions(ACCOUNT, 'hello'))!;
    await store.workers.createDeployment(ACCOUNT, 'hello', {
      versions: [
        { version_id: versions[0]!.id, percentage: 25 },
        { version_id: versions[1]!.id, percentage: 75 },
      ],
      annotations: {},
      source: 'api',
      author_email: null,
    });
    const split = (await store.deployedWorkers.snapshot()).scripts[0]!;
    expect(split.versions.map((share) => share.percentage)).toEqual([25, 75]);
    await store.workers.deleteScript(ACCOUNT, 'hello');
    const after = await store.deployedWorkers.snapshot();
    expect({ scripts: after.scripts, zones: after.zones }).toEqual({ scripts: [], zones: [] });
  });

  it('a store with another key cannot open the secrets it did not seal', async () => {
    await store.workers.uploadVersion(ACCOUNT, 'sealed', version('export default {}', 'kept'), { create: true, deploy: true });
    const stranger = await openSqliteStore({ dataDir: dir, secrets: new SecretBox(Buffer.alloc(32, 9)) });
    try {
      await expect(stranger.deployedWorkers.snapshot()).rejects.toThrow(/sealed under another key/);
    } finally {
      await stranger.close();
    }
  });
});
