import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely } from 'kysely';
import { fileSystemHealth, healthOf, RESERVE_FILE } from '../../storage-health';
import { DEFAULT_SEED_FILE, openKyselyStore, type StoreOptions } from '../open/kysely-store';
import type { Database } from '../schema/tables';
import type { Store } from '../store';
import { placePrebuiltImage } from './new-database';
import { applyPragmas } from './pragmas';
import { withStatementCache } from './statement-cache';
import { sqliteTraits } from './traits';
import { WriteLockingSqliteDialect } from './write-locking-dialect';
import { loadSecretBox, type SecretBox } from '../workers';

/** File name of the database inside a data directory. */
export const SQLITE_FILE_NAME = 'store.sqlite';
const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export type SqliteLocation =
  /** A directory (created if missing) that holds `store.sqlite` and its WAL files. */
  | { dataDir: string; filename?: never }
  /** A database file, or `:memory:` for a private in-memory database. */
  | { filename: string; dataDir?: never };

export type SqliteStoreOptions = SqliteLocation &
  StoreOptions & {
    /**
     * `normal` (default): in WAL mode a commit survives the process being killed at any
     * point; only an OS crash or power cut may lose the last commits (never corrupting the
     * file). `full`: fsync on every commit, so those survive too, at a large cost in write
     * throughput. A stand-in service needs the former guarantee, not the latter.
     */
    synchronous?: 'normal' | 'full';
    /** How long a write waits for another process's write lock before StoreBusyError. */
    busyTimeoutMs?: number;
  };

/** Opens (creating, migrating and seeding as needed) the embedded SQLite store. */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const filename = resolveFilename(options);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new RangeError(`busyTimeoutMs must be a non-negative whole number, got ${busyTimeoutMs}`);
  }
  placePrebuiltImage(filename, options.seed ?? DEFAULT_SEED_FILE);
  const database = new BetterSqlite3(filename, { timeout: busyTimeoutMs });
  try {
    applyPragmas(database, filename, options.synchronous ?? 'normal', busyTimeoutMs);
  } catch (error) {
    database.close();
    throw new Error(`cannot open SQLite database ${filename}: ${(error as Error).message}`, { cause: error });
  }
  const path = filename === ':memory:' ? null : realpathSync(filename);
  const db = new Kysely<Database>({ dialect: new WriteLockingSqliteDialect({ database: withStatementCache(database) }, path) });
  // Without a key given, a data directory's store seals with the directory's key file.
  const dataDir = options.dataDir;
  let box: SecretBox | undefined;
  const defaultSecrets = dataDir === undefined ? undefined : () => (box ??= loadSecretBox({ dataDir }));
  const store = await openKyselyStore(db, sqliteTraits(filename, busyTimeoutMs), options, defaultSecrets);
  if (path === null) return store;
  // Room for deletes on a full disk (see storage-health.ts).
  fileSystemHealth(dirname(path)).keepReserve(join(dirname(path), RESERVE_FILE));
  // After a read or write failed on the file (an I/O error): found again once it reads.
  const stopProbing = healthOf(filename).addProbe(async () => {
    database.prepare('select count(*) from sqlite_master').get();
  });
  return {
    ...store,
    close: async () => {
      stopProbing();
      await store.close();
    },
  };
}

function resolveFilename(options: SqliteLocation): string {
  if (options.dataDir !== undefined && options.filename !== undefined) {
    throw new TypeError('give either dataDir or filename, not both');
  }
  if (options.dataDir !== undefined) {
    mkdirSync(options.dataDir, { recursive: true });
    return join(options.dataDir, SQLITE_FILE_NAME);
  }
  if (options.filename === undefined || options.filename === '') {
    throw new TypeError('give dataDir or filename (":memory:" for an in-memory database)');
  }
  return options.filename;
}
