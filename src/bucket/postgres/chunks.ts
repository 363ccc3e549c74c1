import { once } from 'node:events';
import type pg from 'pg';
import type { ChunkSource } from '../engine';
import type { ByteRange } from '../shared';
import { chunkRowStart, COPY_HEADER, COPY_TRAILER, RowRangeReceiver } from './copy-format';
import type { BucketDatabase } from './database';
import { beginStaging, readChunks, renewBodies, writeChunks } from './statements';

/**
 * Bytes of a body per row of `chunks`: a row stays within one page, stored in line (see the
 * migration), where a larger value would be cut by PostgreSQL into 2 KB pieces of a TOAST table,
 * four times the rows, index entries and log records to write.
 */
const ROW_BYTES = 8000;
/** Rows sent to the database per write (about 1 MiB). */
const ROWS_PER_WRITE = 128;
/** Batches of rows a writer fills and sends in turn: one filled while the others are written. */
const BATCHES = 3;
/**
 * Bytes a reader fetches per statement, copied from the connection's read buffer straight into
 * pieces; the consumer takes one stretch while the next arrives.
 */
const READ_STRETCH_BYTES = 2 * 1024 * 1024;
/** Bytes a reader hands on at once. */
const READ_PIECE_BYTES = 1024 * 1024;
/**
 * A body being received keeps a transaction open; PostgreSQL ends it (and the upload fails)
 * when no byte arrives for this long, so a stalled client or a hung process cannot hold a
 * connection, and the row locks of its last step, for good.
 */
const STAGING_IDLE_TIMEOUT_MS = 60_000;

/**
 * A body received into chunks inside a transaction of its own, on a connection of its own. The
 * write that names the body (a put, a part) runs in the same transaction and commits both, so a
 * body is never visible without its record, and a body never committed (failed, refused, or
 * its process killed) is gone with its transaction: PostgreSQL rolls it back.
 */
export class StagedChunks {
  #size = 0;
  /** Committed or rolled back: the connection went back to the pool. */
  #ended = false;

  private constructor(
    private readonly db: BucketDatabase,
    private readonly bucket: string,
    readonly body: number,
    private readonly client: pg.PoolClient,
    private readonly release: (error?: Error) => void,
  ) {}

  static async open(db: BucketDatabase, bucket: string): Promise<StagedChunks> {
    const { client, release } = await db.stagingConnection();
    try {
      const results = (await client.query(beginStaging(STAGING_IDLE_TIMEOUT_MS))) as unknown as pg.QueryResult<{ nextval: string }>[];
      return new StagedChunks(db, bucket, Number(results[2]!.rows[0]!.nextval), client, release);
    } catch (error) {
      release(error as Error);
      throw error;
    }
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Writes `head` then the rest of `source` as rows of ROW_BYTES with one binary COPY, about a
   * MiB per write, the next MiB received while the last is written: memory holds two or three
   * MiB of the body whatever its size.
   */
  async write(source: AsyncIterator<Uint8Array>, head: Uint8Array[]): Promise<void> {
    const copy = this.client.query(this.db.copyIn(writeChunks));
    const finished = new Promise<void>((resolve, reject) => copy.once('finish', resolve).once('error', reject));
    finished.catch(() => {});
    const rowStart = chunkRowStart(this.bucket, this.body);
    const capacity = COPY_HEADER.byteLength + ROWS_PER_WRITE * (rowStart.size + ROW_BYTES) + COPY_TRAILER.byteLength;
    // The batches go round: a batch is filled again once the COPY stream has called back for it,
    // which it does when the socket has taken every byte of it (not when it was queued). A 1 GiB
    // body then allocates three batches, not a thousand for the collector to find.
    const spare: Buffer[] = [];
    let batches = 1;
    let returned: (() => void) | null = null;
    const nextBatch = async (): Promise<Buffer> => {
      while (spare.length === 0 && batches >= BATCHES) {
        await Promise.race([new Promise<void>((resolve) => (returned = resolve)), finished]);
      }
      if (spare.length > 0) return spare.pop()!;
      batches++;
      return Buffer.allocUnsafeSlow(capacity);
    };
    const giveBack = (buffer: Buffer) => {
      spare.push(buffer);
      returned?.();
      returned = null;
    };
    let batch: Buffer = Buffer.allocUnsafeSlow(capacity);
    let used = COPY_HEADER.copy(batch, 0);
    let rows = 0;
    // The row being filled: where its start is in the batch (-1: none), its offset in the body, its bytes.
    let rowAt = -1;
    let rowOffset = 0;
    let rowBytes = 0;
    const closeRow = () => {
      rowStart.write(batch, rowAt, rowOffset, rowBytes);
      rowAt = -1;
      rows++;
    };
    const send = async () => {
      const sent = batch;
      const accepted = copy.write(sent.subarray(0, used), (error) => {
        if (!error) giveBack(sent);
      });
      used = 0;
      rows = 0;
      if (!accepted) await Promise.race([once(copy, 'drain'), finished]);
      batch = await nextBatch();
    };
    const take = async (chunk: Uint8Array) => {
      for (let offset = 0; offset < chunk.byteLength; ) {
        if (rowAt < 0) {
          rowAt = used;
          used += rowStart.size;
          rowOffset = this.#size;
          rowBytes = 0;
        }
        const count = Math.min(ROW_BYTES - rowBytes, chunk.byteLength - offset);
        batch.set(chunk.subarray(offset, offset + count), used);
        used += count;
        rowBytes += count;
        offset += count;
        this.#size += count;
        if (rowBytes === ROW_BYTES) {
          closeRow();
          if (rows === ROWS_PER_WRITE) await send();
        }
      }
    };
    try {
      for (const chunk of head) await take(chunk);
      for (let next = await source.next(); !next.done; next = await source.next()) await take(next.value);
      if (rowAt >= 0) closeRow();
      used += COPY_TRAILER.copy(batch, used);
      copy.end(batch.subarray(0, used));
      await finished;
    } catch (error) {
      // Ends the COPY with a failure: the server rolls it back, and the caller the transaction.
      copy.destroy(error as Error);
      await finished.catch(() => {});
      await source.return?.();
      throw error;
    }
  }

  /**
   * Runs the write that names the body in the body's transaction: commits when it answers true,
   * rolls back (forgetting the body) when it answers false or fails.
   */
  async commitIf(work: (client: pg.PoolClient) => Promise<boolean>): Promise<boolean> {
    if (this.#ended) throw new Error('The body was already committed or discarded.');
    let keep: boolean;
    try {
      keep = await work(this.client);
      await this.client.query(keep ? 'commit' : 'rollback');
    } catch (error) {
      await this.rollback();
      throw error;
    }
    this.#ended = true;
    this.release();
    return keep;
  }

  /** Forgets the body (once; later calls do nothing). */
  async rollback(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    let broken: Error | undefined;
    await this.client.query('rollback').catch((error: Error) => (broken = error));
    this.release(broken);
  }
}

/** A stretch of an object's body kept in one body of chunks. */
export interface Segment {
  body: number;
  size: number;
}

interface Piece {
  body: number;
  /** Offsets within the body: the next byte to fetch, and the end (exclusive). */
  next: number;
  end: number;
}

/**
 * Reads the bytes of `range` across an object's segments, a few MiB per statement, fetching the
 * next stretch while the consumer takes the last one. Each statement is a read of its own on a
 * connection held only for it: a slow consumer holds no connection. The bodies stay readable
 * meanwhile even when the object is replaced or deleted (see `dropped_bodies`), as long as the
 * reader keeps reading: it renews them as it goes.
 */
export class ChunkReader implements ChunkSource {
  readonly #pieces: Piece[] = [];
  readonly #ready: Buffer[] = [];
  /** Pieces a byte reader has copied out in full, to fill again (see readInto). */
  readonly #spare: Buffer[] = [];
  #fetching: Promise<void> | null = null;
  #renewed = Date.now();
  #closed = false;

  constructor(
    private readonly db: BucketDatabase,
    private readonly bucket: string,
    segments: Segment[],
    range: ByteRange,
  ) {
    let start = 0;
    for (const { body, size } of segments) {
      const from = Math.max(range.offset, start);
      const to = Math.min(range.offset + range.length, start + size);
      if (to > from) this.#pieces.push({ body, next: from - start, end: to - start });
      start += size;
    }
  }

  async next(): Promise<Uint8Array | null> {
    const chunk = await this.#take();
    if (chunk === null) return null;
    // Read ahead while the last chunk fetched is consumed.
    if (this.#ready.length <= 1) this.#fetch();
    return chunk;
  }

  async readInto(view: Uint8Array): Promise<number> {
    const chunk = await this.#take();
    if (chunk === null) return 0;
    const count = Math.min(chunk.byteLength, view.byteLength);
    view.set(chunk.subarray(0, count));
    if (count < chunk.byteLength) this.#ready.unshift(chunk.subarray(count));
    // A piece this reader copied out to its last byte was never handed on: it can be filled again.
    else if (chunk.byteOffset + count === READ_PIECE_BYTES && chunk.buffer.byteLength === READ_PIECE_BYTES) {
      this.#spare.push(Buffer.from(chunk.buffer));
    }
    if (this.#ready.length <= 1) this.#fetch();
    return count;
  }

  close(): void {
    this.#closed = true;
    this.#pieces.length = 0;
    this.#ready.length = 0;
    this.#spare.length = 0;
  }

  /** A buffer of `size` bytes for a piece: a spare one when it fits. */
  #allocate(size: number): Buffer {
    if (size === READ_PIECE_BYTES && this.#spare.length > 0) return this.#spare.pop()!;
    return Buffer.allocUnsafeSlow(size);
  }

  async #take(): Promise<Buffer | null> {
    while (this.#ready.length === 0) {
      if (this.#pieces.length === 0 || this.#closed) return null;
      this.#fetch();
      await this.#fetching;
    }
    return this.#ready.shift()!;
  }

  /** Starts fetching the next stretch, unless a fetch is under way or nothing is left. */
  #fetch(): void {
    if (this.#fetching || this.#pieces.length === 0 || this.#closed) return;
    const fetching = this.#fetchStretch().finally(() => {
      if (this.#fetching === fetching) this.#fetching = null;
    });
    this.#fetching = fetching;
    // A failure surfaces at the consumer's next take, through the same promise.
    fetching.catch(() => {});
  }

  async #fetchStretch(): Promise<void> {
    if (Date.now() - this.#renewed > this.db.renewAfterMs) {
      this.#renewed = Date.now();
      await this.db.rows(this.db.pool, renewBodies, [this.bucket, this.#pieces.map((piece) => piece.body)]);
    }
    const piece = this.#pieces[0]!;
    const end = Math.min(piece.end, piece.next + READ_STRETCH_BYTES);
    const receiver = new RowRangeReceiver(piece.next, end, READ_PIECE_BYTES, (size) => this.#allocate(size));
    await this.db.copyOut(readChunks(this.db.literal(this.bucket), piece.body, piece.next, end), (bytes) => receiver.feed(bytes));
    if (this.#closed) return;
    const pieces = receiver.finish();
    if (pieces.reduce((sum, bytes) => sum + bytes.byteLength, 0) !== end - piece.next) {
      this.close();
      throw new Error(
        'The object being read was replaced or deleted, and its bytes were reclaimed before this read went on. Read it again.',
      );
    }
    this.#ready.push(...pieces);
    piece.next = end;
    if (piece.next === piece.end) this.#pieces.shift();
  }
}
