/**
 * The bodies a proxy hands on, shared by the edge's two (to a zone's origin, to a deployed
 * worker): what costs a write less where the body allows it.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';

/** Answers up to this size (by their content-length) are gathered and written in one go. */
const SMALL_ANSWER_BYTES = 64 * 1024;

/**
 * Sends a request's body on: a request without one (most GETs) goes at once, its head in one
 * write; one with a body streams through.
 */
export function sendRequestBody(request: IncomingMessage, outgoing: ClientRequest): void {
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    request.resume();
    outgoing.end();
  } else {
    request.pipe(outgoing);
  }
}

/**
 * Gathers an answer its content-length says is small, and hands its bytes to `whole` once it has
 * ended, so that the head and the body go to the client in one write, not three. False, with
 * nothing done, for a larger answer or one of unknown length (to be streamed).
 */
export function gatherSmallAnswer(answer: IncomingMessage, whole: (body: Buffer) => void): boolean {
  if (!(Number(answer.headers['content-length']) <= SMALL_ANSWER_BYTES)) return false;
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => chunks.push(chunk));
  answer.on('end', () => whole(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
  return true;
}
