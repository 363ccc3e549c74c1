// A new data directory's database as the build made it (dist/store-image.sqlite, see
// src/store/sqlite/new-database.ts): a store opened over it holds exactly what a store migrated
// and seeded on the spot holds, and it is used only where it stands for that.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SEED_FILE } from '../../src/store/open/kysely-store';
import { openSqliteStore, SQLITE_FILE_NAME } from '../../src/store/sqlite/open';
import type { DumpEntry } from '../../src/store';
import { MIGRATION_TABLE_NAME } from '../../src/store/schema/migrations';

const BUILT_IMAGE = path.resolve('dist', 'store-image.sqlite');
/** What the tests give as the bundle's image: a copy of the build's, or nothing. */
const image = vi.hoisted(() => ({ current: undefined as { file: URL; seedSha256: string } | undefined }));
vi.mock('../../src/store/sqlite/prebuilt-image', () => ({
  get prebuiltImage() {
    return image.current;
  },
}));

const seedText = readFileSync(DEFAULT_SEED_FILE);
const seedSha256 = createHash('sha256').update(seedText).digest('hex');
const directories: string[] = [];
const directory = () => {
  const made = mkdtempSync(path.join(tmpdir(), 'store-image-'));
  directories.push(made);
  return made;
};
afterEach(() => {
  image.current = undefined;
  for (const made of directories.splice(0)) rmSync(made, { recursive: true, force: true });
});

/** The build's image, copied where a test may lose it. */
function builtImage(): URL {
  if (!existsSync(BUILT_IMAGE)) throw new Error(`${BUILT_IMAGE} is missing: \`node scripts/bundles.mjs\` (run by npm ci) writes it`);
  const copy = path.join(directory(), 'image.sqlite');
  copyFileSync(BUILT_IMAGE, copy);
  return new URL(`file://${copy}`);
}

/** When each migration of a database ran: the image's ran at build time, a new database's now. */
function migrationStamps(file: string): string[] {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return (db.prepare(`select timestamp from ${MIGRATION_TABLE_NAME} order by name`).all() as { timestamp: string }[]).map((row) => row.timestamp);
  } finally {
    db.close();
  }
}

async function dumpOf(dataDir: string, seed?: string | false): Promise<DumpEntry[]> {
  const store = await openSqliteStore({ dataDir, ...(seed === undefined ? {} : { seed }) });
  try {
    const entries: DumpEntry[] = [];
    await store.dump.export((entry) => void entries.push(entry));
    return entries;
  } finally {
    await store.close();
  }
}

describe('the build\'s store image', () => {
  it('holds what migrating and seeding a new database gives, row for row', async () => {
    const fresh = await dumpOf(directory());
    image.current = { file: builtImage(), seedSha256 };
    const fromImage = directory();
    const placed = await dumpOf(fromImage);
    expect(placed).toEqual(fresh);
    // Sanity: the seed is there (zones and the managed rulesets), not an empty store twice.
    expect(placed.filter((entry) => entry.kind === 'row' && entry.table === 'zones').length).toBeGreaterThan(3);
    // And it came from the image: its migrations ran when the image was made.
    expect(migrationStamps(path.join(fromImage, SQLITE_FILE_NAME))).toEqual(migrationStamps(image.current.file.pathname));
  });

  it('is copied into a new data directory, not linked to (writes stay in the directory)', async () => {
    image.current = { file: builtImage(), seedSha256 };
    const before = readFileSync(image.current.file);
    const dataDir = directory();
    const store = await openSqliteStore({ dataDir });
    await store.close();
    const placed = new BetterSqlite3(path.join(dataDir, SQLITE_FILE_NAME));
    placed.exec('create table scratch (x integer); insert into scratch values (1)');
    placed.close();
    expect(readFileSync(image.current.file).equals(before)).toBe(true);
    expect(existsSync(path.join(dataDir, SQLITE_FILE_NAME))).toBe(true);
  });

  it('is not used for another seed file: that file is what the store holds', async () => {
    image.current = { file: builtImage(), seedSha256 };
    const seed = JSON.parse(seedText.toString('utf8')) as { zones: { name: string }[] };
    seed.zones[0]!.name = `other-${seed.zones[0]!.name}`;
    const seedFile = path.join(directory(), 'other-seed.json');
    writeFileSync(seedFile, JSON.stringify(seed));
    const zones = (await dumpOf(directory(), seedFile)).filter((entry) => entry.kind === 'row' && entry.table === 'zones');
    expect(zones.map((entry) => (entry.kind === 'row' ? entry.row.name : null))).toContain(seed.zones[0]!.name);
  });

  it('is not used for a store opened without a seed: it stays empty', async () => {
    image.current = { file: builtImage(), seedSha256 };
    const rows = (await dumpOf(directory(), false)).filter((entry) => entry.kind === 'row');
    expect(rows).toEqual([]);
  });

  it('never replaces a database that is there, nor lands beside a log left without its database', async () => {
    image.current = { file: builtImage(), seedSha256 };
    const imageStamps = migrationStamps(image.current.file.pathname);
    const existing = directory();
    const store = await openSqliteStore({ dataDir: existing, seed: false });
    await store.close();
    const file = path.join(existing, SQLITE_FILE_NAME);
    const { ino } = statSync(file);
    const stamps = migrationStamps(file);
    // Opened with the seed, the empty database is seeded in place (its own migrations stand).
    expect((await dumpOf(existing)).filter((entry) => entry.kind === 'row').length).toBeGreaterThan(0);
    expect(statSync(file).ino).toBe(ino);
    expect(migrationStamps(file)).toEqual(stamps);
    expect(stamps).not.toEqual(imageStamps);

    const orphanLog = directory();
    writeFileSync(path.join(orphanLog, `${SQLITE_FILE_NAME}-wal`), '');
    await dumpOf(orphanLog);
    expect(migrationStamps(path.join(orphanLog, SQLITE_FILE_NAME))).not.toEqual(imageStamps);
  });

  it('missing beside the bundle, leaves the store to be created as usual', async () => {
    image.current = { file: new URL(`file://${path.join(directory(), 'gone.sqlite')}`), seedSha256 };
    expect(await dumpOf(directory())).toEqual(await dumpOf(directory()));
    const leftovers = directories.flatMap((made) => (existsSync(made) ? readdirSync(made) : [])).filter((name) => name.endsWith('.new'));
    expect(leftovers).toEqual([]);
  });
});
