import { entityTooLarge, type BucketAction } from './errors';
import { describe } from './keys';
import { streamLength, UNKNOWN_LENGTH_MESSAGE } from './known-length';

/**
 * The bytes of a write, in the one form they travel in from the caller (a binding's `put`, an S3
 * request) to the engine: in memory when small (`bytes`: stored without any stream machinery), or
 * as chunks pulled one at a time, with their size when known up front.
 */
export interface ByteSource {
  /** The bytes, when they are in memory; `chunks` then yields them too. */
  bytes?: Uint8Array;
  chunks: AsyncIterable<Uint8Array>;
  knownSize?: number;
  /** Releases the caller's stream when the bytes will not be read after all. */
  cancel(): Promise<void>;
}

const nothingToCancel = async () => {};

/**
 * Turns a put or part value into chunks: ReadableStream, ArrayBuffer, ArrayBufferView, string,
 * Blob, or (where `allowNull`) null / undefined for an empty object.
 */
export function byteSource(value: unknown, allowNull: boolean): ByteSource {
  if (value === null || value === undefined) {
    if (!allowNull) throw new TypeError(`A part value is required, not ${describe(value)}.`);
    return fixed(new Uint8Array(0));
  }
  if (typeof value === 'string') return fixed(Buffer.from(value, 'utf8'));
  if (value instanceof ArrayBuffer) return fixed(new Uint8Array(value));
  if (ArrayBuffer.isView(value)) return fixed(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
  if (value instanceof Blob) {
    const stream = value.stream();
    return { chunks: streamChunks(stream), knownSize: value.size, cancel: () => stream.cancel() };
  }
  if (value instanceof ReadableStream) {
    if (value.locked) throw new TypeError('This ReadableStream is currently locked to a reader.');
    const knownSize = streamLength(value);
    if (knownSize === undefined) throw new TypeError(UNKNOWN_LENGTH_MESSAGE);
    return { chunks: streamChunks(value), knownSize, cancel: () => value.cancel() };
  }
  throw new TypeError(
    `The value must be a ReadableStream, ArrayBuffer, ArrayBufferView, string, Blob${allowNull ? ' or null' : ''}, not ${describe(value)}.`,
  );
}

/** Bytes in memory as a source. */
export function fixed(bytes: Uint8Array): ByteSource {
  return {
    bytes,
    chunks: (async function* () {
      if (bytes.byteLength > 0) yield bytes;
    })(),
    knownSize: bytes.byteLength,
    cancel: nothingToCancel,
  };
}

async function* streamChunks(stream: ReadableStream): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      if (value instanceof Uint8Array) yield value;
      else if (ArrayBuffer.isView(value)) yield new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      else if (value instanceof ArrayBuffer) yield new Uint8Array(value);
      else throw new TypeError(`Stream chunks must be ArrayBuffer or ArrayBufferView, not ${describe(value)}.`);
    }
  } finally {
    // Stopped early (an error here or downstream): tell the producer nobody will read on.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Passes chunks through, hashing them and refusing more than `limit` bytes in total. */
export async function* metered(
  chunks: AsyncIterable<Uint8Array>,
  hasher: { update(chunk: Uint8Array): void },
  limit: number,
  action: BucketAction,
): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > limit) throw entityTooLarge(action);
    hasher.update(chunk);
    yield chunk;
  }
}
