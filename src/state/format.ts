/**
 * The state file's framing (docs/server.md, "Saving and loading state"): UTF-8 lines of JSON,
 * each a record; a record with a `bytes` member is followed by exactly that many raw bytes and a
 * newline. The first line names the format and its version; the last is the `end` record with
 * the number of records and the SHA-256 of every byte before it. Lines of JSON keep the file
 * greppable and any record readable alone; lengths up front let bytes of any size stream
 * through without escaping or holding them; the end record tells a whole file from a truncated
 * or damaged one.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export const STATE_FORMAT = 'edge-api-toolkit state';
/** Raised when a change makes files this version writes unreadable by earlier versions. */
export const STATE_FORMAT_VERSION = 1;
/** A line longer than this is damage, not a record (records are small; bytes are never in lines). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
const READ_BUFFER_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/** A state file that cannot be read or loaded; the message says which file and why. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

export interface StateHeader {
  format: typeof STATE_FORMAT;
  version: number;
  /** When the file was written (ISO 8601). */
  created: string;
}

/** A record: a `type` and its members; `bytes` (when present) says how many raw bytes follow. */
export interface StateRecord {
  type: string;
  bytes?: number;
  [member: string]: unknown;
}

interface EndRecord {
  type: 'end';
  records: number;
  sha256: string;
}

/**
 * Writes a state file under a temporary name beside it, renamed into place by `finish` once
 * flushed: a file with the final name is always whole.
 */
export class StateWriter {
  readonly #hash: Hash = createHash('sha256');
  readonly #stream: fs.WriteStream;
  readonly #temporary: string;
  #records = 0;
  #failed: Error | null = null;

  private constructor(
    readonly file: string,
    temporary: string,
    stream: fs.WriteStream,
  ) {
    this.#temporary = temporary;
    this.#stream = stream;
    stream.on('error', (error) => (this.#failed ??= error));
  }

  static async create(file: string): Promise<StateWriter> {
    const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.partial`);
    const stream = fs.createWriteStream(temporary, { flags: 'wx' });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', (error) => reject(new StateFileError(`cannot write the state file ${file}: ${error.message}`)));
    });
    const writer = new StateWriter(file, temporary, stream);
    const header: StateHeader = { format: STATE_FORMAT, version: STATE_FORMAT_VERSION, created: new Date().toISOString() };
    await writer.#write(Buffer.from(`${JSON.stringify(header)}\n`));
    return writer;
  }

  /** Writes a record; with `body`, exactly `record.bytes` bytes taken from it follow. */
  async record(record: StateRecord, body?: AsyncIterable<Uint8Array>): Promise<void> {
    if ((record.bytes !== undefined) !== (body !== undefined)) throw new Error('a record has bytes exactly when a body is given');
    await this.#write(Buffer.from(`${JSON.stringify(record)}\n`));
    this.#records += 1;
    if (body === undefined) return;
    let written = 0;
    for await (const chunk of body) {
      written += chunk.byteLength;
      if (written > record.bytes!) break;
      await this.#write(chunk);
    }
    if (written !== record.bytes) {
      throw new Error(`the ${record.type} record announces ${record.bytes} bytes but its source gave ${written > record.bytes! ? 'more' : written}`);
    }
    await this.#write(Buffer.from('\n'));
  }

  /** Writes the end record, flushes the file to disk and gives it its name. */
  async finish(): Promise<{ records: number; bytes: number }> {
    const end: EndRecord = { type: 'end', records: this.#records, sha256: this.#hash.digest('hex') };
    this.#stream.write(`${JSON.stringify(end)}\n`);
    await new Promise<void>((resolve, reject) => this.#stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    if (this.#failed) throw this.#failed;
    const fd = fs.openSync(this.#temporary, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(this.#temporary, this.file);
    return { records: this.#records, bytes: fs.statSync(this.file).size };
  }

  /** Removes what was written: no partial file is left behind. */
  async abort(): Promise<void> {
    if (!this.#stream.closed) await new Promise<void>((resolve) => this.#stream.once('close', () => resolve()).destroy());
    fs.rmSync(this.#temporary, { force: true });
  }

  async #write(bytes: Uint8Array): Promise<void> {
    if (this.#failed) throw this.#failed;
    this.#hash.update(bytes);
    if (!this.#stream.write(bytes)) {
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        this.#stream.once('error', onError);
        this.#stream.once('drain', () => {
          this.#stream.off('error', onError);
          resolve();
        });
      });
    }
  }
}

/** A record read, with its bytes (when it has some) to read before asking for the next record. */
export interface ReadRecord {
  record: StateRecord;
  /** The record's bytes, in chunks; left unread, they are skipped (still checked). */
  body?: AsyncIterable<Uint8Array>;
}

/**
 * Reads a state file record by record, checking as it goes: the header's format and version
 * first (a newer version is refused before anything else), the end record's count and checksum
 * last. A file is known whole only once `next` answered null.
 */
export class StateReader {
  readonly #hash: Hash = createHash('sha256');
  readonly #handle: FileHandle;
  #buffer: Buffer = Buffer.alloc(0);
  #position = 0;
  #eof = false;
  #records = 0;
  #pendingBody: AsyncIterator<Uint8Array> | null = null;
  #ended = false;
  readonly header: StateHeader;

  private constructor(
    readonly file: string,
    handle: FileHandle,
    header: StateHeader,
  ) {
    this.#handle = handle;
    this.header = header;
  }

  static async open(file: string): Promise<StateReader> {
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      throw new StateFileError(`cannot read the state file ${file}: ${(error as Error).message}`);
    }
    const reader = new StateReader(file, handle, { format: STATE_FORMAT, version: STATE_FORMAT_VERSION, created: '' });
    try {
      const line = await reader.#line();
      if (line === null) throw new StateFileError(`${file} is empty: not a state file`);
      reader.#hash.update(line);
      reader.#hash.update(Buffer.of(NEWLINE));
      let header: Partial<StateHeader>;
      try {
        header = JSON.parse(line.toString('utf8')) as Partial<StateHeader>;
      } catch {
        throw new StateFileError(`${file} is not a state file: its first line is not the state header`);
      }
      if (header?.format !== STATE_FORMAT) throw new StateFileError(`${file} is not a state file: its header names no "${STATE_FORMAT}" format`);
      if (!Number.isSafeInteger(header.version) || header.version! < 1) {
        throw new StateFileError(`${file} has an invalid format version ${JSON.stringify(header.version)}`);
      }
      if (header.version! > STATE_FORMAT_VERSION) {
        throw new StateFileError(
          `${file} was written by a newer version (state format ${header.version}); this version reads format ${STATE_FORMAT_VERSION} and earlier: load it with that newer version`,
        );
      }
      (reader as { header: StateHeader }).header = header as StateHeader;
      return reader;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The next record, or null after the end record (the file checked whole). */
  async next(): Promise<ReadRecord | null> {
    await this.#skipBody();
    if (this.#ended) return null;
    const lineStart = this.#position;
    const line = await this.#line();
    if (line === null) throw this.#truncated();
    let record: StateRecord;
    try {
      record = JSON.parse(line.toString('utf8')) as StateRecord;
    } catch {
      throw this.#damaged(`the record at byte ${lineStart} is not JSON`);
    }
    if (record === null || typeof record !== 'object' || typeof record.type !== 'string') {
      throw this.#damaged(`the record at byte ${lineStart} has no type`);
    }
    if (record.type === 'end') {
      const end = record as unknown as EndRecord;
      const digest = this.#hash.digest('hex');
      if (end.sha256 !== digest || end.records !== this.#records) {
        throw this.#damaged('its checksum does not match its contents');
      }
      if ((await this.#fill(1)) > 0) throw this.#damaged('bytes follow its end record');
      this.#ended = true;
      return null;
    }
    this.#hash.update(line);
    this.#hash.update(Buffer.of(NEWLINE));
    this.#records += 1;
    if (record.bytes === undefined) return { record };
    if (!Number.isSafeInteger(record.bytes) || record.bytes < 0) {
      throw this.#damaged(`the ${record.type} record at byte ${lineStart} announces ${JSON.stringify(record.bytes)} bytes`);
    }
    const body = this.#body(record.bytes)[Symbol.asyncIterator]();
    this.#pendingBody = body;
    return { record, body: { [Symbol.asyncIterator]: () => body } };
  }

  async close(): Promise<void> {
    await this.#handle.close();
  }

  async *#body(size: number): AsyncGenerator<Uint8Array> {
    let left = size;
    while (left > 0) {
      if ((await this.#fill(1)) === 0) throw this.#truncated();
      const chunk = this.#take(Math.min(left, this.#buffer.byteLength));
      left -= chunk.byteLength;
      this.#hash.update(chunk);
      yield chunk;
    }
    if ((await this.#fill(1)) === 0) throw this.#truncated();
    const newline = this.#take(1);
    if (newline[0] !== NEWLINE) throw this.#damaged(`the bytes ending at byte ${this.#position - 1} are not followed by a newline`);
    this.#hash.update(newline);
    this.#pendingBody = null;
  }

  async #skipBody(): Promise<void> {
    const body = this.#pendingBody;
    if (!body) return;
    for (let step = await body.next(); !step.done; step = await body.next()) {
      // Skipped bytes are still hashed: the checksum covers them.
    }
  }

  /** A line without its newline; null at the end of the file. Unhashed (the caller decides). */
  async #line(): Promise<Buffer | null> {
    let searched = 0;
    for (;;) {
      const at = this.#buffer.indexOf(NEWLINE, searched);
      if (at >= 0) return this.#take(at + 1).subarray(0, at);
      searched = this.#buffer.byteLength;
      if (searched > MAX_LINE_BYTES) throw this.#damaged(`a line at byte ${this.#position} is longer than ${MAX_LINE_BYTES} bytes`);
      if ((await this.#fill(searched + 1)) <= searched) {
        if (this.#buffer.byteLength === 0) return null;
        throw this.#truncated();
      }
    }
  }

  #take(count: number): Buffer {
    const taken = this.#buffer.subarray(0, count);
    this.#buffer = this.#buffer.subarray(count);
    this.#position += count;
    return taken;
  }

  /** Reads until the buffer holds `wanted` bytes or the file ends; answers what it holds. */
  async #fill(wanted: number): Promise<number> {
    while (this.#buffer.byteLength < wanted && !this.#eof) {
      const chunk = Buffer.allocUnsafe(Math.max(READ_BUFFER_BYTES, wanted - this.#buffer.byteLength));
      const { bytesRead } = await this.#handle.read(chunk, 0, chunk.byteLength, null);
      if (bytesRead === 0) this.#eof = true;
      else this.#buffer = this.#buffer.byteLength === 0 ? chunk.subarray(0, bytesRead) : Buffer.concat([this.#buffer, chunk.subarray(0, bytesRead)]);
    }
    return this.#buffer.byteLength;
  }

  #truncated(): StateFileError {
    return new StateFileError(`${this.file} is truncated: it ends at byte ${this.#position + this.#buffer.byteLength} before its end record (an interrupted copy or export?)`);
  }

  #damaged(why: string): StateFileError {
    return new StateFileError(`${this.file} is damaged: ${why}`);
  }
}

/** The header of a state file, checked (format, version) without reading further. */
export async function readStateHeader(file: string): Promise<StateHeader> {
  const reader = await StateReader.open(file);
  await reader.close();
  return reader.header;
}
