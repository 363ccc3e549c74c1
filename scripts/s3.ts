// `npm run s3 -- [--port <n>] [--host <h>] [--data-dir <dir>] [--database-url <url>] [--credentials <file>] [--public-read <bucket>]... [--faults <file>] [--account <id>] [--tls-cert <file> --tls-key <file>]`:
// serves the buckets of a data directory (or a PostgreSQL database) through an S3-compatible API.
// See docs/s3-endpoint.md.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigFileError } from '../src/config-files';
import { FaultRulesError, readRulesFile } from '../src/faults';
import {
  ACCESS_KEY_ID_VARIABLE,
  DEFAULT_S3_PORT,
  loadAccessKeys,
  S3ConfigError,
  SECRET_ACCESS_KEY_VARIABLE,
  startS3Server,
} from '../src/s3';
import { HOME_ACCOUNT_ID } from '../src/bucket';
import { connectionLimitsFrom } from '../src/http-connections';
import { DEFAULT_DATA_DIR } from '../src/worker';
import { databaseUrlFrom, databaseUrlUsage } from './database-url-option';
import { stopOnSignals } from './stop-on-signals';

const USAGE = `Usage: npm run s3 -- [--port <n>] [--host <h>] [--data-dir <dir>] [--database-url <url>] [--credentials <file>] [--public-read <bucket>]... [--faults <file>] [--account <id>] [--tls-cert <file> --tls-key <file>]

Serves the buckets of a data directory through an S3-compatible API (path-style addressing,
AWS Signature Version 4), sharing them with workers started on the same directory.
  --port <n>              port (default ${DEFAULT_S3_PORT}; 0 picks a free one)
  --host <h>              address to listen on (default 127.0.0.1)
  --data-dir <dir>        where the buckets live (default ${DEFAULT_DATA_DIR})
${databaseUrlUsage(26)}
  --credentials <file>    access keys, one ACCESS_KEY_ID=secret line each
  --public-read <bucket>  lets anyone list and read that bucket without signing (repeatable)
  --region <name>         the region GetBucketLocation reports (default auto)
  --account <id>          whose buckets to serve (bucket names are per account; default the data
                          directory's home account, ${HOME_ACCOUNT_ID})
  --faults <file>         fault rules to start with: the s3 list of a TOML or JSON file (default: FAULTS_FILE)
  --tls-cert <file>       serve HTTPS with this certificate (PEM) and --tls-key's private key (PEM);
  --tls-key <file>        customer encryption keys (SSE-C) are taken over plain HTTP from this machine only
Access keys also come from ${ACCESS_KEY_ID_VARIABLE} and ${SECRET_ACCESS_KEY_VARIABLE}; at least one is required.
Slow clients are cut and connections limited as HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS,
HTTP_KEEP_ALIVE_TIMEOUT_MS and HTTP_MAX_CONNECTIONS say (docs/server.md#slow-and-many-clients).
Secrets are never printed. Stop with Ctrl-C (SIGINT) or SIGTERM.`;

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

function usageError(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(EXIT_USAGE);
}

function readArguments() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
        credentials: { type: 'string' },
        'public-read': { type: 'string', multiple: true },
        region: { type: 'string' },
        account: { type: 'string' },
        faults: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
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
  const port = values.port === undefined ? DEFAULT_S3_PORT : Number(values.port);
  if (values.account !== undefined && !/^[0-9a-f]{32}$/.test(values.account))
    usageError(`--account takes an account id (32 lower-case hexadecimal characters), not ${JSON.stringify(values.account)}.`);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535)
    usageError(`--port must be a whole number from 0 to 65535, not ${values.port}.`);
  const database = databaseUrlFrom(values['database-url']);
  if (database.problem) usageError(`${database.problem}.`);
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined))
    usageError('--tls-cert and --tls-key go together: HTTPS needs both the certificate and its private key.');
  const connections = connectionLimits();
  const tls = values['tls-cert'] === undefined ? undefined : { cert: pemFile('--tls-cert', values['tls-cert']), key: pemFile('--tls-key', values['tls-key']!) };
  return {
    port,
    hostname: values.host ?? '127.0.0.1',
    dataDir: values['data-dir'] ?? DEFAULT_DATA_DIR,
    databaseUrl: database.url,
    credentials: values.credentials,
    publicRead: values['public-read'] ?? [],
    region: values.region ?? 'auto',
    account: values.account ?? HOME_ACCOUNT_ID,
    faultsFile: values.faults ?? (process.env.FAULTS_FILE || undefined),
    connections,
    ...(tls ? { tls } : {}),
  };
}

function connectionLimits() {
  try {
    return connectionLimitsFrom(process.env);
  } catch (error) {
    return usageError(`${(error as Error).message}.`);
  }
}

function pemFile(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    return usageError(`${option} ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
}

async function main(): Promise<void> {
  const args = readArguments();
  if (args === null) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  try {
    const accessKeys = loadAccessKeys(process.env, args.credentials);
    const { faultsFile, ...options } = args;
    const faultRules = faultsFile ? { list: readRulesFile(faultsFile).s3 ?? [], source: `faults file ${faultsFile}` } : undefined;
    const server = await startS3Server({ ...options, accessKeys, ...(faultRules ? { faultRules } : {}) });
    // Stoppable before it says it is ready: a signal sent on seeing the line finds the handler.
    stopOnSignals(() => server.close());
    process.stdout.write(
      [
        `S3 endpoint for the buckets of ${server.location}`,
        `  access keys: ${[...accessKeys.keys()].join(', ')}`,
        ...(args.publicRead.length > 0 ? [`  anonymous reads: ${args.publicRead.join(', ')}`] : []),
        ...(faultRules ? [`  fault rules: ${(faultRules.list as unknown[]).length} from ${faultsFile}`] : []),
        `  path-style addressing, region ${args.region}`,
        `Ready on ${server.url} (pid ${process.pid})`,
      ].join('\n') + '\n',
    );
  } catch (error) {
    process.stderr.write(`cannot start the S3 endpoint:\n${error instanceof Error ? error.message : String(error)}\n`);
    const configuration = error instanceof S3ConfigError || error instanceof ConfigFileError || error instanceof FaultRulesError;
    process.exit(configuration ? EXIT_USAGE : EXIT_FAILURE);
  }
}

await main();
