// The installable packages as a consumer gets them: each is built and packed, the tarballs are
// installed into a fresh project from the local npm cache (no network, no install scripts of
// ours), imported with plain node and type-checked with tsc against strict Node ESM settings.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPackage, manifestOf, packageNames, packPackage, type PackageName } from '../../scripts/packages';
import { startPostgres } from '../support/postgres';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const npm = 'npm';

let work: string;
let project: string;
const tarballs = new Map<PackageName, string>();

type LockEntry = { version: string; resolved: string; integrity: string; dependencies?: Record<string, string> };

const dependenciesOf = (name: PackageName): string[] => Object.keys(manifestOf(name).dependencies ?? {});

/**
 * A lockfile holding the given dependencies (and theirs) as the repository locked them. npm's
 * cache keeps the tarballs the repository installed, not the registry's package listings, so an
 * offline install resolves third-party packages from a lockfile only.
 */
function lockOf(name: string, dependencies: string[]): object {
  const locked = (JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const packages: Record<string, LockEntry> = {};
  for (let pending = [...dependencies], next = pending.pop(); next !== undefined; next = pending.pop()) {
    const key = `node_modules/${next}`;
    if (packages[key]) continue;
    const { version, resolved, integrity, dependencies: theirs } = locked[key]!;
    packages[key] = { version, resolved, integrity, ...(theirs ? { dependencies: theirs } : {}) };
    pending.push(...Object.keys(theirs ?? {}));
  }
  return { name, lockfileVersion: 3, requires: true, packages: { '': { name }, ...packages } };
}

async function tarballFiles(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  return stdout.trim().split('\n').map((entry) => entry.replace(/^package\//, ''));
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'packages-'));
  for (const name of packageNames) {
    await buildPackage(name);
    tarballs.set(name, packPackage(name, work));
  }
  project = path.join(work, 'consumer');
  mkdirSync(project);
  // better-sqlite3 ships prebuilt binaries: its node-gyp fallback is not needed (as in the repository).
  const manifest = { name: 'consumer', private: true, type: 'module', allowScripts: { 'better-sqlite3': false } };
  writeFileSync(path.join(project, 'package.json'), JSON.stringify(manifest));
  writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(lockOf(manifest.name, packageNames.flatMap(dependenciesOf))));
  await run(npm, ['install', '--offline', '--no-audit', '--no-fund', ...tarballs.values()], {
    cwd: project,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it('hold only their built JavaScript, declarations and manifest, with no install script', async () => {
    for (const name of packageNames) {
      const files = await tarballFiles(tarballs.get(name)!);
      expect(files).toContain('package.json');
      expect(files).toContain('dist/index.js');
      expect(files).toContain(`dist/types/src/${name}/index.d.ts`);
      expect(files.filter((f) => f !== 'package.json' && !f.startsWith('dist/'))).toEqual([]);
      expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
      expect(manifestOf(name).scripts).toBeUndefined();
    }
    expect(await tarballFiles(tarballs.get('client')!)).toContain('dist/types/generated/api.d.ts');
    expect(await tarballFiles(tarballs.get('bucket')!)).toContain('dist/types/src/bucket/contract.d.ts');
  });

  it('install only their own runtime dependencies', () => {
    const installed = readdirSync(path.join(project, 'node_modules'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .flatMap((entry) =>
        entry.name.startsWith('@') ? readdirSync(path.join(project, 'node_modules', entry.name)).map((n) => `${entry.name}/${n}`) : [entry.name],
      )
      .sort();
    // openapi-fetch brings its helpers, better-sqlite3 its native-addon helper, the bucket's
    // PostgreSQL engine the pg driver (with its parts), pg-copy-streams and kysely (migrations);
    // nothing of the server.
    expect(installed).toEqual(
      [
        '@edge-api-toolkit/bucket',
        '@edge-api-toolkit/client',
        '@edge-api-toolkit/filter',
        'better-sqlite3',
        'kysely',
        'node-addon-api',
        'openapi-fetch',
        'openapi-typescript-helpers',
        'pg',
        'pg-connection-string',
        'pg-copy-streams',
        'pg-int8',
        'pg-pool',
        'pg-protocol',
        'pg-types',
        'pgpass',
        'postgres-array',
        'postgres-bytea',
        'postgres-date',
        'postgres-interval',
        're2js',
        'split2',
        'xtend',
      ].sort(),
    );
  });

  it('import with plain node', async () => {
    writeFileSync(
      path.join(project, 'use.mjs'),
      `import { createApiClient, unwrap, ApiError } from '@edge-api-toolkit/client';
import { validate, compile } from '@edge-api-toolkit/filter';
import { createBucket, MemoryEngine } from '@edge-api-toolkit/bucket';

const seen = [];
const api = createApiClient({
  baseUrl: 'http://api.test/client/v4/',
  credentials: { token: 'secret-token' },
  fetch: async (request) => {
    seen.push(request.url + ' ' + request.headers.get('authorization'));
    return Response.json({ success: true, errors: [], messages: [], result: { id: 'z1', name: 'example.com' } });
  },
});
const zone = await unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: 'z1' } } }));
const checked = validate('http.request.uri.path contains "/admin"');
const matches = checked.ok && compile(checked.ast).evaluate({ 'http.request.uri.path': '/admin/users' });
const broken = validate('http.request.uri.path contains');
const bucket = createBucket({ engine: new MemoryEngine() });
await bucket.put('docs/readme.txt', 'hello');
const text = await (await bucket.get('docs/readme.txt')).text();
await bucket.close();
console.log(JSON.stringify({ seen, zone: zone.name, matches, broken: broken.ok, text, apiError: new ApiError(404, {}).name }));
`,
    );
    return run(process.execPath, ['use.mjs'], { cwd: project }).then(({ stdout }) => {
      expect(JSON.parse(stdout)).toEqual({
        seen: ['http://api.test/client/v4/zones/z1 Bearer secret-token'],
        zone: 'example.com',
        matches: true,
        broken: false,
        text: 'hello',
        apiError: 'ApiError',
      });
    });
  });

  it('keep a large object on PostgreSQL with plain node: the driver resolved from the consumer, the body and a range read back whole', async () => {
    const cluster = await startPostgres();
    try {
      const url = await cluster.createDatabase();
      writeFileSync(
        path.join(project, 'use-postgres.mjs'),
        `import { createHash } from 'node:crypto';
import { createBucket, openPostgresBuckets } from '@edge-api-toolkit/bucket';

const buckets = await openPostgresBuckets({ connectionString: process.argv[2] });
const bucket = createBucket({ engine: buckets.storage('photos') });
const bytes = Buffer.alloc(3 * 1024 * 1024 + 123).map((_, i) => (i * 31) % 251);
const stored = await bucket.put('big.bin', bytes);
const read = Buffer.from(await (await bucket.get('big.bin')).arrayBuffer());
const ranged = Buffer.from(await (await bucket.get('big.bin', { range: { offset: 1048570, length: 20 } })).arrayBuffer());
await bucket.close();
await buckets.close();
const md5 = (b) => createHash('md5').update(b).digest('hex');
console.log(JSON.stringify({ etag: stored.etag === md5(bytes), same: read.equals(bytes), ranged: ranged.equals(bytes.subarray(1048570, 1048590)) }));
`,
      );
      const { stdout } = await run(process.execPath, ['use-postgres.mjs', url], { cwd: project });
      expect(JSON.parse(stdout)).toEqual({ etag: true, same: true, ranged: true });
    } finally {
      await cluster.stop();
    }
  }, 60_000);

  it('type-check consumers with tsc under Node ESM resolution, types and all', async () => {
    // Each file holds a @ts-expect-error: were a package's types lost (any), tsc would fail on it.
    writeFileSync(
      path.join(project, 'use-client.ts'),
      `import { createApiClient, unwrap, paginate, type Credentials } from '@edge-api-toolkit/client';

const credentials: Credentials = { email: 'user@example.com', key: 'k' };
const api = createApiClient({ baseUrl: 'http://127.0.0.1:8787/client/v4', credentials });
export async function zoneName(zone_id: string): Promise<string> {
  const zone = await unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id } } }));
  return zone.name;
}
export async function packIds(zone_id: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const pack of paginate((page) =>
    api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id }, query: { page } } }),
  )) ids.push(pack.id);
  return ids;
}
// @ts-expect-error: the paths are typed, an unknown one is refused
api.GET('/no/such/path');
`,
    );
    writeFileSync(
      path.join(project, 'use-runtime.ts'),
      `import { validate, type Expression } from '@edge-api-toolkit/filter';
import { createBucket, MemoryEngine, type Bucket } from '@edge-api-toolkit/bucket';

const checked = validate('ssl');
export const tree: Expression | undefined = checked.ok ? checked.ast : undefined;
// @ts-expect-error: a validation result is not a number
export const wrong: number = checked;
export const bucket: Bucket = createBucket({ engine: new MemoryEngine() });
`,
    );
    const tsconfig = (files: string[]) =>
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules/@types')],
        },
        files,
      });
    // Every file checked, the packages' declarations included (skipLibCheck off): a consumer
    // whose project checks libraries must not be refused by our declarations.
    writeFileSync(path.join(project, 'tsconfig.client.json'), tsconfig(['use-client.ts']));
    writeFileSync(path.join(project, 'tsconfig.runtime.json'), tsconfig(['use-runtime.ts']));
    const tsc = (config: string) =>
      run(path.join(root, 'node_modules/.bin/tsc'), ['-p', config], { cwd: project }).catch((error: { stdout: string }) => ({
        stdout: error.stdout,
      }));
    const [client, runtime] = await Promise.all([tsc('tsconfig.client.json'), tsc('tsconfig.runtime.json')]);
    expect(client.stdout).toBe('');
    expect(runtime.stdout).toBe('');
  }, 60_000);
});
