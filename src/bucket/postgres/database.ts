import type { Writable } from 'node:stream';
import type pg from 'pg';
import { CopyOutQuery } from './copy-out';
import { LeanSocket } from './lean-socket';

/** A statement the engine runs: prepared once per connection under its name. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

export const statement = (name: string, text: string): Statement => ({ name: `bucket_storage_${name}`, text });

/** What a statement runs on: the pool (a statement of its own) or a connection in a transaction. */
export type Target = pg.Pool | pg.PoolClient;

const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
/** A statement of its own that PostgreSQL ended to break a deadlock runs again, this often. */
const STATEMENT_ATTEMPTS = 5;

const INT8 = 20;
const INT8_ARRAY = 1016;

/**
 * The connection pool every bucket of a process shares, with the means to run statements and
 * transactions on it. Integers arrive as numbers (sizes, times and ids stay far below 2^53)
 * whatever type parsers a pool handed in was configured with.
 */
export class BucketDatabase {
  readonly #types: pg.CustomTypesConfig;
  readonly #stagingSlots: Slots;
  readonly #driver: Driver;

  constructor(
    readonly pool: pg.Pool,
    /** The database URL without its password, for messages. */
    readonly location: string,
    driver: Driver,
    /** Connections that may hold a body being received at once (see `stagingConnection`). */
    stagingConnections: number,
    /** A reader renews the bodies it reads this often, in case they were dropped meanwhile. */
    readonly renewAfterMs: number,
  ) {
    this.#driver = driver;
    const driverTypes = driver.types;
    this.#types = {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === INT8) return Number;
        if (oid === INT8_ARRAY) return parseIntegerArray;
        return driverTypes.getTypeParser(oid, format ?? 'text');
      }) as pg.CustomTypesConfig['getTypeParser'],
    };
    this.#stagingSlots = new Slots(stagingConnections);
  }

  /** Runs a statement; its rows as arrays. On the pool, a deadlock victim runs again. */
  async rows<Row extends unknown[]>(target: Target, { name, text }: Statement, values: unknown[]): Promise<Row[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await target.query<Row>({ name, text, values, rowMode: 'array', types: this.#types });
        return result.rows;
      } catch (error) {
        const retry = target === this.pool && attempt < STATEMENT_ATTEMPTS && isRetryable(error);
        if (!retry) throw error;
      }
    }
  }

  /** `text` quoted as an SQL string literal, for the statements that take no parameters. */
  literal(text: string): string {
    return this.#driver.escapeLiteral(text);
  }

  /**
   * Runs a COPY ... TO STDOUT on a connection of its own, handing its data to `feed` as it
   * arrives, in buffers valid during the call only. On a connection this module opened, the data
   * is fed from the socket's own buffer (see LeanSocket); on another, from the driver's reads.
   */
  async copyOut(text: string, feed: (bytes: Buffer) => void): Promise<void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      if (client.connection.stream instanceof LeanSocket) {
        await client.query(new CopyOutQuery(text, feed)).finished;
      } else {
        for await (const chunk of client.query(this.#driver.copyTo(text))) feed(chunk as Buffer);
      }
    } catch (error) {
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** A COPY ... FROM STDIN to run on a connection: the stream its data is written to. */
  copyIn(text: string): pg.Submittable & Writable {
    return this.#driver.copyFrom(text);
  }

  /** Runs `work` in one READ COMMITTED transaction on a connection of its own. */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#onConnection(await this.pool.connect(), 'begin', work);
  }

  /** Runs `work` in one snapshot: every statement sees the same commits. */
  async snapshot<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#onConnection(await this.pool.connect(), 'begin isolation level repeatable read read only', work);
  }

  /**
   * A connection for a body being received, in a transaction the caller ends. At most
   * `stagingConnections` are out at once, so that bodies arriving slowly never take every
   * connection from the short statements of other requests; more wait their turn.
   */
  async stagingConnection(): Promise<{ client: pg.PoolClient; release: (error?: Error) => void }> {
    await this.#stagingSlots.take();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      this.#stagingSlots.give();
      throw error;
    }
    let released = false;
    return {
      client,
      release: (error) => {
        if (released) return;
        released = true;
        client.release(error);
        this.#stagingSlots.give();
      },
    };
  }

  async #onConnection<T>(client: pg.PoolClient, begin: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let broken: Error | undefined;
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch((failure: Error) => (broken = failure));
      throw error;
    } finally {
      // A connection that could not roll back is closed rather than reused.
      client.release(broken);
    }
  }
}

/** What the engine needs of the driver modules, which load only when PostgreSQL is used. */
export interface Driver {
  types: typeof pg.types;
  escapeLiteral: (text: string) => string;
  copyTo: (text: string) => pg.Submittable & AsyncIterable<unknown>;
  copyFrom: (text: string) => pg.Submittable & Writable;
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE;
}

/** `{1,2,3}` (PostgreSQL's text form of a bigint array) as numbers. */
function parseIntegerArray(text: string): number[] {
  return text === '{}' ? [] : text.slice(1, -1).split(',').map(Number);
}

/** A counting semaphore: at most `limit` holders, the rest wait in order. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.#free = limit;
  }

  async take(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
