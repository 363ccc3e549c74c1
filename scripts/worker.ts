// `npm run worker -- --config <file> [--port <n>] [--data-dir <dir>] [--database-url <url>]`: serves
// a module worker with the buckets, vars and secrets of its configuration file. See
// docs/buckets-and-workers.md.
import { parseArgs } from 'node:util';
import { BucketCatalogueError, BucketStorageError } from '../src/bucket';
import { connectionLimitsFrom, type ConnectionLimits } from '../src/http-connections';
import { DEFAULT_DATA_DIR, DEFAULT_PORT, startWorker, ConfigFileError, WorkerStartError } from '../src/worker';
import { databaseUrlFrom, databaseUrlUsage } from './database-url-option';
import { stopOnSignals } from './stop-on-signals';

const USAGE = `Usage: npm run worker -- --config <file> [--port <n>] [--data-dir <dir>] [--database-url <url>]

Serves the module worker of a configuration file with its buckets, vars and secrets.
  --config <file>    the worker configuration: .toml, or .json / .jsonc (required)
  --port <n>         port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)
  --data-dir <dir>   where the buckets live (default ${DEFAULT_DATA_DIR})
${databaseUrlUsage(21)}
Secrets listed under [secrets] required come from the environment or the .dev.vars file
beside the configuration. Slow clients are cut and connections limited as HTTP_HEADERS_TIMEOUT_MS,
HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS and HTTP_MAX_CONNECTIONS say
(docs/server.md#slow-and-many-clients). Stop with Ctrl-C (SIGINT) or SIGTERM.`;

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

function usageError(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(EXIT_USAGE);
}

function readArguments(): { configFile: string; port: number; dataDir: string; databaseUrl?: string; connections: ConnectionLimits } | null {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) return null;
  if (values.config === undefined) usageError('--config <file> is required.');
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535) usageError(`--port must be a whole number from 0 to 65535, not ${values.port}.`);
  const database = databaseUrlFrom(values['database-url']);
  if (database.problem) usageError(`${database.problem}.`);
  let connections: ConnectionLimits;
  try {
    connections = connectionLimitsFrom(process.env);
  } catch (error) {
    return usageError(`${(error as Error).message}.`);
  }
  return { configFile: values.config, port, connections, dataDir: values['data-dir'] ?? DEFAULT_DATA_DIR, ...(database.url ? { databaseUrl: database.url } : {}) };
}

async function main(): Promise<void> {
  const args = readArguments();
  if (args === null) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let worker;
  try {
    worker = await startWorker(args);
  } catch (error) {
    const expected =
      error instanceof ConfigFileError ||
      error instanceof WorkerStartError ||
      error instanceof BucketCatalogueError ||
      error instanceof BucketStorageError;
    process.stderr.write(`cannot start the worker:\n${expected ? error.message : String((error as Error).stack ?? error)}\n`);
    process.exit(EXIT_FAILURE);
  }
  const { config } = worker;
  const lines = [`Worker ${config.name ?? '(unnamed)'}: ${config.main}`, ...worker.summary.map((line) => `  ${line}`)];
  if (config.ignoredKeys.length > 0) lines.push(`Ignored deployment settings: ${config.ignoredKeys.join(', ')}`);
  lines.push(`Ready on ${worker.url} (pid ${process.pid})`);
  // Stoppable before it says it is ready: a signal sent on seeing the line finds the handler.
  stopOnSignals(() => worker.close());
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
