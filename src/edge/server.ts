import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { limitConnections } from '../http-connections';
import { answerMalformed } from './malformed';
import { pipeline, type EdgeStages, type WorkerDispatcher } from './pipeline';
import { compileRoutes, type EdgeRoutes, type RoutingTable } from './routing';

export interface EdgeServerOptions {
  /** 0 picks a free port. */
  port: number;
  hostname: string;
  /** Timeouts and header limits of the HTTP server (the API's, so that every port holds slow clients alike). */
  serverOptions: ServerOptions;
  /** Connections open at once; at the limit a new one takes the place of the oldest without a request under way. */
  maxConnections: number;
  /** Runs the workers routes lead to. */
  workers: WorkerDispatcher;
  /** What is routed at the start; `setRoutes` changes it. */
  routes?: EdgeRoutes;
  stages?: EdgeStages;
  /** Hears of problems nobody else would (a failed step, a route pattern left out); never a secret. */
  report?: (line: string) => void;
}

export interface RunningEdge {
  url: string;
  port: number;
  /** Routes from now on by these (the next request sees them; requests in flight keep their route). */
  setRoutes(routes: EdgeRoutes): void;
  /** Stops taking connections and resolves once the requests in flight have been answered. */
  close(): Promise<void>;
}

/** Thrown when the edge cannot listen. */
export class EdgeStartError extends Error {
  override readonly name = 'EdgeStartError';
}

const NOTHING_ROUTED: EdgeRoutes = { workersDev: [], zones: [] };

/** The edge's port: requests routed by their host to deployed workers, zones' origins or the platform's answers. */
export async function startEdgeServer(options: EdgeServerOptions): Promise<RunningEdge> {
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  let table: RoutingTable = compileRoutes(options.routes ?? NOTHING_ROUTED, report);
  const steps = pipeline(options.stages ?? {}, () => table, options.workers, report);
  const server: Server = createServer(options.serverOptions, (request, response) => void steps.handle(request, response));
  server.on('clientError', answerMalformed);
  limitConnections(server, options.maxConnections);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new EdgeStartError(
          error.code === 'EADDRINUSE'
            ? `port ${options.port} on ${options.hostname} is already in use; choose another with --port`
            : `cannot listen on ${options.hostname}:${options.port}: ${error.message}`,
        ),
      ),
    );
    server.listen(options.port, options.hostname, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.hostname.includes(':') ? `[${options.hostname}]` : options.hostname;
  return {
    url: `http://${host}:${port}`,
    port,
    setRoutes(routes) {
      table = compileRoutes(routes, report);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
