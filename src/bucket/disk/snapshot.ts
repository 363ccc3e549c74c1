/**
 * A snapshot of an on-disk bucket, for saving it while writers go on. The metadata comes from
 * one SQLite read transaction (the write-ahead log keeps that instant readable however long the
 * reading takes). Body files are another matter: a writer replacing an object deletes the old
 * body's file once it commits. So, for an instant only, the snapshot takes the bucket's write
 * lock (no commit can happen), starts its read transaction, and gives every body file that
 * transaction names a second name (a hard link) in a staging directory of this process; then
 * it lets writers go. Deleting a file's first name leaves the second, so every body the
 * snapshot names stays readable until `close`; a crash leaves the links to the next opener's
 * clean-up of dead processes' staging directories (see blobs.ts).
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';
import { toPart } from './schema';
import type { EngineSnapshot, ObjectRecord, SnapshotObject, SnapshotUpload, UploadRecord } from '../engine';

/** Objects read per query; a page holds at most this many small bodies (32 KiB each) in memory. */
const PAGE_ROWS = 64;
/** How long taking the write lock waits for a writer of another process to commit. */
const LOCK_TIMEOUT_MS = 10_000;

interface ObjectPageRow {
  key: Buffer;
  version: string;
  size: number;
  etag: string;
  uploaded: number;
  http_metadata: string;
  custom_metadata: string;
  checksums: string;
  encryption: string | null;
  segments: string | null;
  bytes: Buffer | null;
}

interface UploadPageRow {
  upload_id: string;
  key: Buffer;
  created: number;
  http_metadata: string;
  custom_metadata: string;
  checksum: string | null;
  encryption: string | null;
}

interface PartPageRow {
  part_number: number;
  blob: string;
  size: number;
  etag: string;
  md5: string;
  checksum: string | null;
  iv: string | null;
}

/** Opens a snapshot of the bucket whose metadata is `databaseFile` and body files `blobsDir`. */
export function openDiskSnapshot(databaseFile: string, blobsDir: string, stagingRoot: string): EngineSnapshot {
  const linksDir = join(stagingRoot, `${process.pid}-snapshot-${randomBytes(6).toString('hex')}`);
  const reader = new Database(databaseFile, { timeout: LOCK_TIMEOUT_MS });
  const locker = new Database(databaseFile, { timeout: LOCK_TIMEOUT_MS });
  try {
    fs.mkdirSync(linksDir, { recursive: true });
    locker.exec('BEGIN IMMEDIATE');
    try {
      reader.exec('BEGIN');
      // A deferred transaction starts reading at its first statement: this is the instant.
      const objectFiles = reader.prepare<[], { segments: string }>('SELECT segments FROM objects WHERE segments IS NOT NULL');
      for (const { segments } of objectFiles.iterate()) {
        for (const [blob] of JSON.parse(segments) as [string, number][]) linkOnce(join(blobsDir, blob), join(linksDir, blob));
      }
      const partFiles = reader.prepare<[], { blob: string }>(
        `SELECT blob FROM parts JOIN uploads USING (upload_id) WHERE uploads.state = 'active'`,
      );
      for (const { blob } of partFiles.iterate()) linkOnce(join(blobsDir, blob), join(linksDir, blob));
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
  } catch (error) {
    if (locker.open) locker.close();
    if (reader.inTransaction) reader.exec('ROLLBACK');
    reader.close();
    fs.rmSync(linksDir, { recursive: true, force: true });
    throw error;
  }

  const objectPage = reader.prepare<[Buffer, number], ObjectPageRow>(
    `SELECT key, version, size, etag, uploaded, http_metadata, custom_metadata, checksums, encryption, segments, bytes
     FROM objects LEFT JOIN small_bodies ON small_bodies.id = objects.body_id WHERE key > ? ORDER BY key LIMIT ?`,
  );
  const uploadPage = reader.prepare<[string, number], UploadPageRow>(
    `SELECT upload_id, key, created, http_metadata, custom_metadata, checksum, encryption FROM uploads
     WHERE state = 'active' AND upload_id > ? ORDER BY upload_id LIMIT ?`,
  );
  const partsOf = reader.prepare<[string], PartPageRow>(
    'SELECT part_number, blob, size, etag, md5, checksum, iv FROM parts WHERE upload_id = ? ORDER BY part_number',
  );
  const fileBytes = (blobs: { blob: string; size: number }[]) => () => readFiles(blobs.map(({ blob, size }) => ({ path: join(linksDir, blob), size })));
  let closed = false;
  const checkOpen = () => {
    if (closed) throw new Error('The bucket snapshot is closed.');
  };

  return {
    async *objects(): AsyncIterable<SnapshotObject> {
      // The empty key sorts before every key; `key > x''` starts at the first.
      let after: Buffer = Buffer.alloc(0);
      for (;;) {
        checkOpen();
        const rows = objectPage.all(after, PAGE_ROWS);
        for (const row of rows) {
          const segments = row.segments === null ? [] : (JSON.parse(row.segments) as [string, number][]).map(([blob, size]) => ({ blob, size }));
          const record: ObjectRecord = {
            key: row.key.toString('utf8'),
            version: row.version,
            size: row.size,
            etag: row.etag,
            uploaded: row.uploaded,
            httpMetadata: JSON.parse(row.http_metadata),
            customMetadata: JSON.parse(row.custom_metadata),
            checksums: JSON.parse(row.checksums),
          };
          if (row.encryption !== null) record.encryption = JSON.parse(row.encryption);
          const small = row.bytes;
          yield {
            record,
            partSizes: segments.length > 0 ? segments.map((segment) => segment.size) : [row.size],
            bytes: small ? () => once(small) : fileBytes(segments),
          };
        }
        if (rows.length < PAGE_ROWS) return;
        after = rows.at(-1)!.key;
      }
    },

    async *uploads(): AsyncIterable<SnapshotUpload> {
      let after = '';
      for (;;) {
        checkOpen();
        const rows = uploadPage.all(after, PAGE_ROWS);
        for (const row of rows) {
          const upload: UploadRecord = {
            uploadId: row.upload_id,
            key: row.key.toString('utf8'),
            created: row.created,
            httpMetadata: JSON.parse(row.http_metadata),
            customMetadata: JSON.parse(row.custom_metadata),
            ...(row.checksum ? { checksum: JSON.parse(row.checksum) } : {}),
            ...(row.encryption ? { encryption: JSON.parse(row.encryption) } : {}),
          };
          const parts = partsOf.all(row.upload_id).map((part) => ({
            part: toPart(part),
            bytes: fileBytes([{ blob: part.blob, size: part.size }]),
          }));
          yield { upload, parts };
        }
        if (rows.length < PAGE_ROWS) return;
        after = rows.at(-1)!.upload_id;
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      if (reader.inTransaction) reader.exec('ROLLBACK');
      reader.close();
      fs.rmSync(linksDir, { recursive: true, force: true });
    },
  };
}

function linkOnce(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`The bucket's body file ${from} is missing: the bucket is damaged and cannot be saved.`);
    }
    throw error;
  }
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** The files' bytes in order, each checked against the size its record gives. */
async function* readFiles(files: { path: string; size: number }[]): AsyncIterable<Uint8Array> {
  for (const { path, size } of files) {
    let read = 0;
    for await (const chunk of fs.createReadStream(path, { highWaterMark: 1024 * 1024 })) {
      read += (chunk as Buffer).byteLength;
      yield chunk as Buffer;
    }
    if (read !== size) throw new Error(`The bucket's body file ${path} holds ${read} bytes where its record says ${size}.`);
  }
}
