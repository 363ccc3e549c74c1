import {
  answerPage,
  type Assemble,
  type ChunkSource,
  type ObjectBytes,
  type ObjectRecord,
  type PageBuilder,
  type PartRecord,
  type StagedBody,
  type WriteBody,
  type StorageEngine,
  type UploadRecord,
  type UploadState,
  type UploadStatus,
} from './engine';
import { compareKeys } from './keys';
import type { ByteRange } from './range';
import { SortedKeys } from './sorted-keys';

class MemoryBody implements StagedBody {
  constructor(readonly bytes: Buffer) {}

  get size(): number {
    return this.bytes.byteLength;
  }
}

interface MemoryObject {
  record: ObjectRecord;
  /** The body in order: one buffer, or the parts of a multipart upload. */
  segments: Buffer[];
}

interface MemoryUpload {
  upload: UploadRecord;
  state: UploadState;
  parts: Map<number, { part: PartRecord; bytes: Buffer }>;
}

/** A copy sharing nothing mutable with the original (records hold plain JSON values). */
function copyRecord<T extends { httpMetadata: object; customMetadata: object }>(record: T): T {
  return { ...record, httpMetadata: { ...record.httpMetadata }, customMetadata: { ...record.customMetadata } };
}

const copyObject = (record: ObjectRecord): ObjectRecord => {
  const copy = { ...copyRecord(record), checksums: { ...record.checksums } };
  if (record.encryption) copy.encryption = { ...record.encryption, ivs: [...record.encryption.ivs] };
  return copy;
};

/**
 * An engine that keeps everything in process memory: fast, for tests and short-lived buckets.
 * Records are copied in and out so callers never share state with the store.
 */
export class MemoryEngine implements StorageEngine {
  readonly #objects = new Map<string, MemoryObject>();
  readonly #keys = new SortedKeys((key) => this.#objects.has(key));
  readonly #uploads = new Map<string, MemoryUpload>();
  #closed = false;

  /** Receives a write's bytes, copied: the caller may reuse its buffers once the put has resolved. */
  async #stage(body: WriteBody): Promise<MemoryBody> {
    this.#checkOpen();
    if (body instanceof Uint8Array) return new MemoryBody(Buffer.from(body));
    const received: Uint8Array[] = [];
    for await (const chunk of body) received.push(chunk);
    return new MemoryBody(Buffer.concat(received));
  }

  /** Memory storage goes with its last holder: never deleted under one. */
  async checkLive(): Promise<void> {
    this.#checkOpen();
  }

  async head(key: string): Promise<ObjectRecord | null> {
    this.#checkOpen();
    const found = this.#objects.get(key);
    return found ? copyObject(found.record) : null;
  }

  async read(key: string, plan: (record: ObjectRecord, partSizes: () => number[]) => ByteRange | null) {
    this.#checkOpen();
    const found = this.#objects.get(key);
    if (!found) return null;
    const record = copyObject(found.record);
    const range = plan(record, () => found.segments.map((segment) => segment.length));
    return { record, bytes: range ? readRange(found.segments, range) : null };
  }

  async put(body: WriteBody, recordOf: (size: number) => ObjectRecord, allow: (current: ObjectRecord | null) => boolean) {
    const { bytes } = await this.#stage(body);
    const record = recordOf(bytes.byteLength);
    this.#checkOpen();
    if (!allow(this.#objects.get(record.key)?.record ?? null)) return null;
    this.#store(record, [bytes]);
    return record;
  }

  async delete(keys: string[]): Promise<void> {
    this.#checkOpen();
    for (const key of keys) this.#objects.delete(key);
  }

  async list<T>(page: () => PageBuilder<T>): Promise<T> {
    this.#checkOpen();
    return answerPage(page(), ({ from, prefix, limit }) => {
      const found: ObjectRecord[] = [];
      for (const key of this.#keys.scan(from, prefix)) {
        if (found.push(copyObject(this.#objects.get(key)!.record)) === limit) break;
      }
      return found;
    });
  }

  async createUpload(upload: UploadRecord): Promise<void> {
    this.#checkOpen();
    this.#uploads.set(upload.uploadId, { upload: copyRecord(upload), state: 'active', parts: new Map() });
  }

  async uploadStatus(uploadId: string, key: string): Promise<UploadStatus | null> {
    this.#checkOpen();
    const found = this.#upload(uploadId, key);
    if (!found) return null;
    const { checksum, encryption } = found.upload;
    return {
      state: found.state,
      ...(checksum ? { checksum: { ...checksum } } : {}),
      ...(encryption ? { encryption: { ...encryption } } : {}),
    };
  }

  async putPart(uploadId: string, key: string, body: WriteBody, partOf: (size: number) => PartRecord) {
    const { bytes } = await this.#stage(body);
    const part = partOf(bytes.byteLength);
    this.#checkOpen();
    const upload = this.#upload(uploadId, key);
    if (upload?.state !== 'active') return null;
    upload.parts.set(part.partNumber, { part: { ...part }, bytes });
    return part;
  }

  async completeUpload(uploadId: string, key: string, assemble: Assemble): Promise<ObjectRecord | null> {
    this.#checkOpen();
    const upload = this.#upload(uploadId, key);
    const parts = new Map([...(upload?.parts ?? [])].map(([n, { part }]) => [n, { ...part }]));
    const current = this.#objects.get(key)?.record;
    const outcome = assemble(
      upload ? { ...copyRecord(upload.upload), state: upload.state } : null,
      parts,
      current ? copyObject(current) : null,
    );
    if (outcome === null) return null;
    if ('kept' in outcome) return outcome.kept;
    const { record, partNumbers } = outcome;
    this.#store(record, partNumbers.map((n) => upload!.parts.get(n)!.bytes));
    upload!.state = 'completed';
    upload!.parts.clear();
    return copyObject(record);
  }

  async abortUpload(uploadId: string, key: string): Promise<UploadState | 'unknown'> {
    this.#checkOpen();
    const upload = this.#upload(uploadId, key);
    if (!upload) return 'unknown';
    const before = upload.state;
    if (before === 'active') this.#abort(upload);
    return before;
  }

  async expireUploads(cutoff: number): Promise<void> {
    this.#checkOpen();
    for (const upload of this.#uploads.values()) {
      if (upload.state === 'active' && upload.upload.created <= cutoff) this.#abort(upload);
    }
  }

  async activeUploads(prefix: string): Promise<UploadRecord[]> {
    this.#checkOpen();
    return [...this.#uploads.values()]
      .filter(({ upload, state }) => state === 'active' && upload.key.startsWith(prefix))
      .map(({ upload }) => copyRecord(upload))
      .sort(
        (a, b) =>
          compareKeys(a.key, b.key) ||
          a.created - b.created ||
          (a.uploadId < b.uploadId ? -1 : a.uploadId > b.uploadId ? 1 : 0),
      );
  }

  async uploadParts(uploadId: string, key: string): Promise<{ upload: UploadRecord; parts: PartRecord[] } | null> {
    this.#checkOpen();
    const upload = this.#upload(uploadId, key);
    if (upload?.state !== 'active') return null;
    const parts = [...upload.parts.values()]
      .map(({ part }) => ({ ...part }))
      .sort((a, b) => a.partNumber - b.partNumber);
    return { upload: copyRecord(upload.upload), parts };
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #store(record: ObjectRecord, segments: Buffer[]): void {
    if (!this.#objects.has(record.key)) this.#keys.add(record.key);
    this.#objects.set(record.key, { record: copyObject(record), segments });
  }

  #upload(uploadId: string, key: string): MemoryUpload | undefined {
    const upload = this.#uploads.get(uploadId);
    return upload?.upload.key === key ? upload : undefined;
  }

  #abort(upload: MemoryUpload): void {
    upload.state = 'aborted';
    upload.parts.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error('The bucket storage is closed.');
  }
}

/** Largest read answered as one copy; larger ones are copied chunk by chunk as they are read. */
const WHOLE_COPY_BYTES = 1024 * 1024;

/**
 * The bytes of `range`. Stored buffers are never handed out (a byte stream would take them over):
 * small reads get a copy, large ones a source that copies as the consumer reads.
 */
function readRange(segments: Buffer[], range: ByteRange): ObjectBytes {
  const pieces: Buffer[] = [];
  let start = 0;
  for (const segment of segments) {
    const from = Math.max(range.offset - start, 0);
    const to = Math.min(range.offset + range.length - start, segment.byteLength);
    if (to > from) pieces.push(segment.subarray(from, to));
    start += segment.byteLength;
  }
  if (range.length <= WHOLE_COPY_BYTES) return Buffer.concat(pieces, range.length);
  return new CopyingSource(pieces);
}

class CopyingSource implements ChunkSource {
  #offset = 0;

  constructor(private readonly pieces: Buffer[]) {}

  async next(): Promise<Uint8Array | null> {
    const rest = (this.pieces[0]?.byteLength ?? 0) - this.#offset;
    const view = Buffer.allocUnsafe(Math.min(WHOLE_COPY_BYTES, rest));
    const count = await this.readInto(view);
    return count === 0 ? null : view.subarray(0, count);
  }

  async readInto(view: Uint8Array): Promise<number> {
    const piece = this.pieces[0];
    if (!piece) return 0;
    const count = piece.copy(view, 0, this.#offset, Math.min(piece.byteLength, this.#offset + view.byteLength));
    this.#offset += count;
    if (this.#offset === piece.byteLength) {
      this.pieces.shift();
      this.#offset = 0;
    }
    return count;
  }

  close(): void {
    this.pieces.length = 0;
  }
}
