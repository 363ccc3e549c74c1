/**
 * The edge: the platform's port for its users' traffic, routed by the Host header.
 *
 * - `startEdgeServer({ port, hostname, serverOptions, maxConnections, workers, routes, stages })`
 *   listens; `setRoutes` swaps what is routed (the next request sees it).
 * - Routing (`routing.ts`, `route-patterns.ts`): `<script>.<subdomain>.workers.dev` runs the
 *   script when its account owns the subdomain and its workers.dev switch is on; a zone's
 *   hostname runs the script of the most specific matching route pattern; a zone's hostname no
 *   route runs a worker for goes to the zone's origin; anything else gets the platform's answer
 *   for a hostname it does not serve.
 * - Steps (`pipeline.ts`): read the request, the `before` steps (they may answer), route,
 *   respond (a `WorkerDispatcher` runs workers; `origin` answers zones' other requests), the
 *   `after` steps once the answer is complete. The edge knows nothing of how workers run.
 * - The platform's answers (`answers.ts`): its 1xxx error codes in plain text.
 */
export { answerError, PlatformError, type PlatformErrorName } from './answers';
export { answered, type Exchange, type Outcome } from './exchange';
export { COLO, cfRay, newRayId } from './ray';
export { hostnameOf, type EdgeStages, type EdgeStep, type WorkerDispatcher, type WorkerResult } from './pipeline';
export { parseRoutePattern, type RoutePattern } from './route-patterns';
export { compileRoutes, WORKERS_DEV, type EdgeRoutes, type Route, type RoutingTable, type WorkerTarget, type ZoneRef } from './routing';
export { EdgeStartError, startEdgeServer, type EdgeServerOptions, type RunningEdge } from './server';
