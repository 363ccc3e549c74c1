/**
 * The storage engine interface: what the bucket runtime needs from a place that keeps objects.
 * Engines know nothing of the binding's rules (conditions, ranges, limits, errors); the runtime
 * passes them decisions to take inside their atomic steps.
 */
import type { HexChecksums } from './contract';
import type { ChecksumAlgorithm, FlexibleChecksum, UploadChecksum } from './flexible-checksums';
import type { StoredHttpMetadata } from './metadata';
import type { ByteRange } from './range';

/** An object's metadata as engines keep it. */
export interface ObjectRecord {
  key: string;
  version: string;
  size: number;
  etag: string;
  /** Epoch milliseconds. */
  uploaded: number;
  httpMetadata: StoredHttpMetadata;
  customMetadata: Record<string, string>;
  /** The binding's hashes, and the S3 checksum a client named (not shown to the binding). */
  checksums: RecordChecksums;
  /** Present when the bytes are stored encrypted under a customer's key (SSE-C). */
  encryption?: ObjectEncryption;
}

/**
 * What checks a customer's key (SSE-C) without keeping it: a random salt and the HMAC-SHA256 of
 * the salt under the key, and the key's MD5 (which clients name and answers echo), all base64.
 */
export interface CustomerKeyCheck {
  keyMd5: string;
  salt: string;
  hmac: string;
}

/**
 * An object stored encrypted with AES-256 in counter mode under a customer's key: the key's check,
 * and the initial counter block of each segment of the stored bytes (base64, 16 bytes), in order:
 * one for an object put whole, one per part for an object completed from parts.
 */
export interface ObjectEncryption extends CustomerKeyCheck {
  ivs: string[];
}

export type RecordChecksums = HexChecksums & { flexible?: FlexibleChecksum };

export interface UploadRecord {
  uploadId: string;
  key: string;
  /** Epoch milliseconds. */
  created: number;
  httpMetadata: StoredHttpMetadata;
  customMetadata: Record<string, string>;
  /** The S3 checksum the upload's object gets from its parts, when created with one. */
  checksum?: UploadChecksum;
  /** Present when the upload was created with a customer's key: its parts must name the same key. */
  encryption?: CustomerKeyCheck;
}

export type UploadState = 'active' | 'completed' | 'aborted';

/** What storing a part needs to know of its upload first. */
export interface UploadStatus {
  state: UploadState;
  checksum?: UploadChecksum;
  encryption?: CustomerKeyCheck;
}

export interface PartRecord {
  partNumber: number;
  size: number;
  /** Hex MD5 of the part's bytes, as the platform's part etags are (a keyed digest for an encrypted part). */
  etag: string;
  /** Hex MD5 of the part's bytes, or the etag of an encrypted part (the completed object's etag is made from these). */
  md5: string;
  /** The S3 checksum the part was uploaded with, base64. */
  checksum?: { algorithm: ChecksumAlgorithm; value: string };
  /** The initial counter block of a part encrypted under its upload's customer key (base64). */
  iv?: string;
}

/**
 * The bytes of a write as the runtime hands them to an engine, once: in memory (a small body
 * read whole, stored without any stream machinery) or as chunks pulled in order.
 */
export type WriteBody = Uint8Array | AsyncIterable<Uint8Array>;

/** Bytes an engine received and keeps, not yet visible under any key (engines' own). */
export interface StagedBody {
  readonly size: number;
}

/**
 * What each engine's `put` and `putPart` do between receiving and committing: the description of
 * the bytes received, or, when making it throws, the staged bytes discarded and the error passed on.
 */
export async function describeStaged<B extends StagedBody, R>(
  staged: B,
  describe: (size: number) => R,
  discard: (staged: B) => Promise<void>,
): Promise<R> {
  try {
    return describe(staged.size);
  } catch (error) {
    await discard(staged);
    throw error;
  }
}

/** Bytes read, pulled in order; `close` releases what is held when reading stops early. */
export interface ChunkSource {
  /** The next bytes in a buffer the caller may keep; null at the end. */
  next(): Promise<Uint8Array | null>;
  /** Reads the next bytes into the caller's `view`; 0 at the end. */
  readInto(view: Uint8Array): Promise<number>;
  close(): void;
}

/** Bytes of a read: in memory when small, otherwise pulled from storage. */
export type ObjectBytes = Uint8Array | ChunkSource;

/**
 * A request of a page being built: up to `limit` objects whose keys are at or after `from` (in
 * UTF-8 byte order) and start with `prefix`, in order. Fewer than `limit` means none follow.
 */
export interface KeyRange {
  from: string;
  prefix: string;
  limit: number;
}

/**
 * Builds one list page: yields the key ranges it needs, is given their objects, returns the
 * page. The page asks rather than iterates so that an engine may answer with a query that awaits
 * (PostgreSQL) or one that does not (SQLite, memory), each from one consistent view of the keys.
 */
export type PageBuilder<T> = Generator<KeyRange, T, ObjectRecord[]>;

/** Answers every request of a page builder at once (engines whose reads do not wait). */
export function answerPage<T>(page: PageBuilder<T>, answer: (range: KeyRange) => ObjectRecord[]): T {
  for (let step = page.next(); ; ) {
    if (step.done) return step.value;
    step = page.next(answer(step.value));
  }
}

/**
 * Called inside the atomic step of a completion with the upload's state, its stored parts and the
 * object it would replace. It answers the object to write and the parts, in order, that form it;
 * or an object to answer without writing anything (`kept`: a repeated completion), or null (a
 * condition on the replaced object failed: nothing changes).
 */
export type Assemble = (
  upload: (UploadRecord & { state: UploadState }) | null,
  parts: ReadonlyMap<number, PartRecord>,
  current: ObjectRecord | null,
) => { record: ObjectRecord; partNumbers: number[] } | { kept: ObjectRecord } | null;

export interface StorageEngine {
  head(key: string): Promise<ObjectRecord | null>;
  /**
   * Rejects with `StorageDeletedError` when the storage was deleted, by this process or another:
   * a condition refused on what a deleted bucket still reads must say so, not answer 412.
   */
  checkLive(): Promise<void>;
  /**
   * Reads an object: `plan` sees its metadata and says which bytes to serve (null: none); it may
   * ask for the sizes of the parts the object was stored as (one for a single put). The bytes
   * returned belong to the metadata returned, even when a write replaces the object.
   */
  read(key: string, plan: (record: ObjectRecord, partSizes: () => number[]) => ByteRange | null): Promise<{
    record: ObjectRecord;
    bytes: ObjectBytes | null;
  } | null>;
  /**
   * A write, in one call: receives `body`, asks `recordOf` for the record once the size is known
   * (when it throws, e.g. a hash that does not match, nothing is kept), then atomically, when
   * `allow` accepts the current object (or its absence), stores the record with the bytes,
   * replacing the previous object. Resolves the record stored, or null when `allow` refused.
   * Nothing is kept when the body fails, when this rejects (e.g. with `StorageDeletedError`), or
   * when the process ends before the commit.
   */
  put(
    body: WriteBody,
    recordOf: (size: number) => ObjectRecord,
    allow: (current: ObjectRecord | null) => boolean,
  ): Promise<ObjectRecord | null>;
  /** Deletes the keys atomically; missing keys are ignored. */
  delete(keys: string[]): Promise<void>;
  /**
   * Builds one list page from a consistent view of the keys. `page` makes a fresh builder; an
   * engine may call it again to start over (each builder only reads).
   */
  list<T>(page: () => PageBuilder<T>): Promise<T>;

  /** Creates an active upload; rejects with `StorageDeletedError` when the storage was deleted. */
  createUpload(upload: UploadRecord): Promise<void>;
  /**
   * The state of an upload of `key`, the S3 checksum and the customer key's check it was created
   * with, or null when there is none under that id and key.
   */
  uploadStatus(uploadId: string, key: string): Promise<UploadStatus | null>;
  /**
   * Stores or replaces a part of an active upload of `key`, in one call as `put` does: `partOf`
   * describes the bytes once received. Null (nothing kept) when there is no such active upload.
   */
  putPart(uploadId: string, key: string, body: WriteBody, partOf: (size: number) => PartRecord): Promise<PartRecord | null>;
  /**
   * Atomically completes an upload of `key`: `assemble` validates and names the parts, in order,
   * that become the object. Errors thrown by `assemble` reject and change nothing, as does a null
   * from it (then this resolves null).
   */
  completeUpload(uploadId: string, key: string, assemble: Assemble): Promise<ObjectRecord | null>;
  /** Aborts an active upload of `key`; reports what it found. */
  abortUpload(uploadId: string, key: string): Promise<UploadState | 'unknown'>;
  /** Aborts active uploads created at or before `cutoff` (epoch milliseconds). */
  expireUploads(cutoff: number): Promise<void>;
  /**
   * The active uploads whose keys start with `prefix`, by key (UTF-8 byte order), then creation
   * time, then id.
   */
  activeUploads(prefix: string): Promise<UploadRecord[]>;
  /** The parts of an active upload of `key`, by part number; null when there is none. */
  uploadParts(uploadId: string, key: string): Promise<{ upload: UploadRecord; parts: PartRecord[] } | null>;

  /**
   * Engines shared by several processes: claims the look for expired objects due at `now` (epoch
   * milliseconds), so that one instance looks per interval; false when another looked less than
   * `intervalMs` ago. Without it, each process looks on its own.
   */
  claimExpirySweep?(now: number, intervalMs: number): Promise<boolean>;

  /**
   * A view of the whole bucket as it was at one instant, for saving it (state files) while
   * writers go on. Optional: a bucket on an engine without it cannot be saved.
   */
  snapshot?(): Promise<EngineSnapshot>;

  close(): Promise<void>;
}

/** An object of a snapshot: its record, the sizes of the parts it was stored as, its bytes. */
export interface SnapshotObject {
  record: ObjectRecord;
  /** One size for an object put whole; each part's for a completed multipart upload. */
  partSizes: number[];
  /** The object's bytes, read when asked (at most once). */
  bytes(): AsyncIterable<Uint8Array>;
}

/** An upload in progress of a snapshot, with its stored parts by part number. */
export interface SnapshotUpload {
  upload: UploadRecord;
  parts: { part: PartRecord; bytes(): AsyncIterable<Uint8Array> }[];
}

/** One instant of a bucket; `close` releases what keeps it readable. */
export interface EngineSnapshot {
  /** Every object, by key (UTF-8 byte order). */
  objects(): AsyncIterable<SnapshotObject>;
  /** Every upload in progress. */
  uploads(): AsyncIterable<SnapshotUpload>;
  close(): Promise<void>;
}
