// `npm run bucket -- create|list|delete [<name>] [--account <id>] [--data-dir <dir>] [--database-url <url>]`:
// the buckets of an account, through the catalogue the API, workers and the S3 endpoint share. See
// docs/buckets-and-workers.md.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BucketCatalogueError, BucketStorageError, HOME_ACCOUNT_ID, openBucketCatalogue, type AccountBuckets } from '../src/bucket';
import { DEFAULT_DATA_DIR } from '../src/worker';
import { databaseUrlFrom, databaseUrlUsage } from './database-url-option';

const USAGE = `Usage: npm run bucket -- <command> [--account <id>] [--data-dir <dir>] [--database-url <url>]

  create <name>   creates an empty bucket
  list            lists the buckets, one per line: name and creation time
  delete <name>   deletes a bucket; refused while it holds objects or uploads in progress
  --account <id>    whose buckets (bucket names are per account; default ${HOME_ACCOUNT_ID})
  --data-dir <dir>  where the buckets live (default ${DEFAULT_DATA_DIR})
${databaseUrlUsage(20)}
Bucket names have 3 to 63 lower-case letters, digits and hyphens, neither first nor last a hyphen.`;

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

function usageError(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(EXIT_USAGE);
}

interface Arguments {
  command: string;
  name?: string;
  dataDir: string;
  databaseUrl?: string;
  account: string;
}

function readArguments(): Arguments | null {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
        account: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return null;
  const [command, name, ...extra] = positionals;
  const dataDir = values['data-dir'] ?? DEFAULT_DATA_DIR;
  const account = values.account ?? HOME_ACCOUNT_ID;
  if (!/^[0-9a-f]{32}$/.test(account)) usageError(`--account takes an account id (32 lower-case hexadecimal characters), not ${JSON.stringify(account)}.`);
  const database = databaseUrlFrom(values['database-url']);
  if (database.problem) usageError(`${database.problem}.`);
  const where = { dataDir, account, ...(database.url ? { databaseUrl: database.url } : {}) };
  if (command === undefined) usageError('A command is required.');
  if (command === 'list') {
    if (name !== undefined) usageError(`list takes no name (got ${JSON.stringify(name)}).`);
    return { command, ...where };
  }
  if (command !== 'create' && command !== 'delete') usageError(`Unknown command ${JSON.stringify(command)}.`);
  if (name === undefined) usageError(`${command} needs the name of a bucket.`);
  if (extra.length > 0) usageError(`${command} takes one name; unexpected ${JSON.stringify(extra.join(' '))}.`);
  return { command, name, ...where };
}

async function run(catalogue: AccountBuckets, command: string, name: string | undefined, where: string): Promise<void> {
  if (command === 'create') {
    await catalogue.create(name!);
    process.stdout.write(`Created bucket ${name} in ${where}\n`);
  } else if (command === 'delete') {
    await catalogue.delete(name!);
    process.stdout.write(`Deleted bucket ${name} from ${where}\n`);
  } else {
    const { buckets } = await catalogue.list();
    if (buckets.length === 0) process.stderr.write(`No buckets in ${where}\n`);
    for (const bucket of buckets) process.stdout.write(`${bucket.name}\t${bucket.createdAt.toISOString()}\n`);
  }
}

const args = readArguments();
if (args === null) {
  process.stdout.write(`${USAGE}\n`);
} else if (!args.databaseUrl && args.command !== 'create' && !existsSync(args.dataDir)) {
  // Only create makes the data directory: a mistyped --data-dir should not leave one behind.
  process.stderr.write(`No data directory at ${args.dataDir}${args.command === 'list' ? '' : `: there is no bucket ${args.name} to delete`}\n`);
  process.exitCode = args.command === 'list' ? 0 : EXIT_FAILURE;
} else {
  let catalogue;
  try {
    catalogue = await openBucketCatalogue({ dataDir: args.dataDir, databaseUrl: args.databaseUrl });
  } catch (error) {
    if (!(error instanceof BucketStorageError)) throw error;
    process.stderr.write(`bucket ${args.command} failed: ${error.message}\n`);
    process.exitCode = EXIT_FAILURE;
  }
  if (catalogue) {
    try {
      await run(catalogue.account(args.account), args.command, args.name, catalogue.location);
    } catch (error) {
      if (!(error instanceof BucketCatalogueError)) throw error;
      process.stderr.write(`bucket ${args.command} failed: ${error.message} (code ${error.code})\n`);
      process.exitCode = EXIT_FAILURE;
    } finally {
      await catalogue.close();
    }
  }
}
