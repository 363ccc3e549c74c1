/**
 * What the edge answers a request its HTTP parser cannot take, before any step or rule sees it
 * (but with a ray id, as every answer has): 400 for what is not HTTP, 431 for headers beyond the
 * parser's limit, 414 when the request line alone is beyond it, 408 for a client too slow to send
 * its request. The platform's pages, then the connection is closed.
 */
import type { Socket } from 'node:net';
import { type EdgePageName, pageHtml, pageStatus } from '../edge-pages';
import { cfRay, newRayId } from './ray';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

export function answerMalformed(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const ray = cfRay(newRayId());
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.end(`HTTP/1.1 408 ${REASONS[408]}\r\nConnection: close\r\nContent-Length: 0\r\ncf-ray: ${ray}\r\n\r\n`);
    return;
  }
  let page: EdgePageName = 'badRequest';
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    // No line break yet: the request line itself is too long.
    page = (error.rawPacket ?? Buffer.alloc(0)).indexOf('\r\n') === -1 ? 'uriTooLong' : 'headersTooLarge';
  }
  const status = pageStatus(page);
  const body = Buffer.from(pageHtml(page, { host: '', rayId: ray, at: Date.now() }));
  socket.end(
    Buffer.concat([
      Buffer.from(
        `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Length: ${body.length}\r\n` +
          `Connection: close\r\ncf-ray: ${ray}\r\nServer: cloudflare\r\n\r\n`,
      ),
      body,
    ]),
  );
}
