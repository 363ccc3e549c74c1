import Database from 'better-sqlite3';
import {
  encryptionColumn,
  recordFromColumns,
  answerPage,
  type Assemble,
  type EngineSnapshot,
  type ObjectBytes,
  type ObjectRecord,
  type PageBuilder,
  type PartRecord,
  type StagedBody,
  type StorageEngine,
  type WriteBody,
  describeStaged,
  type UploadRecord,
  type UploadState,
  type UploadStatus,
} from '../engine';
import fs from 'node:fs';
import { join } from 'node:path';
import { BlobFiles, type Segment } from './blobs';
import {
  prepareStatements,
  migrateSchema,
  type BodyRow,
  type ObjectColumns,
  type ObjectRow,
  toPart,
  type Statements,
  type UploadRow,
} from './schema';
import { ENGINE_METHODS, classifyFailures } from '../engine';
import { StorageDeletedError, StorageFullError, type ByteRange } from '../shared';
import { openDiskSnapshot } from './snapshot';
import { fileSystemHealth, healthOf, type PlaceHealth } from '../../storage-health';
import { diskTrouble } from './trouble';
import { WriteQueue, type WriteStep } from './write-queue';

/**
 * Bodies up to this size live in the database row's companion table: committed with their
 * metadata in one transaction, they need no file, no rename and no extra flush.
 */
const SMALL_BODY_BYTES = 32 * 1024;
/** A reader finding a body file gone retries this often: a writer replaced the object meanwhile. */
const READ_ATTEMPTS = 5;

class DiskBody implements StagedBody {
  constructor(
    readonly size: number,
    readonly small: Buffer | null,
    readonly blob: string | null,
  ) {}
}

const utf8 = (key: string) => Buffer.from(key, 'utf8');

const toRecord = recordFromColumns;

/** Where the body of a `current` or `read` row is. */
const bodyOf = (row: [...ObjectColumns, number | null, string | null, ...unknown[]]): BodyRow => ({
  body_id: row[9],
  segments: row[10],
});

function toRow(record: ObjectRecord, body: BodyRow): ObjectRow & BodyRow {
  return {
    key: utf8(record.key),
    version: record.version,
    size: record.size,
    etag: record.etag,
    uploaded: record.uploaded,
    http_metadata: JSON.stringify(record.httpMetadata),
    custom_metadata: JSON.stringify(record.customMetadata),
    checksums: JSON.stringify(record.checksums),
    encryption: encryptionColumn(record),
    ...body,
  };
}

const segmentsOf = (body: Pick<BodyRow, 'segments'>): Segment[] =>
  body.segments === null ? [] : (JSON.parse(body.segments) as [string, number][]).map(([blob, size]) => ({ blob, size }));

const segmentsText = (segments: Segment[]) => JSON.stringify(segments.map(({ blob, size }) => [blob, size]));

/** The smallest byte string above every string starting with `prefix` (UTF-8 has no 0xFF byte). */
function bytesAfterPrefix(prefix: Buffer): Buffer {
  const after = Buffer.from(prefix);
  after[after.length - 1]! += 1;
  return after;
}

/**
 * An engine on a directory: metadata in SQLite (write-ahead log, full flush on commit), bodies as
 * files (see BlobFiles). A body is made durable before the metadata that names it is committed,
 * so a crash never exposes half an object and an acknowledged write survives. Several engines,
 * in one process or several, may share a directory: SQLite serialises their writes and every
 * read sees the latest commit.
 */
export class DiskEngine implements StorageEngine {
  #db: Database.Database;
  #sql: Statements;
  #writes: WriteQueue;
  readonly #blobs: BlobFiles;
  readonly #directory: string;
  #closed = false;
  /** Deleted through this engine: once closed, it answers from an empty database (see `close`). */
  #deleted = false;
  /** Takes back the probe that tells when the files read again after failing (see trouble.ts). */
  readonly #stopProbing: () => void;
  /** The file system the bucket is on: while it is full, writes are refused before they begin. */
  readonly #space: PlaceHealth;
  /** The write batch whose transaction found the bucket not marked deleted (see `#refuseDeleted`). */
  #liveInBatch: object | undefined;

  /**
   * Opens the bucket in `directory`, made when missing unless `existing` (a catalogue's bucket:
   * one deleted since it was found must not be made again, empty and nameless).
   */
  constructor(directory: string, { existing = false }: { existing?: boolean } = {}) {
    this.#directory = directory;
    if (!existing) fs.mkdirSync(directory, { recursive: true });
    const db = new Database(join(directory, 'objects.sqlite'));
    try {
      db.pragma('busy_timeout = 10000');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.transaction(() => migrateSchema(db, directory)).immediate();
      this.#blobs = BlobFiles.open(directory);
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
    this.#sql = prepareStatements(db);
    this.#writes = new WriteQueue(db);
    this.#blobs.collect(this.#referencedBlobs());
    this.#space = fileSystemHealth(directory);
    this.#stopProbing = healthOf(directory).addProbe(async () => {
      this.#sql.anyObject.get();
    });
  }

  /** The bucket's directory. */
  get directory(): string {
    return this.#directory;
  }

  /** Receives a write's bytes: in the database's row when small, else in a file. */
  async #stage(body: WriteBody): Promise<DiskBody> {
    this.#checkOpen();
    this.#refuseWhenFull();
    if (body instanceof Uint8Array) {
      // Copied: the caller may reuse its buffer once the put has resolved.
      if (body.byteLength <= SMALL_BODY_BYTES) return new DiskBody(body.byteLength, body.byteLength > 0 ? Buffer.from(body) : null, null);
      return this.#stageChunks(nothingMore(), [body]);
    }
    const source = body[Symbol.asyncIterator]();
    const head: Uint8Array[] = [];
    let size = 0;
    while (size <= SMALL_BODY_BYTES) {
      const { done, value } = await source.next();
      if (done) return new DiskBody(size, size > 0 ? Buffer.concat(head, size) : null, null);
      head.push(value);
      size += value.byteLength;
    }
    return this.#stageChunks(source, head);
  }

  async #stageChunks(source: AsyncIterator<Uint8Array>, head: Uint8Array[]): Promise<DiskBody> {
    try {
      const { blob, size } = await this.#blobs.write(source, head);
      return new DiskBody(size, null, blob);
    } catch (error) {
      throw this.#deletedOr(error);
    }
  }

  async #discard({ blob }: DiskBody): Promise<void> {
    if (blob) this.#blobs.remove([blob]);
  }

  async head(key: string): Promise<ObjectRecord | null> {
    this.#checkOpen();
    const row = this.#sql.head.get(utf8(key));
    return row ? toRecord(row) : null;
  }

  async checkLive(): Promise<void> {
    this.#checkOpen();
    this.#refuseDeleted();
  }

  async read(key: string, plan: (record: ObjectRecord, partSizes: () => number[]) => ByteRange | null) {
    this.#checkOpen();
    for (let attempt = 1; ; attempt++) {
      const row = this.#sql.read.get(utf8(key));
      if (!row) return null;
      const record = toRecord(row);
      const body = bodyOf(row);
      const range = plan(record, () => (body.segments === null ? [record.size] : segmentsOf(body).map((s) => s.size)));
      if (!range) return { record, bytes: null };
      try {
        return { record, bytes: this.#bytes(body, row[11], range) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === READ_ATTEMPTS) throw error;
      }
    }
  }

  #bytes(body: BodyRow, small: Buffer | null, range: ByteRange): ObjectBytes {
    if (small) return small.subarray(range.offset, range.offset + range.length);
    if (body.segments === null) return new Uint8Array(0);
    return this.#blobs.reader(segmentsOf(body), range);
  }

  async put(body: WriteBody, recordOf: (size: number) => ObjectRecord, allow: (current: ObjectRecord | null) => boolean) {
    const staged = await this.#stage(body);
    const record = await describeStaged(staged, recordOf, (b) => this.#discard(b));
    const stored = await this.#commitOrDiscard(staged, (step) => {
      this.#refuseDeleted(step);
      const key = utf8(record.key);
      const current = this.#sql.current.get(key);
      if (!allow(current ? toRecord(current) : null)) return false;
      const bodyId = staged.small ? Number(this.#sql.insertSmallBody.run(staged.small).lastInsertRowid) : null;
      const segments = staged.blob ? segmentsText([{ blob: staged.blob, size: staged.size }]) : null;
      this.#sql.upsert.run(toRow(record, { body_id: bodyId, segments }));
      if (current) this.#dropBody(bodyOf(current), step);
      return true;
    });
    return stored ? record : null;
  }

  async delete(keys: string[]): Promise<void> {
    this.#checkOpen();
    await this.#writes.run((step) => {
      for (const key of keys) {
        const bytes = utf8(key);
        const current = this.#sql.current.get(bytes);
        if (!current) continue;
        this.#sql.deleteObject.run(bytes);
        this.#dropBody(bodyOf(current), step);
      }
    });
  }

  async list<T>(page: () => PageBuilder<T>): Promise<T> {
    this.#checkOpen();
    const sql = this.#sql;
    // One read transaction: every request of the page sees the same state.
    return this.#db.transaction(() =>
      answerPage(page(), ({ from, prefix, limit }) => {
        const lower = utf8(from);
        const rows = prefix === '' ? sql.scanFrom.all(lower, limit) : sql.scanBetween.all(lower, bytesAfterPrefix(utf8(prefix)), limit);
        return rows.map(toRecord);
      }),
    )();
  }

  async createUpload(upload: UploadRecord): Promise<void> {
    this.#checkOpen();
    this.#refuseWhenFull();
    await this.#writes.run(() => {
      this.#refuseDeleted();
      this.#sql.insertUpload.run({
        upload_id: upload.uploadId,
        key: utf8(upload.key),
        created: upload.created,
        http_metadata: JSON.stringify(upload.httpMetadata),
        custom_metadata: JSON.stringify(upload.customMetadata),
        checksum: upload.checksum ? JSON.stringify(upload.checksum) : null,
        encryption: upload.encryption ? JSON.stringify(upload.encryption) : null,
        state: 'active',
      });
    });
  }

  async uploadStatus(uploadId: string, key: string): Promise<UploadStatus | null> {
    this.#checkOpen();
    const row = this.#sql.upload.get(uploadId, utf8(key));
    if (!row) return null;
    return {
      state: row.state,
      ...(row.checksum ? { checksum: JSON.parse(row.checksum) } : {}),
      ...(row.encryption ? { encryption: JSON.parse(row.encryption) } : {}),
    };
  }

  async putPart(uploadId: string, key: string, body: WriteBody, partOf: (size: number) => PartRecord) {
    const staged = await this.#asFile(await this.#stage(body));
    const part = await describeStaged(staged, partOf, (b) => this.#discard(b));
    const stored = await this.#commitOrDiscard(staged, (step) => {
      this.#refuseDeleted(step);
      if (this.#sql.upload.get(uploadId, utf8(key))?.state !== 'active') return false;
      const previous = this.#sql.part.get(uploadId, part.partNumber);
      this.#sql.upsertPart.run(
        uploadId,
        part.partNumber,
        staged.blob!,
        part.size,
        part.etag,
        part.md5,
        part.checksum ? JSON.stringify(part.checksum) : null,
        part.iv ?? null,
      );
      if (previous) step.afterCommit(() => this.#blobs.remove([previous.blob]));
      return true;
    });
    return stored ? part : null;
  }

  async completeUpload(uploadId: string, key: string, assemble: Assemble): Promise<ObjectRecord | null> {
    this.#checkOpen();
    this.#refuseWhenFull();
    return this.#writes.run((step) => {
      this.#refuseDeleted(step);
      const keyBytes = utf8(key);
      const upload = this.#sql.upload.get(uploadId, keyBytes);
      const rows = upload ? this.#sql.parts.all(uploadId) : [];
      const parts = new Map(rows.map((row) => [row.part_number, row]));
      const current = this.#sql.current.get(keyBytes);
      const outcome = assemble(
        upload ? { ...toUpload(upload), state: upload.state } : null,
        new Map(rows.map((row) => [row.part_number, toPart(row)])),
        current ? toRecord(current) : null,
      );
      if (outcome === null) return null;
      if ('kept' in outcome) return outcome.kept;
      const { record, partNumbers } = outcome;
      const segments = partNumbers.map((n) => ({ blob: parts.get(n)!.blob, size: parts.get(n)!.size }));
      this.#sql.upsert.run(toRow(record, { body_id: null, segments: segmentsText(segments) }));
      if (current) this.#dropBody(bodyOf(current), step);
      const used = new Set(segments.map((segment) => segment.blob));
      const unused = rows.filter((row) => !used.has(row.blob)).map((row) => row.blob);
      step.afterCommit(() => this.#blobs.remove(unused));
      this.#sql.deleteParts.run(uploadId);
      this.#sql.setUploadState.run('completed', uploadId);
      return record;
    });
  }

  async abortUpload(uploadId: string, key: string): Promise<UploadState | 'unknown'> {
    this.#checkOpen();
    return this.#writes.run((step) => {
      const upload = this.#sql.upload.get(uploadId, utf8(key));
      if (!upload) return 'unknown';
      if (upload.state === 'active') this.#abort(uploadId, step);
      return upload.state;
    });
  }

  async expireUploads(cutoff: number): Promise<void> {
    this.#checkOpen();
    // Usually nothing is due: a read answers that without taking the write lock.
    if (this.#sql.expiredUploads.all(cutoff).length === 0) return;
    await this.#writes.run((step) => {
      for (const { upload_id } of this.#sql.expiredUploads.all(cutoff)) this.#abort(upload_id, step);
    });
  }

  async activeUploads(prefix: string): Promise<UploadRecord[]> {
    this.#checkOpen();
    const bytes = utf8(prefix);
    return this.#sql.activeUploads.all(bytes, bytes).map(toUpload);
  }

  async uploadParts(uploadId: string, key: string): Promise<{ upload: UploadRecord; parts: PartRecord[] } | null> {
    this.#checkOpen();
    // One read transaction: the parts belong to the upload state read.
    return this.#db.transaction(() => {
      const upload = this.#sql.upload.get(uploadId, utf8(key));
      if (upload?.state !== 'active') return null;
      return { upload: toUpload(upload), parts: this.#sql.partsInOrder.all(uploadId).map(toPart) };
    })();
  }

  /**
   * Deletes the bucket when it holds no object and no active upload (false otherwise): the write
   * transaction that finds it empty marks it deleted, so that every later write refuses it (see
   * `#refuseDeleted`); once that is committed, `remove` takes the files away. Committed first,
   * because a process holding the database open keeps writing into it wherever its directory
   * went: had this process died after moving the files and before committing, such a writer would
   * find no mark. Dying after the commit leaves a bucket that refuses writes, which deleting it
   * again finishes. Should `remove` throw, the mark is taken back: the bucket stays as it was.
   */
  async removeIfEmpty(remove: () => void): Promise<boolean> {
    this.#checkOpen();
    const marked = await this.#writes.run(() => {
      if (this.#sql.anyObject.get() || this.#sql.anyActiveUpload.get()) return false;
      this.#liveInBatch = undefined;
      this.#sql.markDeleted.run(Date.now());
      return true;
    });
    if (!marked) return false;
    try {
      remove();
    } catch (error) {
      await this.#writes.run(() => this.#sql.unmarkDeleted.run());
      throw error;
    }
    this.#deleted = true;
    return true;
  }

  /** See snapshot.ts: one read transaction, with every body it names kept readable. */
  async snapshot(): Promise<EngineSnapshot> {
    this.#checkOpen();
    const directory = this.#directory;
    return openDiskSnapshot(join(directory, 'objects.sqlite'), join(directory, 'blobs'), join(directory, 'staging'));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopProbing();
    await this.#writes.drained();
    this.#db.close();
    this.#blobs.close();
    if (this.#deleted) this.#answerAsDeleted();
  }

  /**
   * A bucket deleted through this engine may still be held (a worker's binding): it goes on
   * answering as its deleted database would, empty and refusing writes with `StorageDeletedError`,
   * from an empty database in memory, since its files are gone.
   */
  #answerAsDeleted(): void {
    const db = new Database(':memory:');
    migrateSchema(db, ':memory:');
    this.#db = db;
    this.#sql = prepareStatements(db);
    this.#sql.markDeleted.run(Date.now());
    this.#liveInBatch = undefined;
    this.#writes = new WriteQueue(db);
  }

  /** Runs a write step that takes a staged body; the body is discarded unless committed. */
  async #commitOrDiscard(staged: DiskBody, work: (step: WriteStep) => boolean): Promise<boolean> {
    let committed = false;
    try {
      this.#checkOpen();
      committed = await this.#writes.run(work);
      return committed;
    } finally {
      if (!committed) await this.#discard(staged);
    }
  }

  /** Parts are always files: completion names them as the object's segments. */
  async #asFile(body: DiskBody): Promise<DiskBody> {
    if (body.blob) return body;
    try {
      const { blob, size } = await this.#blobs.write(nothingMore(), body.small ? [body.small] : []);
      return new DiskBody(size, null, blob);
    } catch (error) {
      throw this.#deletedOr(error);
    }
  }

  #dropBody(body: BodyRow, step: WriteStep): void {
    if (body.body_id !== null) this.#sql.deleteSmallBody.run(body.body_id);
    const blobs = segmentsOf(body).map((segment) => segment.blob);
    if (blobs.length > 0) step.afterCommit(() => this.#blobs.remove(blobs));
  }

  #abort(uploadId: string, step: WriteStep): void {
    const blobs = this.#sql.parts.all(uploadId).map((part) => part.blob);
    this.#sql.deleteParts.run(uploadId);
    this.#sql.setUploadState.run('aborted', uploadId);
    step.afterCommit(() => this.#blobs.remove(blobs));
  }

  /** Blob files named by any record, read in one transaction: completing an upload moves names. */
  #referencedBlobs(): Set<string> {
    return this.#db.transaction(() => {
      const referenced = new Set<string>();
      for (const row of this.#sql.referencedSegments.iterate()) {
        for (const segment of segmentsOf(row)) referenced.add(segment.blob);
      }
      for (const { blob } of this.#sql.referencedParts.iterate()) referenced.add(blob);
      return referenced;
    })();
  }

  /**
   * Refuses, inside a write step, to create rows in a deleted bucket. The check cannot be earlier:
   * a caller finds the bucket (the catalogue's `stat` of `bucket.json`, a worker's binding opened
   * at start-up) before it writes, and another process may delete the bucket in between. Inside
   * the write transaction it sees every deletion committed before (SQLite's write lock orders
   * them), and a deletion after it finds the rows written and refuses to delete.
   */
  /**
   * Refuses a write to a bucket marked deleted. A write step looks once per batch: the batch's
   * transaction holds the write lock, so only its own steps could mark it (which forget the look).
   */
  #refuseDeleted(step?: WriteStep): void {
    if (step !== undefined && step.batch === this.#liveInBatch) return;
    if (this.#sql.deleted.get() !== undefined) throw new StorageDeletedError(this.#directory);
    if (step !== undefined) this.#liveInBatch = step.batch;
  }

  /** A body file that could not be written because the bucket's directory went with its deletion. */
  #deletedOr(error: unknown): unknown {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
    if (this.#sql.deleted.get() !== undefined) return new StorageDeletedError(this.#directory);
    return error;
  }

  /**
   * On a full file system a write would fail, or take the room its deletes need (see
   * storage-health.ts): refused before a byte is received. Deletes and aborts go on.
   */
  #refuseWhenFull(): void {
    if (this.#space.isFull) throw new StorageFullError(this.#directory, this.#space.fullReason!);
  }

  #checkOpen(): void {
    if (this.#closed && !this.#deleted) throw new Error('The bucket storage is closed.');
  }
}

async function* nothingMore(): AsyncGenerator<Uint8Array> {}

function toUpload(row: UploadRow): UploadRecord {
  return {
    uploadId: row.upload_id,
    key: row.key.toString('utf8'),
    created: row.created,
    httpMetadata: JSON.parse(row.http_metadata),
    customMetadata: JSON.parse(row.custom_metadata),
    ...(row.checksum ? { checksum: JSON.parse(row.checksum) } : {}),
    ...(row.encryption ? { encryption: JSON.parse(row.encryption) } : {}),
  };
}

// A full file system or failing files, met by any call, come out as the runtime's storage errors.
classifyFailures(DiskEngine, ENGINE_METHODS, (engine, error) => diskTrouble(error, engine.directory));
