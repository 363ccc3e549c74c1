/**
 * The worker host: serves a module worker (`export default { fetch(request, env, ctx) }`) over
 * HTTP with the buckets, vars and secrets of its configuration in `env`.
 *
 * - `startWorker({ configFile, dataDir, port, hostname, environment, report })` checks the
 *   configuration, secrets and buckets, imports the worker and listens; `close()` stops it
 *   cleanly (requests in flight and `ctx.waitUntil` work finish, buckets are closed).
 * - An exception in the worker, or a fetch result that is not a Response, answers 500 and is
 *   reported (never to the client).
 * - `WorkerStartError`: the worker module does not load or has no fetch handler; the port is taken.
 */
export { DEFAULT_DATA_DIR, DEFAULT_PORT, startWorker, type RunningWorker, type WorkerHostOptions } from './start-worker';
export type { ExecutionContext, WorkerModule } from './worker-module';
export { WorkerStartError } from './worker-start-error';
