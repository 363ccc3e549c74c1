import type pg from 'pg';
import type { LeanSocket, Tap } from './lean-socket';

/** The messages of a COPY TO STDOUT (PostgreSQL's protocol, "COPY Operations"), by their first byte. */
const COPY_OUT_RESPONSE = 0x48; // H
const COPY_DATA = 0x64; // d
const COPY_DONE = 0x63; // c
/** Messages the server may send at any time; during the COPY they are passed over. */
const ASYNCHRONOUS = new Set([0x4e /* N: notice */, 0x53 /* S: parameter status */, 0x41 /* A: notification */]);
/** A message's type byte and its length. */
const MESSAGE_HEAD_BYTES = 5;

/**
 * A COPY ... TO STDOUT on a lean socket: its data goes to `feed` as it arrives, copied from the
 * socket's own buffer. The driver sees only what follows the COPY (its completion, or an error
 * the server sent instead) and reports it here as for any query.
 */
export class CopyOutQuery implements pg.Submittable, Tap {
  readonly #head = Buffer.alloc(MESSAGE_HEAD_BYTES);
  #gathered = 0;
  /** Bytes of the current message's body still to come. */
  #remaining = 0;
  #done = false;
  /** What `feed` threw: the COPY is read to its end, then the query fails with it. */
  #failure: unknown = null;
  #socket: LeanSocket | null = null;
  readonly #settled: Promise<void>;
  #resolve!: () => void;
  #reject!: (error: unknown) => void;

  constructor(
    private readonly text: string,
    private readonly feed: (bytes: Buffer) => void,
  ) {
    this.#settled = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Settles when the server is ready for the next statement. */
  get finished(): Promise<void> {
    return this.#settled;
  }

  get done(): boolean {
    return this.#done;
  }

  submit(connection: pg.Connection): void {
    this.#socket = connection.stream as LeanSocket;
    this.#socket.tap(this);
    (connection as unknown as { query(text: string): void }).query(this.text);
  }

  take(bytes: Buffer): number {
    let offset = 0;
    while (offset < bytes.byteLength && !this.#done) {
      if (this.#gathered < MESSAGE_HEAD_BYTES) {
        if (this.#gathered === 0 && !isCopyMessage(bytes[offset]!)) {
          // An error (or the unexpected): the driver reads it, and reports it to this query.
          this.#done = true;
          break;
        }
        const count = Math.min(MESSAGE_HEAD_BYTES - this.#gathered, bytes.byteLength - offset);
        bytes.copy(this.#head, this.#gathered, offset, offset + count);
        this.#gathered += count;
        offset += count;
        if (this.#gathered === MESSAGE_HEAD_BYTES) this.#remaining = this.#head.readInt32BE(1) - 4;
      } else {
        const count = Math.min(this.#remaining, bytes.byteLength - offset);
        if (this.#head[0] === COPY_DATA && this.#failure === null) {
          try {
            this.feed(bytes.subarray(offset, offset + count));
          } catch (error) {
            this.#failure = error;
          }
        }
        this.#remaining -= count;
        offset += count;
      }
      if (this.#gathered === MESSAGE_HEAD_BYTES && this.#remaining === 0) {
        this.#done = this.#head[0] === COPY_DONE;
        this.#gathered = 0;
      }
    }
    return offset;
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    if (this.#failure !== null) this.#reject(this.#failure);
    else if (!this.#done) this.#reject(new Error('The database ended a COPY before its end.'));
    else this.#resolve();
  }

  handleError(error: Error): void {
    this.#socket?.untap(this);
    this.#done = true;
    this.#failure = null;
    this.#reject(error);
  }
}

function isCopyMessage(type: number): boolean {
  return type === COPY_OUT_RESPONSE || type === COPY_DATA || type === COPY_DONE || ASYNCHRONOUS.has(type);
}
