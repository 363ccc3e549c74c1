/**
 * The start of a request's body, for the rules that inspect it, read without taking it from
 * whoever answers the request: what was read is put back at the front of the stream (the worker
 * or the origin then reads the whole body as sent). Reading stops at the inspection limit; a
 * larger body's size is its Content-Length (or what was read, when sent in chunks).
 */
import type { IncomingMessage } from 'node:http';

export interface BodyStart {
  /** The first bytes, up to the limit, as UTF-8 text. */
  text: string;
  /** The whole body's size as far as known: Content-Length, or the bytes read. */
  size: number;
}

/** Whether the request says it carries a body at all. */
export function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function readBodyStart(request: IncomingMessage, limit: number): Promise<BodyStart> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let read = 0;
    const finish = () => {
      request.off('readable', onReadable);
      request.off('end', finish);
      request.off('error', reject);
      const start = Buffer.concat(chunks);
      // Back at the front, in the same turn as the last read: the stream has not ended for its next reader.
      if (start.length > 0) request.unshift(start);
      resolve({ text: start.subarray(0, limit).toString('utf8'), size: Number.isFinite(declared) ? declared : read });
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = request.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        read += chunk.length;
        if (read >= limit) return finish();
      }
      // The whole body is in (the parser is done) though its end is not emitted yet: put back now.
      if (request.complete) finish();
    };
    request.on('readable', onReadable);
    request.once('end', finish);
    request.once('error', reject);
  });
}
