import type { Duplex } from 'node:stream';
import type pg from 'pg';
import { parseDatabaseUrl } from '../../database-url';
import { rideOutOutages } from '../../postgres-outages';
import type { StorageEngine } from '../engine';
import { BucketDatabase } from './database';
import { PostgresEngine } from './engine';
import { connectionSocket } from './lean-socket';
import { rememberDatabase } from './opened';
import { migrateBucketSchema } from './schema';
import { sweepDropped } from './statements';

/** A node-postgres pool, described by what this module needs of it (its types need no @types/pg). */
export interface PostgresPool {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
}

export interface PostgresBucketsOptions {
  /**
   * postgres://user:password@host:port/database, with any libpq parameters (sslmode, ...).
   * Either this or `pool`.
   */
  connectionString?: string;
  /**
   * A node-postgres pool (`new pg.Pool(...)`) to use instead of opening one, e.g. the one a
   * process already has on the same database; `close` leaves it open. Half its `max` connections
   * at most receive bodies at once. Its connections read bodies through the driver, into a new
   * buffer per socket read: a pool opened here reads them into one buffer per connection, which
   * keeps a large read's memory a few MiB instead of about 90 (see LeanSocket).
   */
  pool?: PostgresPool;
  /** Most connections the pool opens (default 10); with `connectionString` only. */
  maxConnections?: number;
  /** An unused connection is closed after this long (default 30 000 ms); with `connectionString` only. */
  idleTimeoutMs?: number;
  /** Longest wait for a connection (default 5 000 ms); with `connectionString` only. */
  connectionTimeoutMs?: number;
  /**
   * How long the bytes of a replaced or deleted object stay for reads that began before
   * (default 15 minutes): a read that stops pulling for longer than this may fail. Each read
   * renews the bytes it is reading.
   */
  retainDroppedMs?: number;
  /** How often this process reclaims bytes no object or part names any more (default 60 000 ms). */
  sweepIntervalMs?: number;
}

const DEFAULTS = {
  maxConnections: 10,
  idleTimeoutMs: 30_000,
  connectionTimeoutMs: 5_000,
  retainDroppedMs: 15 * 60 * 1000,
  sweepIntervalMs: 60_000,
};

/** Dropped bodies one sweep statement reclaims: one statement stays short, a sweep loops. */
const SWEEP_BATCH = 64;

/**
 * The buckets of one PostgreSQL database, for one process: one pool shared by every bucket, the
 * bucket tables migrated at opening, and a sweep that reclaims the bytes of replaced and deleted
 * objects once no read can still want them.
 */
export interface PostgresBuckets {
  /** The database URL without its password. */
  readonly location: string;
  /**
   * The storage of the bucket `name`, for `createBucket({ engine })`: the same engine for the same
   * name, until `close`. Any name is a key here; which buckets exist is the catalogue's business.
   */
  storage(name: string): StorageEngine;
  /** Reclaims the bytes dropped longer ago than the retention now; answers how many bodies went. */
  sweep(): Promise<number>;
  /** Stops the sweep and closes the pool (when this opened it), after the connections in use come back. */
  close(): Promise<void>;
}

/** Opens the buckets of a database, bringing its bucket tables up to date. */
export async function openPostgresBuckets(options: PostgresBucketsOptions): Promise<PostgresBuckets> {
  const settings = checkOptions(options);
  // Loaded here, not at start-up: buckets on disk never need the driver.
  const [{ default: driver }, { to: copyTo, from: copyFrom }] = await Promise.all([import('pg'), import('pg-copy-streams')]);
  let pool: pg.Pool;
  let location: string;
  if (options.pool) {
    pool = options.pool as pg.Pool;
    location = describePool(pool);
  } else {
    const url = parseDatabaseUrl(options.connectionString!);
    location = url.location;
    pool = new driver.Pool({
      connectionString: url.connectionString,
      max: settings.maxConnections,
      idleTimeoutMillis: settings.idleTimeoutMs,
      connectionTimeoutMillis: settings.connectionTimeoutMs,
      application_name: 'bucket-storage',
      // Notices a database host that vanished without closing the connection.
      keepAlive: true,
      // Bodies are read from the socket's own buffer, not a new one per read.
      stream: connectionSocket as unknown as () => Duplex,
    });
    // A connection that breaks emits an error: without a listener that would end the process.
    // The pool drops broken connections; the statement that was using one fails on its own.
    pool.on('error', () => undefined);
  }
  const owned = !options.pool;
  try {
    await pool.query('select 1').catch((error: Error) => {
      throw new Error(`cannot connect to PostgreSQL at ${location}: ${error.message}`, { cause: error });
    });
    await migrateBucketSchema(pool, location);
  } catch (error) {
    if (owned) await pool.end();
    throw error;
  }
  // Once open (a database out of reach at opening fails the opening at once, above); a pool handed
  // in is its owner's to configure.
  if (owned) rideOutOutages(pool, location, settings.connectionTimeoutMs);
  const max = (pool as { options?: { max?: number } }).options?.max ?? settings.maxConnections;
  // Half the pool at most for bodies being received: the other half serves everything else.
  const db = new BucketDatabase(
    pool,
    location,
    { types: driver.types, escapeLiteral: driver.escapeLiteral, copyTo, copyFrom },
    Math.max(1, Math.floor(max / 2)),
    // Renewed well before the sweep could take them.
    Math.floor(settings.retainDroppedMs / 3),
  );
  const buckets = new OpenBuckets(db, owned, settings.retainDroppedMs, settings.sweepIntervalMs);
  rememberDatabase(buckets, db);
  return buckets;
}

class OpenBuckets implements PostgresBuckets {
  readonly #engines = new Map<string, PostgresEngine>();
  readonly #timer: NodeJS.Timeout;
  #sweeping: Promise<number> | null = null;
  #closed = false;

  constructor(
    private readonly db: BucketDatabase,
    private readonly owned: boolean,
    private readonly retainDroppedMs: number,
    sweepIntervalMs: number,
  ) {
    // A failed sweep is tried again at the next tick; nothing waits for it.
    this.#timer = setInterval(() => void this.sweep().catch(() => {}), sweepIntervalMs).unref();
  }

  get location(): string {
    return this.db.location;
  }

  storage(name: string): StorageEngine {
    if (this.#closed) throw new Error('The bucket storage is closed.');
    if (typeof name !== 'string' || name === '') throw new TypeError('A bucket name must be a non-empty string.');
    let engine = this.#engines.get(name);
    if (!engine) {
      engine = new PostgresEngine(this.db, name);
      this.#engines.set(name, engine);
    }
    return engine;
  }

  sweep(): Promise<number> {
    this.#sweeping ??= this.#sweep().finally(() => (this.#sweeping = null));
    return this.#sweeping;
  }

  async #sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const [[count] = [0]] = await this.db.rows<[number]>(this.db.pool, sweepDropped, [this.retainDroppedMs, SWEEP_BATCH]);
      total += count;
      if (count < SWEEP_BATCH) return total;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await Promise.all([...this.#engines.values()].map((engine) => engine.close()));
    this.#engines.clear();
    await this.#sweeping?.catch(() => {});
    if (this.owned) await this.db.pool.end();
  }
}

function checkOptions(options: PostgresBucketsOptions): typeof DEFAULTS {
  if (options === null || typeof options !== 'object') throw new TypeError('openPostgresBuckets takes an options object.');
  if ((options.connectionString === undefined) === (options.pool === undefined)) {
    throw new TypeError('openPostgresBuckets takes either connectionString or pool.');
  }
  const settings = { ...DEFAULTS };
  for (const name of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = options[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive whole number, not ${String(value)}.`);
    settings[name] = value;
  }
  return settings;
}

/** Where a pool handed in connects, for messages (never its password). */
function describePool(pool: pg.Pool): string {
  const options = (pool as { options?: { connectionString?: string; host?: string; port?: number; database?: string } }).options ?? {};
  if (options.connectionString) return parseDatabaseUrl(options.connectionString).location;
  const { host, port, database } = options;
  return host || database ? `postgres://${host ?? ''}${port ? `:${port}` : ''}/${database ?? ''}` : 'the given pool';
}
