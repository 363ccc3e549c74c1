// zod and yaml are evaluated on first use, not at every start (scripts/bundles.mjs,
// deferredPackagesPlugin), and the worker host's HTTP adapter, which loads Node's fetch
// implementation, when a worker first listens: a plain start answers without them, and the starts
// that need them (a configuration file, an auth file) get them as before, from the same bundle.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlatform, startPlatform, temporaryDirectory, withFiles } from './platform-process';

// zod marks its evaluation on the global object (core.js's `__zod_globalConfig`), and Node lists
// the internal modules it loaded; the lines are written when the process exits, however it exits.
const REPORT = [
  "process.on('exit', () => {",
  "  process.stderr.write('zod evaluated: ' + ('__zod_globalConfig' in globalThis) + '\\n');",
  "  process.stderr.write('fetch loaded: ' + process.moduleLoadList.some((name) => name.includes('internal/deps/undici')) + '\\n');",
  '});',
  '',
].join('\n');

function reporting(): Record<string, string> {
  const preload = path.join(withFiles({ 'report.mjs': REPORT }), 'report.mjs');
  return { NODE_OPTIONS: `--import ${preload}` };
}

// Two zones of the seed file.
const ids = { proZone: '9d6991f5ca85bf43524971c922c4bcfc', businessZone: '3f27d707f74126e7e43f7d379a9bdcc7' };

const zodReport = (stderr: string) => /^zod evaluated: (true|false)$/m.exec(stderr)?.[1];
const fetchReport = (stderr: string) => /^fetch loaded: (true|false)$/m.exec(stderr)?.[1];

describe('packages evaluated on first use', () => {
  it('a start without configuration answers its first requests without evaluating zod or loading fetch', async () => {
    const platform = await startPlatform(temporaryDirectory(), [], { PORT: '0', S3_PORT: '0', DATA_DIR: temporaryDirectory(), ...reporting() });
    const response = await fetch(`${platform.urls.api}/zones/${ids.proZone}`, { headers: { authorization: `Bearer ${platform.token}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { id: string } }).result.id).toBe(ids.proZone);
    expect(await platform.stop()).toBe(0);
    expect(zodReport(platform.stderr())).toBe('false');
    expect(fetchReport(platform.stderr())).toBe('false');
  });

  it('a configuration file is checked by zod from the bundle', async () => {
    const cwd = withFiles({ 'platform.toml': '[api]\nport = "eighty"\n' });
    const finished = await runPlatform(cwd, [], { DATA_DIR: temporaryDirectory(), ...reporting() });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('platform.toml: api.port: must be a port from 0 to 65535, not "eighty"');
    expect(zodReport(finished.stderr)).toBe('true');
  });

  it('an auth file in YAML is read by yaml and checked by zod from the bundle', async () => {
    const token = 'yaml-listed-token-0123456789abcdefghij';
    const sha256 = createHash('sha256').update(token).digest('hex');
    const directory = withFiles({ 'auth.yaml': `tokens:\n  - name: listed\n    sha256: ${sha256}\n    zones: [${ids.proZone}]\n` });
    const platform = await startPlatform(temporaryDirectory(), [], {
      PORT: '0',
      S3_PORT: '0',
      DATA_DIR: temporaryDirectory(),
      API_TOKEN: 'platform-token-0123456789abcdefghijklmn',
      AUTH_FILE: path.join(directory, 'auth.yaml'),
      ...reporting(),
    });
    const zone = await fetch(`${platform.urls.api}/zones/${ids.proZone}`, { headers: { authorization: `Bearer ${token}` } });
    expect(zone.status).toBe(200);
    // Scoped to the one zone: another is refused, as for any scoped token.
    const other = await fetch(`${platform.urls.api}/zones/${ids.businessZone}`, { headers: { authorization: `Bearer ${token}` } });
    expect(other.status).toBe(403);
    expect(await platform.stop()).toBe(0);
    expect(zodReport(platform.stderr())).toBe('true');
  });
});
