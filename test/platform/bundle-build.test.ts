// A start whose bundle is missing or out of date builds it first, in a process of its own
// (scripts/bundles.mjs): esbuild and the sources the build imports never load into the process
// that then serves, which would otherwise keep them resident for its whole life. Each test runs
// a copy of the start scripts in a project of its own (the sources linked), so the build writes
// its own dist/ and never the one the other tests start from.
import { copyFileSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlatform, startPlatform, temporaryDirectory, withFiles } from './platform-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** What a build reads: the sources, the document, the seed, the dependencies and their patches. */
const LINKED = ['src', 'generated', 'openapi', 'fixtures', 'node_modules', 'patches', 'package.json', 'package-lock.json', 'tsconfig.json'];

/** A project of its own: the start scripts copied, everything the build reads linked. */
function projectCopy(leaveOut: string[] = []): { directory: string; start: string } {
  const directory = temporaryDirectory();
  for (const name of LINKED.filter((name) => !leaveOut.includes(name))) symlinkSync(path.join(ROOT, name), path.join(directory, name));
  mkdirSync(path.join(directory, 'scripts'));
  for (const script of ['start.mjs', 'bundles.mjs']) copyFileSync(path.join(ROOT, 'scripts', script), path.join(directory, 'scripts', script));
  return { directory, start: path.join(directory, 'scripts', 'start.mjs') };
}

// Each process (the start, the build) says at exit whether esbuild was loaded into it.
const REPORT = [
  "import { createRequire } from 'node:module';",
  "import path from 'node:path';",
  'const require = createRequire(import.meta.url);',
  "process.on('exit', () => {",
  "  const loaded = Object.keys(require.cache).some((file) => file.includes(`${path.sep}esbuild${path.sep}`));",
  "  process.stderr.write(`esbuild in ${path.basename(process.argv[1] ?? '')}: ${loaded}\\n`);",
  '});',
  '',
].join('\n');

const reporting = () => ({ NODE_OPTIONS: `--import ${path.join(withFiles({ 'report.mjs': REPORT }), 'report.mjs')}` });
const esbuildIn = (stderr: string, script: string) => new RegExp(`^esbuild in ${script}: (true|false)$`, 'm').exec(stderr)?.[1];

const PRO_ZONE = '9d6991f5ca85bf43524971c922c4bcfc';

describe('building the bundle before a start', () => {
  it('builds in a process of its own, then serves from the bundle without esbuild; the next start builds nothing', async () => {
    const project = projectCopy();
    const env = { PORT: '0', S3_PORT: '0', DATA_DIR: temporaryDirectory(), ...reporting() };
    const first = await startPlatform(project.directory, [], env, project.start);
    const zone = await fetch(`${first.urls.api}/zones/${PRO_ZONE}`, { headers: { authorization: `Bearer ${first.token}` } });
    expect(zone.status).toBe(200);
    expect(await first.stop()).toBe(0);
    expect(esbuildIn(first.stderr(), 'bundles.mjs')).toBe('true');
    expect(esbuildIn(first.stderr(), 'start.mjs')).toBe('false');
    expect(existsSync(path.join(project.directory, 'dist', 'platform', 'platform.mjs'))).toBe(true);

    const second = await startPlatform(project.directory, [], env, project.start);
    expect(await second.stop()).toBe(0);
    expect(esbuildIn(second.stderr(), 'bundles.mjs')).toBeUndefined();
    expect(esbuildIn(second.stderr(), 'start.mjs')).toBe('false');
  }, 180_000);

  it('a build that fails stops the start with exit 1 and says so, and nothing listens', async () => {
    // Without the patches folder the build cannot list its inputs.
    const project = projectCopy(['patches']);
    const finished = await runPlatform(project.directory, [], { PORT: '0', S3_PORT: '0', DATA_DIR: temporaryDirectory() }, project.start);
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain("no such file or directory, scandir '");
    expect(finished.stderr).toContain('Building the platform bundle failed (exit 1).');
    expect(finished.stderr).not.toMatch(/^\s+at /m);
    expect(finished.stdout).not.toContain('Ready on');
  }, 180_000);
});
