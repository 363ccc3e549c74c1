import { pathToFileURL } from 'node:url';
import { WorkerStartError } from './worker-start-error';

/** The `ctx` of a fetch handler. */
export interface ExecutionContext {
  /** Keeps work going after the response; the host waits for it before it stops. */
  waitUntil(promise: Promise<unknown>): void;
  /**
   * On the platform, lets an exception fall through to the origin server. There is no origin
   * behind this host, so an exception answers 500 whether or not this was called.
   */
  passThroughOnException(): void;
  props: Record<string, unknown>;
}

/** A module worker: `export default { fetch(request, env, ctx) }`. */
export interface WorkerModule<Env = Record<string, unknown>> {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
}

/** Imports the module worker at `main` and checks that its default export has a fetch handler. */
export async function importWorker(main: string): Promise<WorkerModule> {
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(main).href)) as { default?: unknown };
  } catch (error) {
    throw new WorkerStartError(`cannot load the worker ${main}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const worker = module.default as Partial<WorkerModule> | undefined;
  if (typeof worker !== 'object' || worker === null || typeof worker.fetch !== 'function') {
    throw new WorkerStartError(
      `${main} is not a module worker: it must export default { fetch(request, env, ctx) { ... } }`,
    );
  }
  return worker as WorkerModule;
}
