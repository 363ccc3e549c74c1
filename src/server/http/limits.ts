/** Connection limits of the HTTP server in front of the app (docs/server.md: HTTP_* variables). */
export interface HttpLimits {
  /** Longest time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Longest time to receive a whole request, headers and body: a trickled body is cut off with 408. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Connections open at once; further ones are refused until one closes. */
  maxConnections: number;
}

export const defaultHttpLimits: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
};

/**
 * Options for the HTTP server in front of the app. `GET /filters/validate-expr` carries its
 * expression in the URL, and Node's default 16 KiB header limit would answer a bare 431. Node
 * checks the request timeouts only every `connectionsCheckingInterval` (30 s by default), so it
 * follows the shortest timeout here.
 */
export function httpServerOptionsFor(limits: HttpLimits) {
  return {
    maxHeaderSize: 160 * 1024,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, limits.headersTimeoutMs, limits.requestTimeoutMs)),
  } as const;
}
