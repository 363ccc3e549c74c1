// The bundle `npm start` runs carries the build's check of the project's seed file: a new data
// directory is seeded without checking the file again, as long as it is that file's text; any
// other seed file is checked as the sources check it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkedSeed } from '../../src/store/seed/checked-seed';
import { loadSeedFile } from '../../src/store/seed/load';
import { DEFAULT_SEED_FILE } from '../../src/store/open/kysely-store';
import { runPlatform, startPlatform, temporaryDirectory, withFiles } from './platform-process';

const TOKEN = 'prebuilt-seed-token-0123456789abcdefghij';
const seedText = readFileSync(DEFAULT_SEED_FILE, 'utf8');
const seedZones = (JSON.parse(seedText) as { zones: { id: string; name: string }[] }).zones;

async function zoneNames(api: string): Promise<string[]> {
  const names: string[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${api}/zones?per_page=50&page=${page}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = (await response.json()) as { result: { name: string }[]; result_info: { total_pages: number } };
    if (!response.ok) throw new Error(`zones page ${page}: ${response.status} ${JSON.stringify(body)}`);
    names.push(...body.result.map((zone) => zone.name));
    if (page >= body.result_info.total_pages) return names.sort();
  }
}

describe('the seed file of a new data directory', () => {
  it('from the sources, is checked whatever its text (the same seed as the checker gives)', async () => {
    expect(await checkedSeed(DEFAULT_SEED_FILE)).toEqual(await loadSeedFile(DEFAULT_SEED_FILE));
  });

  it('through npm start, the project seed (at any path) seeds every fixture zone', async () => {
    const cwd = withFiles({ 'copy-of-seed.json': seedText });
    const platform = await startPlatform(cwd, [], { PORT: '0', S3_PORT: '0', API_TOKEN: TOKEN, SEED_FILE: path.join(cwd, 'copy-of-seed.json') });
    try {
      const names = await zoneNames(platform.urls.api!);
      expect(names).toEqual(seedZones.map((zone) => zone.name).sort());
    } finally {
      expect(await platform.stop()).toBe(0);
    }
  });

  it('through npm start, a seed file that differs from the build\'s is checked, and a damaged one refused', async () => {
    const damaged = JSON.parse(seedText) as { zones: Record<string, unknown>[] };
    delete damaged.zones[1]!.name;
    const cwd = withFiles({ 'damaged-seed.json': JSON.stringify(damaged, null, 2) });
    const finished = await runPlatform(cwd, [], { PORT: '0', S3_PORT: '0', API_TOKEN: TOKEN, SEED_FILE: path.join(cwd, 'damaged-seed.json') });
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain('damaged-seed.json');
    expect(finished.stderr).toMatch(/zones\[1\]/);
    // Nothing half-seeded is left to be served on the next start.
    expect(finished.stdout).not.toMatch(/^Ready on/m);
  });

  it('through npm start, a changed but sound seed file is taken as it is now', async () => {
    const changed = JSON.parse(seedText) as { zones: { name: string }[] };
    const renamed = `renamed-${changed.zones[0]!.name}`;
    changed.zones[0]!.name = renamed;
    const cwd = withFiles({ 'changed-seed.json': JSON.stringify(changed) });
    const platform = await startPlatform(temporaryDirectory(), [], { PORT: '0', S3_PORT: '0', API_TOKEN: TOKEN, SEED_FILE: path.join(cwd, 'changed-seed.json') });
    try {
      expect(await zoneNames(platform.urls.api!)).toContain(renamed);
    } finally {
      expect(await platform.stop()).toBe(0);
    }
  });
});
