/**
 * A snapshot of a bucket on PostgreSQL, for saving it while writers go on: one read-only
 * transaction at the repeatable-read level on a connection held until `close`. Every statement
 * of it sees the same commits, the chunks of bodies replaced or deleted since included (rows a
 * snapshot can still see are never vacuumed away), so nothing needs to be kept aside.
 */
import type pg from 'pg';
import type { EngineSnapshot, SnapshotObject, SnapshotUpload } from '../engine';
import { statement, type BucketDatabase } from './database';
import { toPart, toRecord, toUpload } from './rows';
import type { BodyColumns, ObjectColumns, PartColumns, UploadColumns } from './statements';

/** Objects read per statement; a page holds at most this many small bodies (32 KiB each). */
const PAGE_ROWS = 64;
/** Chunk rows (8,000 bytes each) read per statement: about 1 MiB. */
const CHUNK_ROWS = 128;

const objectsAfter = statement(
  'snapshot_objects',
  `select key, version, size, etag, uploaded, http_metadata, custom_metadata, checksums, encryption, small_body, bodies, body_sizes
   from bucket_storage.objects where bucket = $1 and key > $2 order by key limit ${PAGE_ROWS}`,
);
const chunksFrom = statement(
  'snapshot_chunks',
  `select start, bytes from bucket_storage.chunks where bucket = $1 and body = $2 and start >= $3 order by start limit ${CHUNK_ROWS}`,
);
const activeUploads = statement(
  'snapshot_uploads',
  `select upload_id, key, created, http_metadata, custom_metadata, state, checksum, encryption from bucket_storage.uploads
   where bucket = $1 and state = 'active' order by key, created, upload_id`,
);
const partsOf = statement(
  'snapshot_parts',
  'select part_number, body, size, etag, md5, checksum, iv from bucket_storage.parts where bucket = $1 and upload_id = $2 order by part_number',
);

/** Opens a snapshot of `bucket`; its connection is the pool's until `close`. */
export async function openPostgresSnapshot(db: BucketDatabase, bucket: string): Promise<EngineSnapshot> {
  const client = await db.pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  let closed = false;
  const checkOpen = () => {
    if (closed) throw new Error('This snapshot of the bucket is closed.');
  };

  async function* bodyBytes(body: number): AsyncIterable<Uint8Array> {
    for (let from = 0; ; ) {
      checkOpen();
      const rows = await db.rows<[number, Buffer]>(client, chunksFrom, [bucket, body, from]);
      for (const [, bytes] of rows) yield bytes;
      if (rows.length < CHUNK_ROWS) return;
      const [start, bytes] = rows[rows.length - 1]!;
      from = start + bytes.byteLength;
    }
  }

  async function* bodiesBytes(bodies: number[]): AsyncIterable<Uint8Array> {
    for (const body of bodies) yield* bodyBytes(body);
  }

  return {
    async *objects(): AsyncIterable<SnapshotObject> {
      for (let after: Buffer = Buffer.alloc(0); ; ) {
        checkOpen();
        const rows = await db.rows<[...ObjectColumns, ...BodyColumns]>(client, objectsAfter, [bucket, after]);
        for (const row of rows) {
          const record = toRecord(row);
          const [small, bodies, sizes] = row.slice(9) as BodyColumns;
          yield {
            record,
            partSizes: sizes && sizes.length > 0 ? sizes : [record.size],
            bytes: () => (bodies && bodies.length > 0 ? bodiesBytes(bodies) : smallBytes(small)),
          };
        }
        if (rows.length < PAGE_ROWS) return;
        after = rows[rows.length - 1]![0];
      }
    },
    async *uploads(): AsyncIterable<SnapshotUpload> {
      checkOpen();
      const uploads = await db.rows<UploadColumns>(client, activeUploads, [bucket]);
      for (const row of uploads) {
        const upload = toUpload(row);
        const parts = (await db.rows<PartColumns>(client, partsOf, [bucket, upload.uploadId])).map((part) => ({
          part: toPart(part),
          bytes: () => bodyBytes(part[1]),
        }));
        yield { upload, parts };
      }
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await endOn(client);
    },
  };
}

async function* smallBytes(small: Buffer | null): AsyncIterable<Uint8Array> {
  if (small && small.byteLength > 0) yield small;
}

async function endOn(client: pg.PoolClient): Promise<void> {
  try {
    await client.query('commit');
    client.release();
  } catch (error) {
    client.release(error as Error);
  }
}
