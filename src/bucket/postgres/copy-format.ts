/**
 * PostgreSQL's binary COPY format for the `chunks` table, both ways: an 11-byte signature, flags
 * and a header extension, then per row a field count and each field's length and bytes, then a
 * field count of -1. Bodies travel in it as raw bytes, where a query's text result would spell
 * them in hex, twice their size, and a parameter would cost a statement per row.
 */

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** The header: signature, flags (none), header extension length (none). */
export const COPY_HEADER = Buffer.concat([SIGNATURE, Buffer.alloc(8)]);
/** The end of the rows. */
export const COPY_TRAILER = Buffer.from([0xff, 0xff]);

/**
 * Writes the start of a row of `(bucket, body, start, bytes)` up to the bytes themselves:
 * `size` bytes at `at` in `target`.
 */
export function chunkRowStart(bucket: string, body: number): {
  size: number;
  write(target: Buffer, at: number, start: number, length: number): void;
} {
  const name = Buffer.from(bucket, 'utf8');
  return {
    size: 2 + 4 + name.byteLength + 12 + 12 + 4,
    write(target, at, start, length) {
      at = target.writeInt16BE(4, at);
      at = target.writeInt32BE(name.byteLength, at);
      at += name.copy(target, at);
      at = target.writeInt32BE(8, at);
      at = target.writeBigInt64BE(BigInt(body), at);
      at = target.writeInt32BE(8, at);
      at = target.writeBigInt64BE(BigInt(start), at);
      target.writeInt32BE(length, at);
    },
  };
}

/**
 * Takes a binary COPY of a body's rows `(start, bytes)` in order, cut anywhere (as the socket
 * delivers it), and copies the bytes `from` (inclusive) to `to` (exclusive) into pieces of at most
 * `pieceBytes`, each from `allocate`, which the caller may hand on without copying again. The
 * bytes fed are read during `feed` only, so they may live in a buffer the socket reuses. Stops at
 * the first gap: the pieces then hold fewer bytes than asked.
 */
export class RowRangeReceiver {
  readonly pieces: Buffer[] = [];
  /** Fixed-size parts (the header, a row's start) gathered across cuts. */
  readonly #small = Buffer.alloc(HEADER_BYTES);
  #gathered = 0;
  #step: Step = 'header';
  /** Bytes of the current header extension or row still to come. */
  #remaining = 0;
  /** The current row's offset in the body of its next byte. */
  #at = 0;
  #position: number;
  #piece: Buffer | undefined;
  #filled = 0;

  constructor(
    from: number,
    private readonly to: number,
    private readonly pieceBytes: number,
    private readonly allocate: (size: number) => Buffer,
  ) {
    this.#position = from;
  }

  feed(bytes: Uint8Array): void {
    for (let offset = 0; offset < bytes.byteLength && this.#step !== 'done'; ) {
      switch (this.#step) {
        case 'header':
          offset = this.#gather(bytes, offset, HEADER_BYTES);
          if (this.#gathered === HEADER_BYTES) {
            if (!this.#small.subarray(0, SIGNATURE.byteLength).equals(SIGNATURE)) throw new Error('The database sent a COPY in an unknown format.');
            this.#remaining = this.#small.readInt32BE(SIGNATURE.byteLength + 4);
            this.#next('extension');
          }
          break;
        case 'extension':
        case 'bytes':
          offset = this.#take(bytes, offset);
          break;
        case 'count':
          offset = this.#gather(bytes, offset, 2);
          if (this.#gathered === 2) this.#next(this.#small.readInt16BE(0) === -1 ? 'done' : 'row');
          break;
        case 'row':
          // The start's length (8), the start, the bytes' length.
          offset = this.#gather(bytes, offset, ROW_START_BYTES);
          if (this.#gathered === ROW_START_BYTES) {
            this.#at = Number(this.#small.readBigInt64BE(4));
            this.#remaining = this.#small.readInt32BE(12);
            const gap = this.#at > this.#position || this.#at + this.#remaining <= this.#position;
            this.#next(gap || this.#position >= this.to ? 'done' : 'bytes');
          }
          break;
      }
    }
  }

  /** The pieces, once the COPY has ended; the last one cut to what was filled. */
  finish(): Buffer[] {
    if (this.#step !== 'done') throw new Error('The database ended a COPY in the middle of a row.');
    const last = this.pieces.length - 1;
    if (this.#piece && this.#filled < this.#piece.byteLength) this.pieces[last] = this.#piece.subarray(0, this.#filled);
    return this.pieces;
  }

  #next(step: Step): void {
    this.#step = step;
    this.#gathered = 0;
    if (step === 'extension' && this.#remaining === 0) this.#step = 'count';
  }

  /** Gathers up to `size` bytes into #small; answers the offset after those taken. */
  #gather(bytes: Uint8Array, offset: number, size: number): number {
    const count = Math.min(size - this.#gathered, bytes.byteLength - offset);
    this.#small.set(bytes.subarray(offset, offset + count), this.#gathered);
    this.#gathered += count;
    return offset + count;
  }

  /** Passes over the extension, or copies the wanted part of a row's bytes. */
  #take(bytes: Uint8Array, offset: number): number {
    const count = Math.min(this.#remaining, bytes.byteLength - offset);
    if (this.#step === 'bytes') {
      // Of this row, the bytes from the position on and before `to` are wanted.
      const skip = Math.min(count, Math.max(0, this.#position - this.#at));
      const wanted = Math.min(count - skip, Math.max(0, this.to - this.#position));
      if (wanted > 0) this.#copy(bytes.subarray(offset + skip, offset + skip + wanted));
      this.#at += count;
    }
    this.#remaining -= count;
    if (this.#remaining === 0) this.#next(this.#step === 'extension' || this.#position < this.to ? 'count' : 'done');
    return offset + count;
  }

  #copy(bytes: Uint8Array): void {
    for (let offset = 0; offset < bytes.byteLength; ) {
      if (!this.#piece || this.#filled === this.#piece.byteLength) {
        this.#piece = this.allocate(Math.min(this.pieceBytes, this.to - this.#position));
        this.pieces.push(this.#piece);
        this.#filled = 0;
      }
      const count = Math.min(bytes.byteLength - offset, this.#piece.byteLength - this.#filled);
      this.#piece.set(bytes.subarray(offset, offset + count), this.#filled);
      this.#filled += count;
      this.#position += count;
      offset += count;
    }
  }
}

/** Where a receiver is in the COPY: what the next bytes are. */
type Step = 'header' | 'extension' | 'count' | 'row' | 'bytes' | 'done';

/** Signature, flags, header extension length. */
const HEADER_BYTES = SIGNATURE.byteLength + 8;
/** A row's field count is read first; then the start's length, the start and the bytes' length. */
const ROW_START_BYTES = 4 + 8 + 4;
