// Static assets in the store, on PostgreSQL (SQLite is what the API and platform tests run on):
// an upload session whose buckets two instances upload at once answers the completion token
// exactly once, a version keeps its manifest and config and the read model hands them (and the
// bytes) to the runtime, versions made by a secret change keep them, and deleting a script drops
// the contents no other script of the account names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type Store, type WorkerVersionInput } from '../../src/store';
import { startPostgres, type PostgresCluster } from '../support/postgres';

const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
const CONFIG = { html_handling: 'auto-trailing-slash', not_found_handling: 'single-page-application', run_worker_first: false } as const;

/** Files by hash (the store trusts the server's check of hashes against contents). */
const FILES = { aaaa: 'index page', bbbb: 'style sheet', cccc: 'shared logo' };
const manifest = (entries: Record<string, keyof typeof FILES>) =>
  Object.fromEntries(Object.entries(entries).map(([file, hash]) => [file, { hash: hash.repeat(8), size: FILES[hash].length }]));
const file = (hash: keyof typeof FILES) => ({ hash: hash.repeat(8), content_type: 'text/plain', bytes: new TextEncoder().encode(FILES[hash]) });

function assetsOnly(token: string): WorkerVersionInput {
  return {
    main_module: '',
    compatibility_date: '2026-07-01',
    compatibility_flags: [],
    bindings: [],
    modules: [],
    keep_bindings: [],
    annotations: {},
    source: 'api',
    author_email: null,
    handlers: [],
    assets: { kind: 'token', token, config: CONFIG },
  };
}

let cluster: PostgresCluster;
const stores: Store[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
  const url = await cluster.createDatabase();
  // Two instances on one database, sharing the secrets key (as they must), so they sign the same tokens.
  const { SecretBox } = await import('../../src/store');
  const secrets = SecretBox.fromText('c'.repeat(64), 'test');
  stores.push(await openPostgresStore({ connectionString: url, secrets }), await openPostgresStore({ connectionString: url, secrets }));
}, 60_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  await cluster?.stop();
});

describe('static assets on PostgreSQL', () => {
  it('complete a session once when two instances upload its buckets at once, and a version keeps its manifest', async () => {
    const [one, two] = stores as [Store, Store];
    const files = manifest({ '/index.html': 'aaaa', '/style.css': 'bbbb', '/logo.png': 'cccc' });
    const session = await one.workers.openAssetUpload(ACCOUNT, 'site', files);
    expect(session.buckets.flat().sort()).toEqual(['aaaa', 'bbbb', 'cccc'].map((h) => h.repeat(8)));
    const opened = await two.workers.assetUploadSession(session.jwt);
    const answers = await Promise.all([
      one.workers.storeAssets(opened.id, [file('aaaa')]),
      two.workers.storeAssets(opened.id, [file('bbbb')]),
      one.workers.storeAssets(opened.id, [file('cccc')]),
    ]);
    const completions = answers.map((answer) => answer.jwt).filter((jwt) => jwt !== null);
    expect(completions).toHaveLength(1);
    const { version } = await two.workers.uploadVersion(ACCOUNT, 'site', assetsOnly(completions[0]!), { create: true, deploy: true });
    expect(await one.workers.versionAssets(ACCOUNT, 'site', version.id)).toEqual({ manifest: files, config: CONFIG });
    const snapshot = await one.deployedWorkers.snapshot();
    const deployed = snapshot.scripts.find((script) => script.name === 'site')!.versions[0]!.version;
    expect(deployed.modules).toEqual([]);
    expect(deployed.assets).toEqual({ manifest: files, config: CONFIG });
    const content = await two.deployedWorkers.assetContent(ACCOUNT, 'cccc'.repeat(8));
    expect(new TextDecoder().decode(content!.bytes)).toBe('shared logo');
    expect(content!.content_type).toBe('text/plain');
  });

  it('drop on deletion the contents no other script of the account names', async () => {
    const [store] = stores as [Store];
    const session = await store.workers.openAssetUpload(ACCOUNT, 'other', manifest({ '/logo.png': 'cccc' }));
    // The account holds the logo already: nothing to upload, the completion token at once.
    expect(session.buckets).toEqual([]);
    await store.workers.uploadVersion(ACCOUNT, 'other', assetsOnly(session.jwt), { create: true, deploy: true });
    await store.workers.deleteScript(ACCOUNT, 'site');
    expect(await store.deployedWorkers.assetContent(ACCOUNT, 'aaaa'.repeat(8))).toBeNull();
    expect(await store.deployedWorkers.assetContent(ACCOUNT, 'bbbb'.repeat(8))).toBeNull();
    expect(await store.deployedWorkers.assetContent(ACCOUNT, 'cccc'.repeat(8))).not.toBeNull();
    await store.workers.deleteScript(ACCOUNT, 'other');
    expect(await store.deployedWorkers.assetContent(ACCOUNT, 'cccc'.repeat(8))).toBeNull();
  });
});
