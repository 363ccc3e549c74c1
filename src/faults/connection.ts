import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { DropPoint } from './rule-schema';

/** A success answer the mid-response drop starts to send (each face gives one in its own format). */
export interface PartialAnswer {
  headers: OutgoingHttpHeaders;
  body: string;
}

/**
 * Ends an exchange the way a failing network does, without the request having been served:
 * `before-response` closes the connection before a byte of the answer; `mid-response` sends the
 * status line and headers of a success that promises the whole body (Content-Length), then half
 * of it, then closes. Either way the client sees a network error, not an HTTP status.
 */
export function dropConnection(response: ServerResponse, point: DropPoint, answer: PartialAnswer): void {
  const socket = response.socket;
  if (!socket || socket.destroyed) return;
  if (point === 'before-response') {
    socket.destroy();
    return;
  }
  const body = Buffer.from(answer.body);
  response.writeHead(200, { ...answer.headers, 'content-length': String(body.length) });
  // Closed once the half is handed to the kernel, so the client surely receives it first.
  response.write(body.subarray(0, Math.floor(body.length / 2)), () => socket.destroy());
}
