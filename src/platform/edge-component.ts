/**
 * The edge as a component of the platform: deployed workers answering on one port, routed by
 * Host. The HTTP server holds slow clients as the API's does (the same timeouts and connection
 * limit), so that one setting moves every port.
 */
import { startEdgeServer, type EdgeRoutes, type EdgeStages, type RunningEdge, type WorkerDispatcher } from '../edge';
import { connectionServerOptions, type ConnectionLimits } from '../http-connections';
import type { EdgeSettings } from './settings';

export interface EdgeComponentOptions {
  settings: EdgeSettings;
  /** Every port's connection limits (the HTTP_* variables). */
  limits: ConnectionLimits;
  workers: WorkerDispatcher;
  routes?: EdgeRoutes;
  stages?: EdgeStages;
  report: (line: string) => void;
}

export async function startEdgeComponent(options: EdgeComponentOptions): Promise<RunningEdge> {
  const { settings, limits } = options;
  return startEdgeServer({
    port: settings.port,
    hostname: settings.host,
    serverOptions: connectionServerOptions(limits),
    maxConnections: limits.maxConnections,
    workers: options.workers,
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.stages ? { stages: options.stages } : {}),
    report: options.report,
  });
}
