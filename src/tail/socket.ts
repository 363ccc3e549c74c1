/**
 * The WebSocket end of live tails, on the API's port: `GET /tails/<id>` upgraded with the
 * subprotocol `trace-v1` (what wrangler asks for). Only the holder of a tail's URL connects (its
 * id is 128 random bits, and names one script of one account); what is not a live tail, or not
 * asked for in `trace-v1`, is answered with a plain HTTP error before any upgrade. After the
 * upgrade the client may send `{"debug": false}` (wrangler does); a trace is one text message,
 * and pings are answered with pongs (wrangler's keep-alive).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LiveTails, TailSession } from './sessions';

export const TRACE_PROTOCOL = 'trace-v1';
const PATH = /^\/tails\/([0-9a-f]{32})$/;

function refuse(socket: Duplex, status: number, reason: string, message: string): void {
  const body = `${message}\n`;
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** What the client sends: `{"debug": false}` and nothing else. */
function onClientMessage(client: WebSocket, data: unknown, isBinary: boolean): void {
  let message: unknown;
  try {
    message = isBinary ? undefined : JSON.parse(String(data));
  } catch {
    message = undefined;
  }
  if (message !== null && typeof message === 'object' && !Array.isArray(message) && Object.keys(message).every((key) => key === 'debug')) {
    const debug = (message as { debug?: unknown }).debug;
    if (debug === undefined || debug === false) return;
    if (debug === true) {
      client.close(1008, 'debug mode (traces the filters drop, sent anyway) is not served here');
      return;
    }
  }
  client.close(1003, 'a tail takes one message: {"debug": false}');
}

/** The upgrade handler of the API's server: true when the request was a tail's (answered here), false otherwise. */
export function tailUpgrades(tails: LiveTails): { upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean; close(): void } {
  const server = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: 64 * 1024,
    handleProtocols: (protocols) => (protocols.has(TRACE_PROTOCOL) ? TRACE_PROTOCOL : false),
    // wrangler sends its one message unmasked (`mask: false`), which the platform takes; ws, as
    // RFC 6455 has servers do, would close the connection (patches/ws+8.21.0.patch adds the option).
    ...{ allowUnmaskedFrames: true },
  });
  return {
    upgrade(request, socket, head) {
      const path = (request.url ?? '').split('?')[0]!;
      if (!path.startsWith('/tails/')) return false;
      socket.on('error', () => socket.destroy());
      const match = PATH.exec(path);
      const session = match ? tails.session(match[1]!) : undefined;
      if (!session) {
        refuse(socket, 404, 'Not Found', 'No such tail: it was never created, was deleted, or expired.');
        return true;
      }
      const protocols = String(request.headers['sec-websocket-protocol'] ?? '').split(',').map((protocol) => protocol.trim());
      if (!protocols.includes(TRACE_PROTOCOL)) {
        refuse(socket, 400, 'Bad Request', `A tail is read in the WebSocket subprotocol ${TRACE_PROTOCOL} (Sec-WebSocket-Protocol: ${TRACE_PROTOCOL}).`);
        return true;
      }
      if (request.headers.upgrade?.toLowerCase() !== 'websocket') {
        refuse(socket, 400, 'Bad Request', 'A tail is read over a WebSocket.');
        return true;
      }
      void connect(tails, server, session, request, socket, head);
      return true;
    },
    close() {
      server.close();
    },
  };
}

async function connect(tails: LiveTails, server: WebSocketServer, session: TailSession, request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  let admitted: boolean;
  try {
    admitted = await tails.admit(session);
  } catch {
    refuse(socket, 503, 'Service Unavailable', 'The script could not be traced; try again.');
    tails.abandon(session);
    return;
  }
  if (!admitted) {
    refuse(socket, 409, 'Conflict', 'This tail already has a client (or was deleted meanwhile): create another tail.');
    tails.abandon(session);
    return;
  }
  if (socket.destroyed) {
    tails.abandon(session);
    return;
  }
  server.handleUpgrade(request, socket, head, (client) => {
    client.on('message', (data, isBinary) => onClientMessage(client, data, isBinary));
    client.on('error', () => client.terminate());
    tails.attach(session, client);
  });
}
