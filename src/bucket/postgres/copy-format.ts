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
 * Copies the bytes `from` (inclusive) to `to` (exclusive) of a body out of a binary COPY of its
 * rows `(start, bytes)` in order, into buffers of at most `pieceBytes` each, every one owning its
 * memory (a byte stream then hands it on without copying it again). Stops at the first gap: the
 * pieces then hold fewer bytes than asked.
 */
export function copyRowsRange(received: Buffer[], from: number, to: number, pieceBytes: number): Buffer[] {
  const data = new ByteCursor(received);
  data.skip(SIGNATURE.byteLength + 4);
  data.skip(data.int32());
  const pieces: Buffer[] = [];
  let position = from;
  let piece: Buffer | undefined;
  let filled = 0;
  while (position < to && data.int16() !== -1) {
    data.skip(4);
    const start = Number(data.int64());
    const length = data.int32();
    if (start > position || start + length <= position) break;
    data.skip(position - start);
    const end = Math.min(start + length, to);
    while (position < end) {
      if (!piece || filled === piece.byteLength) {
        piece = Buffer.allocUnsafeSlow(Math.min(pieceBytes, to - position));
        pieces.push(piece);
        filled = 0;
      }
      const count = Math.min(end - position, piece.byteLength - filled);
      data.copy(piece, filled, count);
      filled += count;
      position += count;
    }
    data.skip(start + length - end);
  }
  // A gap leaves the last piece short of its size: only what was filled counts.
  if (piece && filled < piece.byteLength) pieces[pieces.length - 1] = piece.subarray(0, filled);
  return pieces;
}

/** Reads in order across the buffers of a COPY as received. */
class ByteCursor {
  #chunk = 0;
  #offset = 0;

  constructor(private readonly chunks: Buffer[]) {}

  int16(): number {
    return this.#small(2).readInt16BE(0);
  }

  int32(): number {
    return this.#small(4).readInt32BE(0);
  }

  int64(): bigint {
    return this.#small(8).readBigInt64BE(0);
  }

  skip(count: number): void {
    this.#move(count, () => {});
  }

  /** Copies the next `count` bytes into `target` at `at`. */
  copy(target: Buffer, at: number, count: number): void {
    this.#move(count, (chunk, offset, length) => {
      chunk.copy(target, at, offset, offset + length);
      at += length;
    });
  }

  #small(count: number): Buffer {
    const chunk = this.chunks[this.#chunk];
    if (chunk && this.#offset + count <= chunk.byteLength) {
      const view = chunk.subarray(this.#offset, this.#offset + count);
      this.skip(count);
      return view;
    }
    const gathered = Buffer.alloc(count);
    this.copy(gathered, 0, count);
    return gathered;
  }

  #move(count: number, visit: (chunk: Buffer, offset: number, length: number) => void): void {
    while (count > 0) {
      const chunk = this.chunks[this.#chunk];
      if (!chunk) throw new Error('The database ended a COPY in the middle of a row.');
      const length = Math.min(count, chunk.byteLength - this.#offset);
      visit(chunk, this.#offset, length);
      this.#offset += length;
      count -= length;
      if (this.#offset === chunk.byteLength) {
        this.#chunk++;
        this.#offset = 0;
      }
    }
  }
}
