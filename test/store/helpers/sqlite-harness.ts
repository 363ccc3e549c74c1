import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openSqliteStore, SQLITE_FILE_NAME, type Store, type StoreOptions } from '../../../src/store';
import type { StoreConnection, StoreHarness } from './harness';

/** File-backed SQLite databases in a temporary directory, so restarts and child processes work. */
export function sqliteHarness(): StoreHarness {
  const root = mkdtempSync(join(tmpdir(), 'store-test-'));
  const opened: Store[] = [];
  let count = 0;
  let current: string | undefined;

  const track = async (store: Promise<Store>) => {
    const ready = await store;
    opened.push(ready);
    return ready;
  };
  const last = (): string => {
    if (current === undefined) {
      throw new Error('no database yet: call fresh() first');
    }
    return current;
  };

  return {
    fresh: (options?: StoreOptions) => {
      count += 1;
      current = join(root, `db-${count}`);
      return track(openSqliteStore({ dataDir: current, ...options }));
    },
    reopen: (options?: StoreOptions) => track(openSqliteStore({ dataDir: last(), ...options })),
    recordUnknownMigration: async (name: string) => {
      const database = new BetterSqlite3(join(last(), SQLITE_FILE_NAME));
      try {
        database.prepare('insert into store_migration (name, timestamp) values (?, ?)').run(name, new Date().toISOString());
      } finally {
        database.close();
      }
    },
    connection: (): StoreConnection => ({ engine: 'sqlite', filename: join(last(), SQLITE_FILE_NAME) }),
    cleanup: async () => {
      for (const store of opened) {
        await store.close();
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
