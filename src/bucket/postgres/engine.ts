import {
  describeStaged,
  type WriteBody,
  type Assemble,
  type EngineSnapshot,
  type KeyRange,
  type ObjectBytes,
  type ObjectRecord,
  type PageBuilder,
  type PartRecord,
  type StagedBody,
  type StorageEngine,
  type UploadRecord,
  type UploadState,
  type UploadStatus,
  encryptionColumn,
} from '../engine';
import { StorageDeletedError, type ByteRange } from '../shared';
import { ENGINE_METHODS, classifyFailures } from '../engine';
import { ChunkReader, StagedChunks } from './chunks';
import type { BucketDatabase, Target } from './database';
import { SameTick } from './same-tick';
import { toPart, toRecord, toUpload } from './rows';
import { openPostgresSnapshot } from './snapshot';
import * as sql from './statements';
import { postgresTrouble } from './trouble';
import type { BodyColumns, ObjectColumns, PartColumns, UploadColumns } from './statements';

/**
 * Bodies up to this size live in the object's row: written with their metadata in one statement,
 * they need no transaction of their own and no chunk.
 */
const SMALL_BODY_BYTES = 32 * 1024;
/** Most small puts, or gets, one statement answers (see SameTick). */
const BATCH_MAX = 64;

class PostgresBody implements StagedBody {
  constructor(
    readonly size: number,
    readonly small: Buffer | null,
    readonly chunks: StagedChunks | null,
  ) {}
}

/** Where a new object's bytes are: in its row, or in bodies of chunks. */
type NewBody = { small: Buffer | null } | { bodies: number[]; sizes: number[] };

/** An object as a write finds it: its metadata and bodies. */
type CurrentRow = [...ObjectColumns, bodies: number[] | null];
/**
 * Whether an object was stored where there was none, whether the bucket was deleted (then nothing
 * was), and if not stored, the one there (nulls: none seen).
 */
type InsertOutcome = [inserted: boolean, deleted: boolean, ...row: CurrentRow | null[]];
type ReadRow = [...ObjectColumns, ...BodyColumns];

const utf8 = (key: string) => Buffer.from(key, 'utf8');


/** The smallest byte string above every string starting with `prefix` (UTF-8 has no 0xFF byte). */
function bytesAfterPrefix(prefix: Buffer): Buffer {
  const after = Buffer.from(prefix);
  after[after.length - 1]! += 1;
  return after;
}

/**
 * An engine on PostgreSQL: one bucket's rows in tables every bucket shares (see
 * migrations/0001-initial.ts). Every write is one transaction, or one statement, which PostgreSQL
 * makes durable before it answers; any number of engines, in any number of processes and
 * machines, may work on one bucket and see each other's writes at once. Conditional writes are
 * compare-and-set on the object's version, so of concurrent writers on a key exactly one wins.
 */
export class PostgresEngine implements StorageEngine {
  #closed = false;
  /** New small objects stored in the same turn of the event loop: one statement, one commit. */
  readonly #newObjects: SameTick<unknown[], InsertOutcome>;
  /** Gets in the same turn of the event loop: one statement. */
  readonly #reads: SameTick<Buffer, ReadRow | undefined>;

  constructor(
    private readonly db: BucketDatabase,
    private readonly bucket: string,
  ) {
    this.#newObjects = new SameTick((inputs) => this.#insertMany(inputs), BATCH_MAX);
    this.#reads = new SameTick((keys) => this.#readMany(keys), BATCH_MAX);
  }

  /** The database URL without its password. */
  get location(): string {
    return this.db.location;
  }

  /** Receives a write's bytes: in memory for the object's row when small, else as chunks in the database. */
  async #stage(body: WriteBody): Promise<PostgresBody> {
    this.#checkOpen();
    // Copied: the caller may reuse its buffer once the put has resolved.
    if (body instanceof Uint8Array && body.byteLength <= SMALL_BODY_BYTES) {
      return new PostgresBody(body.byteLength, body.byteLength > 0 ? Buffer.from(body) : null, null);
    }
    const source = body instanceof Uint8Array ? nothingMore() : body[Symbol.asyncIterator]();
    const head: Uint8Array[] = body instanceof Uint8Array ? [body] : [];
    let size = head[0]?.byteLength ?? 0;
    while (size <= SMALL_BODY_BYTES) {
      const { done, value } = await source.next();
      // Copied: the caller may reuse its buffers once the put has resolved.
      if (done) return new PostgresBody(size, size > 0 ? Buffer.concat(head, size) : null, null);
      head.push(value);
      size += value.byteLength;
    }
    let staged: StagedChunks;
    try {
      staged = await StagedChunks.open(this.db, this.bucket);
    } catch (error) {
      await source.return?.();
      throw error;
    }
    try {
      await staged.write(source, head);
    } catch (error) {
      await staged.rollback();
      throw error;
    }
    return new PostgresBody(staged.size, null, staged);
  }

  async #discard(body: PostgresBody): Promise<void> {
    await body.chunks?.rollback();
  }

  async checkLive(): Promise<void> {
    this.#checkOpen();
    await this.#refuseDeleted(this.db.pool);
  }

  /** On `target`: a write inside a transaction asks on its own connection, never waiting for another. */
  async #refuseDeleted(target: Target): Promise<void> {
    const [row] = await this.db.rows<[deleted: boolean]>(target, sql.storageDeleted, [this.bucket]);
    if (row?.[0]) throw new StorageDeletedError(this.bucket);
  }

  async head(key: string): Promise<ObjectRecord | null> {
    this.#checkOpen();
    const [row] = await this.db.rows<ObjectColumns>(this.db.pool, sql.head, [this.bucket, utf8(key)]);
    return row ? toRecord(row) : null;
  }

  async read(key: string, plan: (record: ObjectRecord, partSizes: () => number[]) => ByteRange | null) {
    this.#checkOpen();
    const row = await this.#reads.submit(utf8(key));
    if (!row) return null;
    const record = toRecord(row);
    const [small, bodies, sizes] = row.slice(9) as BodyColumns;
    // A multipart object's bodies are its parts; any other object is one part.
    const range = plan(record, () => sizes ?? [record.size]);
    if (!range) return { record, bytes: null };
    let bytes: ObjectBytes;
    if (small) bytes = small.subarray(range.offset, range.offset + range.length);
    else if (!bodies || range.length === 0) bytes = new Uint8Array(0);
    else bytes = new ChunkReader(this.db, this.bucket, bodies.map((body, i) => ({ body, size: sizes![i]! })), range);
    return { record, bytes };
  }

  async put(
    body: WriteBody,
    recordOf: (size: number) => ObjectRecord,
    allow: (current: ObjectRecord | null) => boolean,
  ): Promise<ObjectRecord | null> {
    const staged = await this.#stage(body);
    const record = await describeStaged(staged, recordOf, (b) => this.#discard(b));
    if (this.#closed) {
      await this.#discard(staged);
      this.#checkOpen();
    }
    if (!staged.chunks) return (await this.#write(this.db.pool, record, { small: staged.small }, allow)) ? record : null;
    const { body: id, size } = staged.chunks;
    const stored = await staged.chunks.commitIf((client) => this.#write(client, record, { bodies: [id], sizes: [size] }, allow));
    return stored ? record : null;
  }

  async delete(keys: string[]): Promise<void> {
    this.#checkOpen();
    if (keys.length > 0) await this.db.rows(this.db.pool, sql.deleteObjects, [this.bucket, keys.map(utf8)]);
  }

  async list<T>(page: () => PageBuilder<T>): Promise<T> {
    this.#checkOpen();
    // Most pages need one scan, and one statement reads one snapshot. A page that asks again
    // starts over in a snapshot shared by all its scans.
    const first = page();
    let step = first.next();
    if (step.done) return step.value;
    step = first.next(await this.#scan(this.db.pool, step.value));
    if (step.done) return step.value;
    return this.db.snapshot(async (client) => {
      const builder = page();
      for (let next = builder.next(); ; next = builder.next(await this.#scan(client, next.value))) {
        if (next.done) return next.value;
      }
    });
  }

  async createUpload(upload: UploadRecord): Promise<void> {
    this.#checkOpen();
    const created = await this.db.rows(this.db.pool, sql.insertUpload, [
      this.bucket,
      upload.uploadId,
      utf8(upload.key),
      upload.created,
      JSON.stringify(upload.httpMetadata),
      JSON.stringify(upload.customMetadata),
      upload.checksum ? JSON.stringify(upload.checksum) : null,
      upload.encryption ? JSON.stringify(upload.encryption) : null,
    ]);
    if (created.length === 0) throw new StorageDeletedError(this.bucket);
  }

  async uploadStatus(uploadId: string, key: string): Promise<UploadStatus | null> {
    this.#checkOpen();
    const [row] = await this.db.rows<[UploadState, string | null, string | null]>(this.db.pool, sql.uploadStatus, [
      this.bucket,
      uploadId,
      utf8(key),
    ]);
    if (!row) return null;
    const [state, checksum, encryption] = row;
    return {
      state,
      ...(checksum ? { checksum: JSON.parse(checksum) } : {}),
      ...(encryption ? { encryption: JSON.parse(encryption) } : {}),
    };
  }

  async putPart(uploadId: string, key: string, body: WriteBody, partOf: (size: number) => PartRecord): Promise<PartRecord | null> {
    const staged = await this.#stage(body);
    const part = await describeStaged(staged, partOf, (b) => this.#discard(b));
    if (this.#closed) {
      await this.#discard(staged);
      this.#checkOpen();
    }
    // Parts are always chunks: completion names them as the object's bodies.
    const chunks = staged.chunks ?? (await this.#asChunks(staged.small));
    const stored = await chunks.commitIf(async (client) => {
      const [upload] = await this.db.rows<UploadColumns>(client, sql.lockUpload, [this.bucket, uploadId, utf8(key)]);
      if (upload?.[5] !== 'active') return false;
      await this.db.rows(client, sql.putPart, [
        this.bucket,
        uploadId,
        part.partNumber,
        chunks.body,
        part.size,
        part.etag,
        part.md5,
        part.checksum ? JSON.stringify(part.checksum) : null,
        part.iv ?? null,
      ]);
      return true;
    });
    return stored ? part : null;
  }

  async completeUpload(uploadId: string, key: string, assemble: Assemble): Promise<ObjectRecord | null> {
    this.#checkOpen();
    return this.db.transaction(async (client) => {
      const [upload] = await this.db.rows<UploadColumns>(client, sql.lockUpload, [this.bucket, uploadId, utf8(key)]);
      // Read under the upload's lock: no part changes until the commit.
      const rows = upload ? await this.db.rows<PartColumns>(client, sql.parts, [this.bucket, uploadId]) : [];
      const stored = new Map(rows.map((row) => [row[0], row]));
      const parts = new Map(rows.map((row) => [row[0], toPart(row)]));
      for (;;) {
        // The object replaced, locked when there is one; conditions on it are checked here.
        const [current] = await this.db.rows<CurrentRow>(client, sql.lockCurrent, [this.bucket, utf8(key)]);
        const outcome = assemble(upload ? { ...toUpload(upload), state: upload[5] } : null, parts, current ? toRecord(current) : null);
        if (outcome === null) return null;
        if ('kept' in outcome) return outcome.kept;
        const { record, partNumbers } = outcome;
        const object = { bodies: partNumbers.map((n) => stored.get(n)![1]), sizes: partNumbers.map((n) => stored.get(n)![2]) };
        // Written only over the object assembled against: one created meanwhile is assessed again.
        const replaced = current ? current[1] : null;
        if (await this.#write(client, record, object, (found) => (found ? found.version : null) === replaced)) {
          await this.db.rows(client, sql.endUpload, [this.bucket, uploadId, 'completed', partNumbers]);
          return record;
        }
      }
    });
  }

  async abortUpload(uploadId: string, key: string): Promise<UploadState | 'unknown'> {
    this.#checkOpen();
    return this.db.transaction(async (client) => {
      const [upload] = await this.db.rows<UploadColumns>(client, sql.lockUpload, [this.bucket, uploadId, utf8(key)]);
      if (!upload) return 'unknown';
      if (upload[5] === 'active') await this.db.rows(client, sql.endUpload, [this.bucket, uploadId, 'aborted', []]);
      return upload[5];
    });
  }

  async expireUploads(cutoff: number): Promise<void> {
    this.#checkOpen();
    // Usually nothing is due: one read answers that.
    if ((await this.db.rows(this.db.pool, sql.anyExpiredUpload, [this.bucket, cutoff])).length === 0) return;
    await this.db.transaction(async (client) => {
      // Whichever instance gets here first aborts each upload; the others find none left.
      const expired = await this.db.rows<[string]>(client, sql.expireUploads, [this.bucket, cutoff]);
      if (expired.length > 0) await this.db.rows(client, sql.dropParts, [this.bucket, expired.map(([id]) => id)]);
    });
  }

  async activeUploads(prefix: string): Promise<UploadRecord[]> {
    this.#checkOpen();
    const lower = utf8(prefix);
    const upper = prefix === '' ? null : bytesAfterPrefix(lower);
    return (await this.db.rows<UploadColumns>(this.db.pool, sql.activeUploads, [this.bucket, lower, upper])).map(toUpload);
  }

  async uploadParts(uploadId: string, key: string): Promise<{ upload: UploadRecord; parts: PartRecord[] } | null> {
    this.#checkOpen();
    const rows = await this.db.rows<[...UploadColumns, ...(PartColumns | [null, null, null, null, null, null, null])]>(
      this.db.pool,
      sql.uploadWithParts,
      [this.bucket, uploadId, utf8(key)],
    );
    const first = rows[0];
    if (first?.[5] !== 'active') return null;
    const parts = first[8] === null ? [] : rows.map((row) => toPart(row.slice(8) as PartColumns));
    return { upload: toUpload(first), parts };
  }

  async claimExpirySweep(now: number, intervalMs: number): Promise<boolean> {
    this.#checkOpen();
    return (await this.db.rows(this.db.pool, sql.claimExpirySweep, [this.bucket, now, intervalMs])).length > 0;
  }

  /** See snapshot.ts: one read-only transaction at the repeatable-read level. */
  async snapshot(): Promise<EngineSnapshot> {
    this.#checkOpen();
    return openPostgresSnapshot(this.db, this.bucket);
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  /**
   * Stores `record` when `allow` accepts the object it replaces (or its absence): a
   * compare-and-set on the current version, tried again when another write came between the
   * read and the write. On `target` (the pool: each statement its own; or the transaction of a
   * body being stored). Rejects with `StorageDeletedError` when the bucket was deleted: the object
   * it would have created could never be read.
   */
  async #write(target: Target, record: ObjectRecord, body: NewBody, allow: (current: ObjectRecord | null) => boolean): Promise<boolean> {
    const key = utf8(record.key);
    const columns = [
      this.bucket,
      key,
      record.version,
      record.size,
      record.etag,
      record.uploaded,
      JSON.stringify(record.httpMetadata),
      JSON.stringify(record.customMetadata),
      JSON.stringify(record.checksums),
      encryptionColumn(record),
      'small' in body ? body.small : null,
      'bodies' in body ? body.bodies : null,
      'bodies' in body ? body.sizes : null,
    ];
    // Where a write may create the object (no condition, or one an absent object passes), it
    // tries that first: storing under a new key takes one round trip, shared by the small puts
    // of the same turn.
    const absentAllowed = allow(null);
    for (let attempt = 1; ; attempt++) {
      let current: CurrentRow | undefined;
      if (absentAllowed) {
        const [inserted, deleted, ...present] =
          attempt === 1 && target === this.db.pool && 'small' in body
            ? await this.#newObjects.submit(columns)
            : ((await this.db.rows(target, sql.insertObject, columns))[0] as InsertOutcome);
        if (inserted) return true;
        if (deleted) throw new StorageDeletedError(this.bucket);
        // Not stored, yet no object seen: another write created it after the statement's snapshot.
        if (present[0] === null) continue;
        current = present as CurrentRow;
      } else {
        [current] = await this.db.rows<CurrentRow>(target, sql.current, [this.bucket, key]);
        if (!current) {
          // Nothing to compare with may be a deleted bucket: that is no such bucket, not a 412.
          await this.#refuseDeleted(target);
          return false;
        }
      }
      if (!allow(toRecord(current))) return false;
      const replaced = await this.db.rows(target, sql.replaceObject, [...columns, current[1], current[9]]);
      if (replaced.length > 0) return true;
    }
  }

  /** Stores new small objects (`#write`'s columns each) with one statement. */
  async #insertMany(inputs: unknown[][]): Promise<InsertOutcome[]> {
    const column = (i: number) => inputs.map((columns) => columns[i]);
    return this.db.rows<InsertOutcome>(this.db.pool, sql.insertObjects, [this.bucket, ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(column)]);
  }

  /** Reads objects with their small bodies and body lists with one statement. */
  async #readMany(keys: Buffer[]): Promise<(ReadRow | undefined)[]> {
    const rows = await this.db.rows<ReadRow | null[]>(this.db.pool, sql.readMany, [this.bucket, keys]);
    return rows.map((row) => (row[0] === null ? undefined : (row as ReadRow)));
  }

  async #scan(target: Target, { from, prefix, limit }: KeyRange): Promise<ObjectRecord[]> {
    const lower = utf8(from);
    const rows =
      prefix === ''
        ? await this.db.rows<ObjectColumns>(target, sql.scanFrom, [this.bucket, lower, limit])
        : await this.db.rows<ObjectColumns>(target, sql.scanBetween, [this.bucket, lower, bytesAfterPrefix(utf8(prefix)), limit]);
    return rows.map(toRecord);
  }

  /** A small part's bytes as a body of chunks, in a transaction of its own. */
  async #asChunks(small: Buffer | null): Promise<StagedChunks> {
    const chunks = await StagedChunks.open(this.db, this.bucket);
    try {
      await chunks.write(nothingMore(), small ? [small] : []);
    } catch (error) {
      await chunks.rollback();
      throw error;
    }
    return chunks;
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error('The bucket storage is closed.');
  }
}

async function* nothingMore(): AsyncGenerator<Uint8Array> {}

// The server out of reach or its disk full, met by any call, come out as the runtime's storage errors.
classifyFailures(PostgresEngine, ENGINE_METHODS, (engine, error) => postgresTrouble(error, engine.location));
