/** The worker host cannot start: a worker module that does not load or has no fetch handler, a port in use. */
export class WorkerStartError extends Error {
  override readonly name = 'WorkerStartError';
}
