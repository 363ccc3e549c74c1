import { StoredChecksums } from './checksums';
import type { Checksums, HttpMetadata, Range, StoredObject, StoredObjectBody } from './contract';
import type { ChunkSource, ObjectBytes, ObjectRecord } from './engine';
import { declareStreamLength } from './known-length';
import { toHttpMetadata, writeHttpHeaders, type StoredHttpMetadata } from './metadata';

/** Which parts of a record a result shows. */
export interface ObjectView {
  /** Omitted: not shown (a listing whose `include` leaves it out). */
  httpMetadata?: StoredHttpMetadata;
  customMetadata?: Record<string, string>;
  /** The bytes served (reads and `head`); undefined on writes and listings. */
  range?: Range;
}

export class StoredObjectResult implements StoredObject {
  readonly key: string;
  readonly version: string;
  readonly size: number;
  readonly etag: string;
  readonly httpEtag: string;
  readonly checksums: Checksums;
  readonly uploaded: Date;
  readonly storageClass = 'Standard';
  /** Always present, undefined for an object stored without a customer key, as the platform shows it. */
  readonly ssecKeyMd5: string | undefined;
  declare readonly httpMetadata?: HttpMetadata;
  declare readonly customMetadata?: Record<string, string>;
  declare readonly range?: Range;

  constructor(record: ObjectRecord, view: ObjectView) {
    this.key = record.key;
    this.version = record.version;
    this.size = record.size;
    this.etag = record.etag;
    this.httpEtag = `"${record.etag}"`;
    this.checksums = new StoredChecksums(record.checksums);
    this.uploaded = new Date(record.uploaded);
    this.ssecKeyMd5 = record.encryption?.keyMd5;
    // Absent metadata stays absent (not undefined-valued), as on the platform's objects; `range`
    // is always there, undefined where nothing was read, as the platform shows it.
    const shown = this as { httpMetadata?: HttpMetadata; customMetadata?: Record<string, string>; range?: Range };
    if (view.httpMetadata) shown.httpMetadata = toHttpMetadata(view.httpMetadata);
    if (view.customMetadata) shown.customMetadata = { ...view.customMetadata };
    shown.range = view.range && { ...view.range };
  }

  writeHttpMetadata(headers: Headers): void {
    if (!this.httpMetadata) {
      throw new TypeError(
        `HTTP metadata unknown for key \`${this.key}\`. Did you forget to add 'httpMetadata' to \`include\` when listing?`,
      );
    }
    writeHttpHeaders(this.httpMetadata, headers);
  }
}

const BODY_USED =
  'Body has already been used. It can only be used once. Use tee() first if you need to read it twice.';

/** Bytes already in memory, served like any other source. */
class BytesSource implements ChunkSource {
  #offset = 0;
  // Kept apart: a chunk handed to a byte stream is detached, and its length then reads 0.
  readonly #length: number;

  constructor(private readonly bytes: Uint8Array) {
    this.#length = bytes.byteLength;
  }

  async next(): Promise<Uint8Array | null> {
    if (this.#offset === this.#length) return null;
    const rest = this.#offset === 0 ? this.bytes : this.bytes.subarray(this.#offset);
    this.#offset = this.#length;
    return rest;
  }

  async readInto(view: Uint8Array): Promise<number> {
    const count = Math.min(view.byteLength, this.#length - this.#offset);
    if (count === 0) return 0;
    view.set(this.bytes.subarray(this.#offset, this.#offset + count));
    this.#offset += count;
    return count;
  }

  close(): void {}
}

/**
 * A byte stream takes over (detaches) the whole ArrayBuffer of a chunk it is given: a chunk that
 * is a view on part of a larger buffer (a pooled Buffer, a slice) is copied first.
 */
const ownBuffer = (chunk: Uint8Array) =>
  chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : new Uint8Array(chunk);

export class StoredObjectBodyResult extends StoredObjectResult implements StoredObjectBody {
  #bytes: ObjectBytes | null;
  #stream: ReadableStream<Uint8Array> | undefined;
  #used = false;

  constructor(record: ObjectRecord, view: ObjectView, bytes: ObjectBytes) {
    super(record, view);
    this.#bytes = bytes;
  }

  /** A byte stream: BYOB readers get the bytes read straight into their own buffers. */
  get body(): ReadableStream<Uint8Array> {
    this.#stream ??= this.#openStream();
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.#used) throw new TypeError(BODY_USED);
    if (this.#stream === undefined && this.#bytes instanceof Uint8Array) return this.#take() as Uint8Array;
    const chunks: Uint8Array[] = [];
    const reader = this.body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? (bytes.buffer as ArrayBuffer)
      : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json<T>(): Promise<T> {
    return JSON.parse(await this.text()) as T;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.httpMetadata?.contentType ?? '' });
  }

  #take(): ObjectBytes | null {
    this.#used = true;
    const bytes = this.#bytes;
    this.#bytes = null;
    return bytes;
  }

  #openStream(): ReadableStream<Uint8Array> {
    let source: ChunkSource | undefined;
    const open = () => {
      if (!source) {
        const bytes = this.#take()!;
        source = bytes instanceof Uint8Array ? new BytesSource(bytes) : bytes;
      }
      return source;
    };
    // Nothing is read before the consumer asks (no high-water mark), so an unread body stays
    // unused; read-ahead, where it pays, is the source's business.
    const stream = new ReadableStream({
      type: 'bytes',
      pull: async (controller) => {
        const request = controller.byobRequest;
        if (request?.view) {
          const view = request.view;
          const count = await open().readInto(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
          if (count === 0) controller.close();
          request.respond(count);
          return;
        }
        const chunk = await open().next();
        if (chunk) controller.enqueue(ownBuffer(chunk));
        else controller.close();
      },
      cancel: () => {
        (source ?? (this.#bytes instanceof Uint8Array ? undefined : this.#bytes))?.close();
        this.#take();
      },
    }, { highWaterMark: 0 });
    // As on the platform, the body of a read has a known length: it can be stored again as it is.
    declareStreamLength(stream, this.range && 'length' in this.range && this.range.length !== undefined ? this.range.length : this.size);
    return stream;
  }
}
