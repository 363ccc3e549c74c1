import type { OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectionServerOptions, limitConnections, type ConnectionLimits } from '../../http-connections';
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
  connections: ConnectionLimits,
): Promise<Listening> {
  // Loaded when a worker first listens: the adapter reads the fetch globals (Headers, Request,
  // Response) as it loads, which loads Node's whole fetch implementation, ~30 ms of every start
  // of a platform that runs no worker.
  const { createAdaptorServer } = await import('@hono/node-server');
  // The worker gets the runtime's own Request and Response classes, not the adapter's lighter
  // stand-ins, so code that checks `instanceof Response` behaves as on the platform.
  const server = createAdaptorServer({
    fetch: async (request, { outgoing }) => {
      const response = await handler(request);
      if (response.body !== null && !response.headers.has('content-type')) keepWithoutContentType(outgoing as ServerResponse);
      return response;
    },
    overrideGlobalObjects: false,
    serverOptions: connectionServerOptions(connections),
  }) as Server;
  limitConnections(server, connections.maxConnections);
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

/**
 * The adapter labels every body without a Content-Type as text/plain. The platform sends such a
 * response as the worker made it, and for an object stored without a content type (bytes of
 * any kind) the label would be wrong, so it is taken off again for this one response.
 */
function keepWithoutContentType(outgoing: ServerResponse): void {
  const writeHead = outgoing.writeHead;
  outgoing.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const headers = args.find((arg): arg is OutgoingHttpHeaders => typeof arg === 'object' && arg !== null && !Array.isArray(arg));
    if (headers) delete headers['content-type'];
    return (writeHead as (...args: unknown[]) => ServerResponse).apply(this, args);
  } as typeof outgoing.writeHead;
}
