import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, SQLITE_FILE_NAME, StoreBusyError, StoreFullError, StoreUnavailableError, type SqliteStoreOptions, type Store } from '../../src/store';
import { sqliteTraits } from '../../src/store/sqlite/traits';
import { fixtureId, ZONE_IDS } from './contract/fixtures';

describe('SQLite engine', () => {
  let dir: string;
  const stores: Store[] = [];
  const open = async (options: SqliteStoreOptions) => {
    const store = await openSqliteStore(options);
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-engine-'));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the data directory and runs in WAL mode', async () => {
    const dataDir = join(dir, 'nested', 'data');
    await open({ dataDir, seed: false });
    const database = new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME), { readonly: true });
    try {
      expect(database.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      database.close();
    }
  });

  it('declares foreign keys: deleting a zone row removes what hangs off it', async () => {
    const filename = join(dir, 'cascade.sqlite');
    const store = await open({ filename });
    await store.close();
    const database = new BetterSqlite3(filename);
    try {
      database.pragma('foreign_keys = ON');
      database.prepare('delete from zones where id = ?').run(ZONE_IDS.pro);
      expect(database.prepare('select count(*) as n from rulesets where zone_id = ?').get(ZONE_IDS.pro)).toEqual({ n: 0 });
      expect(database.prepare('select count(*) as n from logpush_jobs where zone_id = ?').get(ZONE_IDS.pro)).toEqual({ n: 0 });
    } finally {
      database.close();
    }
  });

  it('opens a private in-memory database', async () => {
    const first = await open({ filename: ':memory:' });
    const second = await open({ filename: ':memory:', seed: false });
    await first.logpushJobs.create(ZONE_IDS.pro, { dataset: 'http_requests', destination_conf: 's3://a?region=b' });
    expect((await first.logpushJobs.list(ZONE_IDS.pro))).toHaveLength(2);
    expect(await second.zones.get(ZONE_IDS.pro)).toBeNull();
  });

  it('refuses unclear locations and files that are not databases', async () => {
    await expect(openSqliteStore({ filename: '' })).rejects.toThrow('give dataDir or filename');
    await expect(openSqliteStore({ dataDir: dir, filename: 'x' } as unknown as SqliteStoreOptions)).rejects.toThrow(
      'give either dataDir or filename, not both',
    );
    await expect(openSqliteStore({ filename: ':memory:', busyTimeoutMs: -1 })).rejects.toThrow(RangeError);
    const notADatabase = join(dir, 'notes.txt');
    writeFileSync(notADatabase, 'these are notes, not a database '.repeat(100));
    await expect(openSqliteStore({ filename: notADatabase })).rejects.toThrow(`cannot open SQLite database ${notADatabase}`);
  });

  it('reports a database locked by another process for longer than the busy timeout', async () => {
    const filename = join(dir, 'busy.sqlite');
    const store = await open({ filename, busyTimeoutMs: 50 });
    const other = new BetterSqlite3(filename);
    try {
      other.exec('begin immediate');
      const error = await store.waf
        .transition(ZONE_IDS.business, { from: ['start'], to: 'finished', old_managed_rules_enabled: false, new_managed_rules_enabled: true })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreBusyError);
      expect((error as Error).message).toBe(`database ${filename} stayed locked by another process for more than 50 ms`);
      other.exec('rollback');
      expect((await store.waf.getState(ZONE_IDS.business))?.migration_state).toBe('start');
      expect(await store.rulesets.get({ zone_id: ZONE_IDS.pro }, fixtureId('pro-entry-point'))).not.toBeNull();
    } finally {
      other.close();
    }
  });

  it('calls a failing file unavailable and a full disk full, and leaves other errors as they are', () => {
    const traits = sqliteTraits(':memory:', 50);
    const failing = traits.translate(new BetterSqlite3.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE'));
    expect(failing).toBeInstanceOf(StoreUnavailableError);
    expect((failing as Error).message).toBe('database :memory: is unavailable: disk I/O error (SQLITE_IOERR_WRITE)');
    expect(traits.translate(new BetterSqlite3.SqliteError('attempt to write a readonly database', 'SQLITE_READONLY'))).toBeInstanceOf(StoreUnavailableError);
    const full = traits.translate(new BetterSqlite3.SqliteError('database or disk is full', 'SQLITE_FULL'));
    expect(full).toBeInstanceOf(StoreFullError);
    expect((full as Error).message).toBe('database :memory: has no room for the write: no space left on the device (SQLITE_FULL)');
    const corrupt = new BetterSqlite3.SqliteError('database disk image is malformed', 'SQLITE_CORRUPT');
    expect(traits.translate(corrupt)).toBe(corrupt);
  });
});
