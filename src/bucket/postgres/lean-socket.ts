import net from 'node:net';

/** Bytes a connection reads at once, into the one buffer it keeps. */
const READ_BUFFER_BYTES = 64 * 1024;

/** Takes a connection's reads for a while: a COPY whose bytes it copies to where they go. */
export interface Tap {
  /** Takes what it wants of `bytes` (valid during the call only); answers how many it took. */
  take(bytes: Buffer): number;
  /** True once it wants no more: the bytes it did not take, and every later read, go to the driver. */
  readonly done: boolean;
}

/**
 * A database connection's socket that reads into one buffer of its own. An ordinary socket gets a
 * new buffer per read, which the collector reclaims late: reading a 1 GiB body through one grew
 * the process by about 90 MiB. The driver gets a copy of each read (its parser may keep one), but
 * only after a tap, while one is set, has taken the bytes it wants straight from the buffer.
 */
export class LeanSocket extends net.Socket {
  #tap: Tap | null = null;

  constructor() {
    const buffer = Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
    const self: { socket?: LeanSocket } = {};
    super({
      onread: {
        buffer,
        callback: (size: number) => {
          self.socket!.#received(buffer.subarray(0, size));
          return true;
        },
      },
    });
    self.socket = this;
  }

  /** Hands the reads to `tap` until it is done or `untap` is called. */
  tap(tap: Tap): void {
    this.#tap = tap;
  }

  untap(tap: Tap): void {
    if (this.#tap === tap) this.#tap = null;
  }

  #received(bytes: Buffer): void {
    let rest = bytes;
    const tap = this.#tap;
    if (tap) {
      rest = bytes.subarray(tap.take(bytes));
      if (!tap.done) return;
      this.#tap = null;
    }
    if (rest.byteLength > 0) this.emit('data', Buffer.from(rest));
  }
}

/**
 * The socket for a connection node-postgres opens (its `stream` option): lean, unless the
 * connection is to be encrypted, whose TLS layer reads the socket its own way.
 */
export function connectionSocket(config: { ssl?: unknown }): net.Socket {
  return config.ssl ? new net.Socket() : new LeanSocket();
}
