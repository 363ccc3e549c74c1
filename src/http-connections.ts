// How every port of the platform (the API, the S3 endpoint, the edge, each worker) holds its
// clients' connections: the same timeouts and the same per-port limit, set by the HTTP_*
// variables (docs/server.md#slow-and-many-clients), so that a stalled or trickling client is cut
// alike wherever it connects and a crowd of them cannot take a port from well-behaved clients.
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Longest time to receive a request's headers (on TLS, the handshake's too): past it, 408 and the connection closed. */
  headersTimeoutMs: number;
  /** Longest time to receive a whole request, headers and body: a trickled body is cut off with 408. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /**
   * Connections one port holds at once. At the limit a new connection takes the place of the
   * oldest one that has no request under way (stalled, trickling its headers, or idle between
   * requests); only when every connection is under way is the new one refused.
   */
  maxConnections: number;
}

export const defaultConnectionLimits: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4096,
};

/** The environment variables of the limits; unset ones keep their defaults. */
export const connectionVariables = {
  HTTP_HEADERS_TIMEOUT_MS: 'headersTimeoutMs',
  HTTP_REQUEST_TIMEOUT_MS: 'requestTimeoutMs',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: 'keepAliveTimeoutMs',
  HTTP_MAX_CONNECTIONS: 'maxConnections',
} as const satisfies Record<string, keyof ConnectionLimits>;

/** The limits the HTTP_* variables set; throws an Error naming the variable that is wrong. */
export function connectionLimitsFrom(env: NodeJS.ProcessEnv): ConnectionLimits {
  const limits = { ...defaultConnectionLimits };
  for (const [name, option] of Object.entries(connectionVariables)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const n = Number(value);
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, not "${value}"`);
    limits[option] = n;
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(
      `HTTP_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}): the headers are part of the request`,
    );
  }
  return limits;
}

/**
 * Options for `http.createServer` / `https.createServer`. `GET /filters/validate-expr` carries its
 * expression in the URL, and Node's default 16 KiB header limit would answer a bare 431. Node
 * checks the request timeouts only every `connectionsCheckingInterval` (30 s by default), so it
 * follows the shortest timeout here. A TLS handshake not done within the headers timeout is cut
 * too (Node's default waits 120 s).
 */
export function connectionServerOptions(limits: ConnectionLimits) {
  return {
    maxHeaderSize: 160 * 1024,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, limits.headersTimeoutMs, limits.requestTimeoutMs)),
    handshakeTimeout: limits.headersTimeoutMs,
  } as const;
}

/** What a port's connection limit has done since it started (for tests and benchmarks). */
export interface ConnectionCounts {
  /** Connections open now, cut ones not counted. */
  open: number;
  /** Connections without a request under way now. */
  waiting: number;
  /** Connections closed to make room for a new one. */
  shed: number;
  /** New connections refused because every open one had a request under way. */
  refused: number;
}

/**
 * Holds at most `maxConnections` connections on `server`. Node's own `server.maxConnections`
 * refuses new connections once full, so 2,000 stalled clients would lock everyone else out; here
 * a new connection instead takes the place of the connection that has waited longest without a
 * request under way. A connection counts from its accept until it closes: one the server has cut
 * (a timeout, or shed here) stops counting at once.
 */
export function limitConnections(server: HttpServer | HttpsServer, maxConnections: number): { counts(): ConnectionCounts; upgraded(socket: Socket): void } {
  // Insertion order is age: a connection goes to the back whenever it starts waiting again.
  const waiting = new Set<Socket>();
  let open = 0;
  let shed = 0;
  let refused = 0;
  server.on('connection', (socket: Socket) => {
    open += 1;
    waiting.add(socket);
    socket.once('close', () => {
      open -= 1;
      waiting.delete(socket);
    });
    if (open <= maxConnections) return;
    const oldest = waiting.values().next().value!;
    if (oldest !== socket) {
      shed += 1;
      waiting.delete(oldest);
      oldest.destroy();
    } else {
      refused += 1;
      waiting.delete(socket);
      socket.destroy();
    }
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    // On TLS, the request's socket wraps the raw one the 'connection' event gave.
    const socket = rawSocket(request.socket);
    waiting.delete(socket);
    response.once('close', () => {
      if (!socket.destroyed) waiting.add(socket);
    });
  });
  return {
    counts: () => ({ open, waiting: waiting.size, shed, refused }),
    // An upgraded connection (a WebSocket) is in use for as long as it lives: never shed as idle.
    upgraded: (socket) => void waiting.delete(rawSocket(socket)),
  };
}

function rawSocket(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket })._parent ?? socket;
}
