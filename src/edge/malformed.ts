/**
 * What the edge answers a request its HTTP parser cannot take, before any step or rule sees it
 * (but with a ray id, as every answer has): 400 for what is not HTTP, 431 for headers beyond the
 * parser's limit, 414 when the request line alone is beyond it, 408 for a client too slow to send
 * its request. The platform's pages, then the connection is closed.
 */
import type { Socket } from 'node:net';
import { type EdgePageName, pageHtml, pageStatus } from '../edge-pages';
import { cfRay, newRayId } from './ray';

/** How long a client has to read the answer once it is sent; then the connection is cut whether it closed its side or not. */
const LINGER_MS = 1_000;

/**
 * Sends the answer and closes the connection: the client gets a moment to read it, then the
 * socket is destroyed even if the client never closes its side (the server keeps connections
 * half-open, so a stalled client would otherwise hold its descriptor).
 */
function answerAndClose(socket: Socket, answer: string | Buffer): void {
  socket.end(answer);
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

export function answerMalformed(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const ray = cfRay(newRayId());
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answerAndClose(socket, `HTTP/1.1 408 ${REASONS[408]}\r\nConnection: close\r\nContent-Length: 0\r\ncf-ray: ${ray}\r\n\r\n`);
    return;
  }
  let page: EdgePageName = 'badRequest';
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // No line break yet: the request line itself is too long.
    page = (error.rawPacket ?? Buffer.alloc(0)).indexOf('\r\n') === -1 ? 'uriTooLong' : 'headersTooLarge';
  }
  const status = pageStatus(page);
  const body = Buffer.from(pageHtml(page, { host: '', rayId: ray, at: Date.now() }));
  answerAndClose(
    socket,
    Buffer.concat([
      Buffer.from(
        `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Length: ${body.length}\r\n` +
          `Connection: close\r\ncf-ray: ${ray}\r\nServer: cloudflare\r\n\r\n`,
      ),
      body,
    ]),
  );
}
