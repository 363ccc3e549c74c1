import { Kysely } from 'kysely';
import type pg from 'pg';
import { openKyselyStore, type StoreOptions } from '../open/kysely-store';
import type { Database } from '../schema/tables';
import type { Store } from '../store';
import { parseDatabaseUrl } from '../../database-url';
import { rideOutOutages } from '../../postgres-outages';
import { PortableTypesPlugin } from './portable-types';
import { postgresTraits } from './traits';
import { WriteLockingPostgresDialect } from './write-locking-dialect';

export interface PostgresPoolOptions {
  /**
   * Most connections this process opens (default 10). Every instance has a pool of its own:
   * keep instances × max below the server's max_connections.
   */
  maxConnections?: number;
  /** An unused connection is closed after this long (default 30 000 ms). */
  idleTimeoutMs?: number;
  /**
   * How long to wait for a connection, whether opening a new one, waiting for a busy pool to free
   * one (then StoreBusyError) or for a server restarting to take connections again (then
   * StoreUnavailableError). Default 5 000 ms.
   */
  connectionTimeoutMs?: number;
  /** How long a write waits for another writer before StoreBusyError (default 5 000 ms). */
  lockTimeoutMs?: number;
}

export type PostgresStoreOptions = StoreOptions &
  PostgresPoolOptions & {
    /** postgres://user:password@host:port/database, with any libpq parameters (sslmode, ...). */
    connectionString: string;
  };

const POOL_DEFAULTS: Required<PostgresPoolOptions> = {
  maxConnections: 10,
  idleTimeoutMs: 30_000,
  connectionTimeoutMs: 5_000,
  lockTimeoutMs: 5_000,
};

/**
 * A transaction left open by a stalled process holds its locks (a zone's writes wait for it); the
 * server ends it after this long, so the other instances are not blocked for good.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
const INT8_OID = 20;

/**
 * Opens the store on a PostgreSQL database (migrating and seeding it as needed). Any number
 * of processes may open the same database: they share nothing else.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const url = parseDatabaseUrl(options.connectionString);
  const limits = poolLimits(options);
  // Loaded here, not at start-up: a server on SQLite never needs the driver.
  const { default: driver } = await import('pg');
  const pool = new driver.Pool({
    connectionString: url.connectionString,
    max: limits.maxConnections,
    idleTimeoutMillis: limits.idleTimeoutMs,
    connectionTimeoutMillis: limits.connectionTimeoutMs,
    lock_timeout: limits.lockTimeoutMs,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    application_name: 'management-api-store',
    // Notices a database host that vanished without closing the connection.
    keepAlive: true,
    types: { getTypeParser: (oid: number, format?: 'text' | 'binary') => typeParser(driver, oid, format) },
  });
  // A connection that breaks (server restart, network) emits an error: without a listener
  // that would end the process. The pool drops broken connections; the query that was
  // using one fails on its own.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));

  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end();
    throw new Error(`cannot connect to PostgreSQL at ${url.location}: ${(error as Error).message}`, { cause: error });
  }
  // Once started (a database out of reach at start-up stops the start at once, above).
  rideOutOutages(pool, url.location, limits.connectionTimeoutMs);
  const db = new Kysely<Database>({
    dialect: new WriteLockingPostgresDialect({ pool }),
    plugins: [new PortableTypesPlugin()],
  });
  return openKyselyStore(db, postgresTraits(url.location, limits, driver.DatabaseError), options);
}

function poolLimits(options: PostgresPoolOptions): Required<PostgresPoolOptions> {
  const limits = { ...POOL_DEFAULTS };
  for (const name of Object.keys(POOL_DEFAULTS) as (keyof PostgresPoolOptions)[]) {
    const value = options[name];
    if (value === undefined) {
      continue;
    }
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`${name} must be a positive whole number, got ${value}`);
    }
    limits[name] = value;
  }
  return limits;
}

/**
 * bigint columns (every integer column, see portable-types.ts) and counts arrive as numbers,
 * as they do from SQLite. The store's integers (ids, versions, counts) stay far below 2^53.
 */
function typeParser(driver: typeof pg, oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === INT8_OID && format !== 'binary') {
    return (value) => {
      const number = Number(value);
      if (!Number.isSafeInteger(number)) {
        throw new RangeError(`the database returned ${value}, beyond the integers the store can represent`);
      }
      return number;
    };
  }
  return driver.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
}
