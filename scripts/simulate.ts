// What a zone's deployed rules would do to one HTTP request, read from the store of a data
// directory (the management API server's). See --help; the library is src/simulator.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { InvalidRequestDescriptionError, UnknownZoneError, describeIssue, formatReport, simulate } from '../src/simulator';
import { openSqliteStore, type Store } from '../src/store';

const USAGE = `Usage: npm run -s simulate -- --zone <zone id> --request <file.json> [--json] [--data-dir <dir>]

Simulates the request described in <file.json> against the zone's rulesets, OWASP scoring,
custom log fields and log push jobs as the store of <dir> holds them (default: $DATA_DIR or
./data, the server's; an empty directory is seeded with the fixtures). Prints a readable trace,
or the whole result as JSON with --json. (-s keeps npm's own banner out of the output.)

The request file is JSON:
  { "method": "GET", "url": "https://example.org/search?q=1",
    "headers": { "User-Agent": "curl/8.5.0" }, "cookies": { "sessionId": "abc" },
    "body": "...", "client_ip": "203.0.113.7", "http_version": "HTTP/2",
    "overrides": { "ip.src.country": "DE", "cf.bot_management.score": 12 },
    "response": { "status": 200, "headers": { "Cache-Control": "no-store" } } }

Exit status:
  0  the request was simulated (whatever the rules decided)
  1  it could not be: unreadable or invalid request file, unknown zone, unusable data directory
  2  usage error: unknown option, missing --zone or --request
`;

class Failure extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

interface Options {
  zone: string;
  request: string;
  json: boolean;
  dataDir: string;
}

function readOptions(argv: string[]): Options | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        zone: { type: 'string' },
        request: { type: 'string' },
        json: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new Failure((error as Error).message, 2);
  }
  if (values.help) return 'help';
  const missing = (['zone', 'request'] as const).filter((name) => !values[name]);
  if (missing.length > 0) throw new Failure(`missing ${missing.map((name) => `--${name}`).join(' and ')}`, 2);
  return {
    zone: values.zone!,
    request: values.request!,
    json: values.json,
    dataDir: path.resolve(values['data-dir'] || process.env.DATA_DIR || 'data'),
  };
}

function readDescription(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Failure(`cannot read the request file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 1);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Failure(`the request file ${file} is not JSON: ${(error as Error).message}`, 1);
  }
}

async function openStore(dataDir: string): Promise<Store> {
  try {
    return await openSqliteStore({ dataDir });
  } catch (error) {
    throw new Failure(`cannot open the store in ${dataDir}: ${(error as Error).message}`, 1);
  }
}

async function main(argv: string[]): Promise<number> {
  const options = readOptions(argv);
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const description = readDescription(options.request);
  const store = await openStore(options.dataDir);
  try {
    const result = await simulate(store, options.zone, description);
    process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatReport(result));
    return 0;
  } catch (error) {
    if (error instanceof InvalidRequestDescriptionError) {
      throw new Failure(`the request file ${options.request} is not a valid request description:\n${error.issues.map((issue) => `  - ${describeIssue(issue)}`).join('\n')}`, 1);
    }
    if (error instanceof UnknownZoneError) throw new Failure(`zone ${options.zone} not found in the store of ${options.dataDir}`, 1);
    throw error;
  } finally {
    await store.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof Failure)) throw error;
  process.stderr.write(`simulate: ${error.message}\n${error.exitCode === 2 ? `\n${USAGE}` : ''}`);
  process.exitCode = error.exitCode;
}
