import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ChunkSource } from '../engine';
import type { ByteRange } from '../shared';

const open = promisify(fs.open);
const close = promisify(fs.close);
const fdatasync = promisify(fs.fdatasync);
const fsync = promisify(fs.fsync);
const rename = promisify(fs.rename);
const unlink = promisify(fs.unlink);

/** Bytes gathered before one write system call. */
const WRITE_BATCH_BYTES = 1024 * 1024;
/** Bytes written between flushes started while the body still streams in. */
const EARLY_FLUSH_BYTES = 8 * 1024 * 1024;
/** Bytes per chunk handed to a reader. */
const READ_CHUNK_BYTES = 1024 * 1024;
/** Unreferenced blob files younger than this may belong to a write about to commit. */
const ORPHAN_MIN_AGE_MS = 10 * 60 * 1000;

/** A stretch of an object's body kept in one blob file. */
export interface Segment {
  blob: string;
  size: number;
}

/**
 * Body files of a bucket. A body is written under a temporary name in this process's staging
 * directory, flushed, renamed into `blobs/` and the directory flushed: after a crash a body is
 * either complete or absent. Names are random: keys never reach the file system.
 */
export class BlobFiles {
  private constructor(
    private readonly blobsDir: string,
    private readonly stagingDir: string,
    private readonly blobsDirFd: number,
  ) {}

  static open(root: string): BlobFiles {
    const blobsDir = join(root, 'blobs');
    const stagingRoot = join(root, 'staging');
    // Inside the bucket's directory only: one deleted meanwhile is not made again.
    makeDirectory(blobsDir);
    makeDirectory(stagingRoot);
    removeAbandonedStaging(stagingRoot);
    // Named after this process, so another process can tell when it is gone.
    const stagingDir = join(stagingRoot, `${process.pid}-${randomBytes(6).toString('hex')}`);
    fs.mkdirSync(stagingDir);
    return new BlobFiles(blobsDir, stagingDir, fs.openSync(blobsDir, 'r'));
  }

  /** Writes `head` then the rest of `source` to a new blob, durably. Nothing remains on failure. */
  async write(source: AsyncIterator<Uint8Array>, head: Uint8Array[]): Promise<Segment> {
    const blob = randomBytes(16).toString('hex');
    const temporary = join(this.stagingDir, blob);
    const fd = await open(temporary, 'wx');
    let size = 0;
    let writing: Promise<void> = Promise.resolve();
    // Flushing while bytes still arrive (and are hashed) leaves little for the final flush.
    let flushing: Promise<void> = Promise.resolve();
    let flushIdle = true;
    let flushedUpTo = 0;
    try {
      let batch = head;
      let batchBytes = head.reduce((sum, chunk) => sum + chunk.byteLength, 0);
      for (;;) {
        const { done, value } = await source.next();
        if (!done) {
          batch.push(value);
          batchBytes += value.byteLength;
        }
        if (batchBytes >= WRITE_BATCH_BYTES || (done && batchBytes > 0)) {
          // One write in flight while the next batch is received and hashed.
          await writing;
          if (flushIdle && size - flushedUpTo >= EARLY_FLUSH_BYTES) {
            flushIdle = false;
            flushedUpTo = size;
            flushing = fdatasync(fd).finally(() => (flushIdle = true));
            flushing.catch(() => {});
          }
          writing = writeAll(fd, batch);
          writing.catch(() => {});
          size += batchBytes;
          batch = [];
          batchBytes = 0;
        }
        if (done) break;
      }
      await writing;
      await flushing;
      await fdatasync(fd);
    } catch (error) {
      await writing.catch(() => {});
      await flushing.catch(() => {});
      await close(fd).catch(() => {});
      await unlink(temporary).catch(() => {});
      await source.return?.();
      throw error;
    }
    await close(fd);
    await rename(temporary, join(this.blobsDir, blob));
    await fsync(this.blobsDirFd);
    return { blob, size };
  }

  /**
   * Opens the bytes of `range` across the segments. Files are opened before returning, so a
   * concurrent replacement of the object cannot pull them away mid-read; throws ENOENT when one
   * is already gone (the caller reads the metadata again).
   */
  reader(segments: Segment[], range: ByteRange): ChunkSource {
    const pieces: Piece[] = [];
    let start = 0;
    for (const { blob, size } of segments) {
      const from = Math.max(range.offset, start);
      const to = Math.min(range.offset + range.length, start + size);
      if (to > from) pieces.push({ path: join(this.blobsDir, blob), position: from - start, length: to - from });
      start += size;
    }
    return new BlobReader(pieces);
  }

  /** Deletes blob files; one already gone is fine, any other failure leaves it to `collect`. */
  remove(blobs: Iterable<string>): void {
    for (const blob of blobs) unlink(join(this.blobsDir, blob)).catch(() => {});
  }

  /** Deletes blob files no record refers to, left by a crash between writing and committing. */
  collect(referenced: Set<string>): void {
    const now = Date.now();
    for (const blob of fs.readdirSync(this.blobsDir)) {
      if (referenced.has(blob)) continue;
      const path = join(this.blobsDir, blob);
      const stat = fs.statSync(path, { throwIfNoEntry: false });
      if (stat && now - stat.mtimeMs > ORPHAN_MIN_AGE_MS) fs.rmSync(path, { force: true });
    }
  }

  close(): void {
    fs.closeSync(this.blobsDirFd);
    fs.rmSync(this.stagingDir, { recursive: true, force: true });
  }
}

/** Makes a directory whose parent exists; one already there is fine. */
function makeDirectory(path: string): void {
  try {
    fs.mkdirSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Removes staging directories of processes that no longer run (killed mid-write). */
function removeAbandonedStaging(stagingRoot: string): void {
  for (const name of fs.readdirSync(stagingRoot)) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && !processRuns(pid)) {
      fs.rmSync(join(stagingRoot, name), { recursive: true, force: true });
    }
  }
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function writeAll(fd: number, buffers: Uint8Array[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const next = (pending: Uint8Array[]) =>
      fs.writev(fd, pending, (error, written) => {
        if (error) return reject(error);
        const rest = skipBytes(pending, written);
        if (rest.length === 0) resolve();
        else next(rest);
      });
    next(buffers);
  });
}

function skipBytes(buffers: Uint8Array[], count: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  for (const buffer of buffers) {
    if (count >= buffer.byteLength) count -= buffer.byteLength;
    else {
      rest.push(count > 0 ? buffer.subarray(count) : buffer);
      count = 0;
    }
  }
  return rest;
}

interface Piece {
  path: string;
  position: number;
  length: number;
}

/** File descriptors of a reader, kept apart from it so they can be closed after it is collected. */
interface OpenFiles {
  fds: (number | null)[];
  reading: Promise<unknown> | null;
}

function closeFiles(files: OpenFiles): void {
  const closeAll = () => {
    for (const [i, fd] of files.fds.entries()) {
      if (fd !== null) fs.close(fd, () => {});
      files.fds[i] = null;
    }
  };
  // A descriptor closed under a read in flight could be reused by another file: wait for it.
  if (files.reading) void files.reading.finally(closeAll);
  else closeAll();
}

// Bodies that are dropped without being read or cancelled still release their files.
const abandoned = new FinalizationRegistry<OpenFiles>(closeFiles);

/**
 * Reads pieces of blob files in order. Chunks handed out (`next`) are read one ahead of the
 * consumer; bytes read into the consumer's own buffer (`readInto`) are read straight into it.
 */
class BlobReader implements ChunkSource {
  readonly #pieces: Piece[];
  readonly #files: OpenFiles;
  #piece = 0;
  #done = 0;
  #ahead: Promise<Uint8Array | null> | null = null;
  #leftover: Uint8Array | null = null;

  constructor(pieces: Piece[]) {
    this.#pieces = pieces;
    this.#files = { fds: [], reading: null };
    try {
      for (const piece of pieces) this.#files.fds.push(fs.openSync(piece.path, 'r'));
    } catch (error) {
      closeFiles(this.#files);
      throw error;
    }
    abandoned.register(this, this.#files, this);
  }

  async next(): Promise<Uint8Array | null> {
    const chunk = (await this.#held()) ?? (await this.#readChunk());
    if (chunk && this.#piece < this.#pieces.length) {
      this.#ahead = this.#readChunk();
      this.#ahead.catch(() => {});
    }
    return chunk;
  }

  async readInto(view: Uint8Array): Promise<number> {
    const held = this.#leftover || this.#ahead ? await this.#held() : null;
    if (!held) return this.#readAt(view);
    const count = Math.min(held.byteLength, view.byteLength);
    view.set(held.subarray(0, count));
    if (count < held.byteLength) this.#leftover = held.subarray(count);
    return count;
  }

  close(): void {
    abandoned.unregister(this);
    closeFiles(this.#files);
  }

  /** Bytes already read and not yet handed out: a leftover, or the chunk read ahead. */
  async #held(): Promise<Uint8Array | null> {
    const leftover = this.#leftover;
    if (leftover) {
      this.#leftover = null;
      return leftover;
    }
    const ahead = this.#ahead;
    this.#ahead = null;
    return ahead;
  }

  async #readChunk(): Promise<Uint8Array | null> {
    const piece = this.#pieces[this.#piece];
    if (!piece) return null;
    const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, piece.length - this.#done));
    const count = await this.#readAt(buffer);
    return count === buffer.byteLength ? buffer : buffer.subarray(0, count);
  }

  /** Reads the next bytes of the current piece into `target`; 0 once every piece is read. */
  #readAt(target: Uint8Array): Promise<number> {
    const piece = this.#pieces[this.#piece];
    const fd = this.#files.fds[this.#piece];
    if (!piece || fd === null || fd === undefined) {
      this.close();
      return Promise.resolve(0);
    }
    const wanted = Math.min(target.byteLength, piece.length - this.#done);
    const reading = new Promise<number>((resolve, reject) => {
      fs.read(fd, target, 0, wanted, piece.position + this.#done, (error, bytesRead) => {
        this.#files.reading = null;
        if (error) return reject(error);
        if (bytesRead === 0) return reject(new Error(`Stored body file ${piece.path} is shorter than its record says.`));
        this.#done += bytesRead;
        if (this.#done === piece.length) {
          fs.close(fd, () => {});
          this.#files.fds[this.#piece] = null;
          this.#piece++;
          this.#done = 0;
        }
        resolve(bytesRead);
      });
    });
    this.#files.reading = reading;
    reading.catch(() => this.close());
    return reading;
  }
}
