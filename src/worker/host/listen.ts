import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { WorkerStartError } from './worker-start-error';

export interface Listening {
  url: string;
  port: number;
  /** Stops accepting connections and resolves once the requests in flight have been answered. */
  close(): Promise<void>;
}

/**
 * Serves a fetch handler over HTTP/1.1 through the Node adapter, which streams request and
 * response bodies both ways (nothing is buffered whole).
 */
export async function listen(
  handler: (request: Request) => Promise<Response>,
  port: number,
  hostname: string,
): Promise<Listening> {
  // The worker gets the runtime's own Request and Response classes, not the adapter's lighter
  // stand-ins, so code that checks `instanceof Response` behaves as on the platform.
  const server = createAdaptorServer({ fetch: handler, overrideGlobalObjects: false }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new WorkerStartError(
          error.code === 'EADDRINUSE'
            ? `port ${port} on ${hostname} is already in use; choose another with --port`
            : `cannot listen on ${hostname}:${port}: ${error.message}`,
        ),
      ),
    );
    server.listen(port, hostname, resolve);
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://${hostname}:${actualPort}`,
    port: actualPort,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
