import { StoredChecksums } from './checksums';
import type { Checksums, HttpMetadata, Range, StoredObject, StoredObjectBody } from './contract';
import type { ChunkSource, ObjectBytes, ObjectRecord } from './engine';
import { toHttpMetadata, writeHttpHeaders, type StoredHttpMetadata } from './metadata';
import type { ByteRange } from './range';

/** Which parts of a record a result shows. */
export interface ObjectView {
  /** Omitted: not shown (a listing whose `include` leaves it out). */
  httpMetadata?: StoredHttpMetadata;
  customMetadata?: Record<string, string>;
  range?: ByteRange;
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
    // Absent parts stay absent (not undefined-valued), as on the platform's objects.
    const shown = this as { httpMetadata?: HttpMetadata; customMetadata?: Record<string, string>; range?: Range };
    if (view.httpMetadata) shown.httpMetadata = toHttpMetadata(view.httpMetadata);
    if (view.customMetadata) shown.customMetadata = { ...view.customMetadata };
    if (view.range) shown.range = { ...view.range };
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

export class StoredObjectBodyResult extends StoredObjectResult implements StoredObjectBody {
  #bytes: ObjectBytes | null;
  #stream: ReadableStream<Uint8Array> | undefined;
  #used = false;

  constructor(record: ObjectRecord, view: ObjectView, bytes: ObjectBytes) {
    super(record, view);
    this.#bytes = bytes;
  }

  get body(): ReadableStream<Uint8Array> {
    this.#stream ??= this.#openStream();
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async bytes(): Promise<Uint8Array> {
    const bytes = this.#bytes;
    if (this.#used) throw new TypeError(BODY_USED);
    if (this.#stream === undefined && bytes instanceof Uint8Array) {
      this.#take();
      return bytes;
    }
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
    // A high-water mark of 0: nothing is read before the consumer asks, so an unread body stays
    // unused. Read-ahead, where it pays, is the chunk source's business.
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          if (!source) {
            const bytes = this.#take();
            if (bytes instanceof Uint8Array) {
              if (bytes.byteLength > 0) controller.enqueue(bytes);
              controller.close();
              return;
            }
            source = bytes!;
          }
          const chunk = await source.next();
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
        cancel: () => {
          const bytes = this.#take();
          (source ?? (bytes instanceof Uint8Array ? undefined : bytes))?.close();
        },
      },
      { highWaterMark: 0 },
    );
  }
}
