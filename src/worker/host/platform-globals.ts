import { declareStreamLength, FixedLengthStream, streamLength } from '../../bucket';

/**
 * What the platform gives workers beyond the Web APIs Node already has, installed once before
 * the worker module is loaded (the host process serves that one worker):
 * - `FixedLengthStream`, never over a definition that is already there;
 * - bodies with a known length: the platform stores a stream only when it knows how many bytes
 *   will come. A request or response body whose `Content-Length` gives it (an incoming request,
 *   a `fetch` response not content-encoded) counts as known here too; a chunked one does not,
 *   and storing it is refused here as there.
 */
export function installPlatformGlobals(): void {
  if (!('FixedLengthStream' in globalThis)) {
    Object.defineProperty(globalThis, 'FixedLengthStream', { value: FixedLengthStream, writable: true, configurable: true });
  }
  for (const prototype of [Request.prototype, Response.prototype]) declareLengthOnRead(prototype);
}

const patched = new WeakSet<object>();

function declareLengthOnRead(prototype: Request | Response): void {
  const descriptor = Object.getOwnPropertyDescriptor(prototype, 'body');
  const read = descriptor?.get;
  if (!descriptor || !read || patched.has(prototype)) return;
  patched.add(prototype);
  Object.defineProperty(prototype, 'body', {
    ...descriptor,
    get(this: Request | Response) {
      const body = read.call(this) as ReadableStream | null;
      if (body !== null && streamLength(body) === undefined) {
        const length = announcedLength(this.headers);
        if (length !== undefined) declareStreamLength(body, length);
      }
      return body;
    },
  });
}

/** The Content-Length of a body delivered as sent (an encoded one is decoded on the way in). */
function announcedLength(headers: Headers): number | undefined {
  const header = headers.get('content-length');
  if (header === null || !/^\d+$/.test(header) || headers.has('content-encoding')) return undefined;
  return Number(header);
}
