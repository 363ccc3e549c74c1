import { openBucketCatalogue, type DatabasePoolSettings } from '../../bucket';
import { defaultConnectionLimits, type ConnectionLimits } from '../../http-connections';
import { loadWorkerConfig, requireExistingBuckets, resolveSecrets, type WorkerConfig } from '../config';
import { buildEnvironment } from './environment';
import { listen } from './listen';
import { PendingWork } from './pending-work';
import { installPlatformGlobals } from './platform-globals';
import { importWorker, type WorkerModule } from './worker-module';

export interface WorkerHostOptions {
  /** The worker configuration file (`.toml`, `.json`, `.jsonc`). */
  configFile: string;
  /** Where the buckets live (the catalogue of `<dataDir>`); `./data` by default. */
  dataDir?: string;
  /** A PostgreSQL URL: the buckets are that database's instead (see `openBucketCatalogue`). */
  databaseUrl?: string | undefined;
  /** The database's connection pool (with `databaseUrl` only). */
  databasePool?: DatabasePoolSettings;
  /** Timeouts and the connection limit of the port (the HTTP_* variables); their defaults when absent. */
  connections?: ConnectionLimits;
  /** 8787 by default; 0 picks a free port. */
  port?: number;
  /** 127.0.0.1 by default. */
  hostname?: string;
  /** Where required secrets are looked up first; `process.env` by default. */
  environment?: NodeJS.ProcessEnv;
  /** Hears of failures the worker did not answer itself (exceptions, failed waitUntil work). */
  report?: (line: string) => void;
}

export interface RunningWorker {
  config: WorkerConfig;
  url: string;
  port: number;
  /** One line per `env` entry: what it is and where it came from. */
  summary: string[];
  /**
   * Stops accepting requests, lets those in flight and the `waitUntil` work finish, then closes
   * the buckets.
   */
  close(): Promise<void>;
}

export const DEFAULT_DATA_DIR = './data';
export const DEFAULT_PORT = 8787;

/**
 * Serves the module worker of a configuration file with its bindings: checks the file, the
 * secrets and the buckets first, so a mistake stops the start with a message instead of failing
 * requests later.
 */
export async function startWorker(options: WorkerHostOptions): Promise<RunningWorker> {
  const { dataDir = DEFAULT_DATA_DIR, port = DEFAULT_PORT, hostname = '127.0.0.1' } = options;
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  const config = loadWorkerConfig(options.configFile);
  const secrets = resolveSecrets(config, options.environment ?? process.env);
  const catalogue = await openBucketCatalogue({ dataDir, databaseUrl: options.databaseUrl, ...(options.databasePool ? { pool: options.databasePool } : {}) });
  try {
    // Bucket names are per account: the configuration's `account_id` says whose (the data
    // directory's home account when absent).
    const buckets = catalogue.account(config.accountId);
    const names = (await buckets.list()).buckets.map((bucket) => bucket.name);
    requireExistingBuckets(config, names, dataDir, options.databaseUrl ? catalogue.location : undefined);
    const { env, summary } = await buildEnvironment(config, secrets, buckets);
    installPlatformGlobals();
    const worker = await importWorker(config.main);
    const pending = new PendingWork((error) => report(`ctx.waitUntil work failed: ${describeError(error)}`));
    const server = await listen(fetchHandler(worker, env, pending, report), port, hostname, options.connections ?? defaultConnectionLimits);
    return {
      config,
      url: server.url,
      port: server.port,
      summary,
      close: async () => {
        await server.close();
        await pending.settled();
        await catalogue.close();
      },
    };
  } catch (error) {
    await catalogue.close();
    throw error;
  }
}

/** Calls the worker; what it throws, or returns that is not a Response, answers a bare 500. */
function fetchHandler(
  worker: WorkerModule,
  env: Record<string, unknown>,
  pending: PendingWork,
  report: (line: string) => void,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const what = `${request.method} ${new URL(request.url).pathname}`;
    try {
      const response: unknown = await worker.fetch(request, env, pending.context());
      if (response instanceof Response) return response;
      report(`${what}: the worker's fetch returned ${String(response)}, not a Response`);
    } catch (error) {
      // A client that hangs up mid-request makes the worker's body reads fail: not the worker's fault.
      if (request.signal.aborted) report(`${what}: the client went away before the response (${String(error)})`);
      else report(`${what}: the worker threw ${describeError(error)}`);
    }
    return new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
  };
}

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}
