// Streams whose length is known before they are read. The platform stores a stream only when it
// knows how many bytes will come: a request or response body with a length, or the readable half
// of a FixedLengthStream. Any other stream is refused before a byte is read, so worker code that
// streams a body of unknown length fails here as it would in production.

const lengths = new WeakMap<ReadableStream, number>();

export const UNKNOWN_LENGTH_MESSAGE =
  'Provided readable stream must have a known length (request/response body or readable half of FixedLengthStream)';

/**
 * Records that `stream` will deliver exactly `length` bytes. A host calls it for the body of an
 * incoming request that has a `Content-Length` (the HTTP layer holds the body to that length).
 */
export function declareStreamLength(stream: ReadableStream, length: number): void {
  lengths.set(stream, requireLength(length));
}

/** The length declared for a stream, if any. */
export function streamLength(stream: ReadableStream): number | undefined {
  return lengths.get(stream);
}

function requireLength(length: unknown): number {
  const value = typeof length === 'bigint' ? Number(length) : length;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`A stream length must be a whole number of bytes, 0 or more, not ${String(length)}.`);
  }
  return value;
}

/**
 * The platform's FixedLengthStream: an identity transform of bytes whose readable half has a
 * known length. Writing more bytes than announced, or closing before all of them came, errors
 * the stream with the platform's messages.
 */
export class FixedLengthStream extends TransformStream<ArrayBuffer | ArrayBufferView, Uint8Array> {
  constructor(expectedLength: number | bigint) {
    const length = requireLength(expectedLength);
    let seen = 0;
    super({
      transform(chunk, controller) {
        const bytes = toBytes(chunk);
        seen += bytes.byteLength;
        if (seen > length) throw new TypeError('Attempt to write too many bytes through a FixedLengthStream.');
        controller.enqueue(bytes);
      },
      flush() {
        if (seen < length) throw new TypeError('FixedLengthStream did not see all expected bytes before close().');
      },
    });
    lengths.set(this.readable, length);
  }
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError('This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side.');
}
