// PostgreSQL outages as the two parts that keep data in PostgreSQL see them (the management API's
// store and the bucket runtime, each with a pool of its own): which driver errors mean the server
// is out of reach (restarting, stopped, the network gone) rather than a refusal of the statement,
// and a pool that waits out a short outage instead of failing every request that meets it.
import type { Pool } from 'pg';
import { healthOf } from './storage-health';

/**
 * SQLSTATEs of a server going away or not there yet: shut down by an administrator, crashed,
 * starting up or recovering (57P03), connection exceptions (class 08), too many connections.
 */
const UNREACHABLE_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300']);
/** System errors of a connection that could not be made or broke. */
const UNREACHABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  // A socket directory (`?host=/run/postgresql`) whose server is stopped has no socket file.
  'ENOENT',
]);
/** What the driver says of a connection that broke or timed out (it gives these no code). */
const UNREACHABLE_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'Client has encountered a connection error and is not queryable',
];
/** SQLSTATE 53100: the server's disk is full. */
const DISK_FULL = '53100';

/** Whether `error` says the PostgreSQL server is out of reach: the work was not done, and may be tried again later. */
export function isPostgresUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_STATES.has(code) || UNREACHABLE_ERRNOS.has(code))) return true;
  // Both addresses of `localhost` refused: one error naming each.
  if (error instanceof AggregateError) return error.errors.length > 0 && error.errors.every(isPostgresUnreachable);
  return UNREACHABLE_MESSAGES.includes(error.message);
}

/** Whether `error` is the server's disk full (SQLSTATE 53100). */
export function isPostgresFull(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === DISK_FULL;
}

/** A short reason for logs and answers: the driver's message, or each address's refusal. */
export function unreachableReason(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return error.errors.map((inner: Error) => inner.message).join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Makes `pool` wait out an outage of its server: a connection that cannot be made because the
 * server is out of reach is tried again once the server answers (see storage-health.ts: one
 * probe per place, every 250 ms), for up to `waitMs` in all, before the error comes out. A
 * restart of a few seconds then delays the requests that meet it instead of failing them. The
 * outage is told once for `location` (the URL without its password), and its end once.
 */
export function rideOutOutages(pool: Pool, location: string, waitMs: number): void {
  const health = healthOf(location);
  const connectNow = pool.connect.bind(pool) as () => Promise<import('pg').PoolClient>;
  const connect = async () => {
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        const client = await connectNow();
        health.found();
        return client;
      } catch (error) {
        if (!isPostgresUnreachable(error)) throw error;
        health.lost(unreachableReason(error));
        const left = deadline - Date.now();
        if (left <= 0 || !(await health.whenFound(left))) throw error;
      }
    }
  };
  // Both forms the pool takes: `pool.query` connects with a callback.
  pool.connect = ((callback?: (error: Error | undefined, client?: unknown, done?: () => void) => void) => {
    if (!callback) return connect();
    connect().then(
      (client) => callback(undefined, client, () => client.release()),
      (error: Error) => callback(error),
    );
    return undefined;
  }) as Pool['connect'];
  // The probe opens a connection of its own, outside the pool (whose idle connections may be the
  // broken ones), and closes it.
  const Client = (pool as unknown as { Client: new (options: unknown) => import('pg').Client }).Client;
  const removeProbe = health.addProbe(async () => {
    const client = new Client(pool.options);
    client.on('error', () => undefined);
    try {
      await client.connect();
    } finally {
      await client.end().catch(() => undefined);
    }
  });
  const end = pool.end.bind(pool);
  pool.end = ((callback?: (error?: Error) => void) => {
    removeProbe();
    return end(callback as never);
  }) as Pool['end'];
}
