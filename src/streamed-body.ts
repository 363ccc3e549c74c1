// The one writer of streamed response bodies: the API's downloads (src/server), the S3 endpoint's
// objects (src/s3) and the bucket binding's reads served to deployed workers (src/runtime) send a
// body read from storage through it.
import type { ServerResponse } from 'node:http';

/**
 * Writes `body` to a response whose head is sent, chunk by chunk, reading the next chunk only once
 * the socket took this one (memory holds a chunk, not the object), then ends the response.
 *
 * Never rejects. When the client goes away, or the body fails mid-way, the reading is cancelled and
 * the connection destroyed: the status is sent, so the answer cannot say so any more, and a client
 * sees a body cut short rather than a whole one. `onFailure` hears of the body's failures, not of
 * clients leaving.
 */
export async function writeStreamedBody(
  outgoing: ServerResponse,
  body: ReadableStream<Uint8Array>,
  onFailure: (error: unknown) => void,
): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!outgoing.write(value)) await drained(outgoing);
    }
    outgoing.end();
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (!outgoing.destroyed) onFailure(error);
    outgoing.destroy();
  }
}

/**
 * Resolves when the response can take more; rejects when the connection closes first, or closed
 * while the chunk was being read (its close event is gone then, and no drain will come).
 */
function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    if (outgoing.destroyed) {
      reject(new Error('the client closed the connection'));
      return;
    }
    const done = (error?: Error) => {
      outgoing.off('drain', onDrain);
      outgoing.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new Error('the client closed the connection'));
    outgoing.once('drain', onDrain);
    outgoing.once('close', onClose);
  });
}
