import { describe, expect, it } from 'vitest';
import { SecretBox, WorkerRouteExistsError, WorkerVersionNotDeployedError, type WorkerVersionInput } from '../../../src/store';
import type { StoreHarness } from '../helpers/harness';
import { MAIN_ACCOUNT_ID, ZONE_IDS } from './fixtures';

const ACCOUNT = MAIN_ACCOUNT_ID;
const ZONE = ZONE_IDS.enterprise;
const box = new SecretBox(Buffer.alloc(32, 7));
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

export function workersContract(harness: () => StoreHarness): void {
  describe('workers and the deployed workers read model', () => {
    it('starts at marker 0 with nothing deployed', async () => {
      const store = await harness().fresh({ secrets: box });
      expect(await store.deployedWorkers.snapshot()).toEqual({ marker: 0, subdomains: {}, scripts: [], zones: [] });
    });
  
    it('holds the current deployment with modules, bindings and secrets opened, and moves the marker for every change seen by another instance', async () => {
      const store = await harness().fresh({ secrets: box });
      const other = await harness().reopen({ secrets: box });
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
      const store = await harness().fresh({ secrets: box });
      await store.workers.uploadVersion(ACCOUNT, 'hello', version('export default {}', 's-1'), { create: true, deploy: true });
      await store.workers.uploadVersion(ACCOUNT, 'hello', version('export default { fetch() {} }', 's-2'), { create: false, deploy: false });
      await store.workers.createRoute(ZONE, { pattern: 'shop.example.com/*', script: 'hello' });
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
  
    it('a store with another key cannot open the secrets it did not seal, and the tables hold no value in plain text', async () => {
      const store = await harness().fresh({ secrets: box });
      // Nothing sealed yet: any key will do.
      await expect(store.deployedWorkers.checkSecretsKey()).resolves.toBeUndefined();
      await store.workers.uploadVersion(ACCOUNT, 'sealed', version('export default {}', 'kept-out-of-sight'), { create: true, deploy: true });
      const rows: string[] = [];
      await store.dump.export((entry) => void rows.push(JSON.stringify(entry)));
      expect(rows.some((row) => row.includes('worker_versions'))).toBe(true);
      expect(rows.some((row) => row.includes('kept-out-of-sight'))).toBe(false);
      const stranger = await harness().reopen({ secrets: new SecretBox(Buffer.alloc(32, 9)) });
      await expect(stranger.deployedWorkers.snapshot()).rejects.toThrow(/sealed under another key/);
      // The check a platform makes before it starts names both keys by id, never a key itself.
      const strangerId = new SecretBox(Buffer.alloc(32, 9)).keyId;
      await expect(stranger.deployedWorkers.checkSecretsKey()).rejects.toThrow(`sealed under another key (key id ${box.keyId}; this platform's key is ${strangerId})`);
      await expect(store.deployedWorkers.checkSecretsKey()).resolves.toBeUndefined();
    });
  
    it('refuses what a zone or script cannot hold, changing nothing', async () => {
      const store = await harness().fresh({ secrets: box });
      await store.workers.uploadVersion(ACCOUNT, 'hello', version('export default {}', 's'), { create: true, deploy: true });
      await store.workers.createRoute(ZONE, { pattern: 'shop.example.com/*', script: 'hello' });
      await expect(store.workers.createRoute(ZONE, { pattern: 'shop.example.com/*', script: null })).rejects.toBeInstanceOf(WorkerRouteExistsError);
      await expect(store.workers.createRoute(ZONE, { pattern: 'x.example.com/*', script: 'nobody' })).rejects.toMatchObject({ entity: 'worker_script' });
      await expect(store.workers.uploadVersion(ACCOUNT, 'absent', version('x', 's'), { create: false, deploy: false })).rejects.toMatchObject({ entity: 'worker_script' });
      await expect(store.workers.changeSecrets(ACCOUNT, 'hello', { put: [], delete: ['NOPE'], source: 'api', author_email: null })).rejects.toMatchObject({ entity: 'worker_secret' });
      // A version uploaded and not deployed: secrets change the deployed latest version only.
      await store.workers.uploadVersion(ACCOUNT, 'hello', version('export default {}', 's'), { create: false, deploy: false });
      await expect(store.workers.changeSecrets(ACCOUNT, 'hello', { put: [{ name: 'A', text: 'b' }], delete: [], source: 'api', author_email: null })).rejects.toBeInstanceOf(WorkerVersionNotDeployedError);
      expect((await store.workers.listRoutes(ZONE)).map((route) => route.pattern)).toEqual(['shop.example.com/*']);
      expect((await store.workers.listVersions(ACCOUNT, 'hello'))!.length).toBe(2);
    });
  });
}
