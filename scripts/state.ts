// `npm run state -- export|import <file> [--data-dir <dir>]`: saves the whole platform's state
// (the management API's store and every bucket of every account) to one file, or loads such a
// file into an empty data directory or database. PostgreSQL when DATABASE_URL is set, as for
// `npm start`. See docs/server.md, "Saving and loading state".
import path from 'node:path';
import { parseArgs } from 'node:util';
import { exportState, importState, openPlace, readStateHeader, type PlaceOptions } from '../src/state';
import { parseDatabaseUrl } from '../src/store';

const USAGE = `Usage: npm run state -- <command> <file> [--data-dir <dir>]

  export <file>   writes the whole state (API store, buckets, objects, uploads in progress) to <file>;
                  consistent while the platform serves
  import <file>   loads <file> into an empty data directory or database; a newer, truncated or
                  damaged file, or a target holding state, is refused and nothing is loaded
  --data-dir <dir>  the data directory (default: DATA_DIR, else ./data)
The API's store is in PostgreSQL when DATABASE_URL is set, else in SQLite under the data directory.`;

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

function usageError(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(EXIT_USAGE);
}

function readArguments(): { command: 'export' | 'import'; file: string; options: PlaceOptions; where: string } {
  let parsed;
  try {
    parsed = parseArgs({ options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const [command, file, ...extra] = positionals;
  if (command === undefined) usageError('A command is required.');
  if (command !== 'export' && command !== 'import') usageError(`Unknown command ${JSON.stringify(command)}.`);
  if (file === undefined || file === '') usageError(`${command} needs a file.`);
  if (extra.length > 0) usageError(`${command} takes one file; unexpected ${JSON.stringify(extra.join(' '))}.`);
  const dataDir = path.resolve(values['data-dir'] ?? (process.env.DATA_DIR || 'data'));
  let databaseUrl: string | undefined;
  let where = dataDir;
  if (process.env.DATABASE_URL) {
    try {
      const url = parseDatabaseUrl(process.env.DATABASE_URL, 'DATABASE_URL');
      databaseUrl = url.connectionString;
      where = `${url.location} and ${dataDir}`;
    } catch (error) {
      usageError((error as Error).message);
    }
  }
  return { command, file: path.resolve(file), options: { dataDir, databaseUrl }, where };
}

const bytes = (n: number) => (n < 1024 * 1024 ? `${n} bytes` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

async function main(): Promise<void> {
  const { command, file, options, where } = readArguments();
  // A file that is no state file, or one of a newer version, is refused before the target is opened.
  if (command === 'import') await readStateHeader(file);
  const place = await openPlace(options, command === 'export');
  try {
    if (command === 'export') {
      const saved = await exportState(place, file);
      process.stdout.write(
        `Saved the state of ${where} to ${file} (${bytes(saved.fileBytes)}): ${saved.rows} store rows, ${saved.buckets} buckets, ${saved.objects} objects, ${saved.uploads} uploads in progress\n`,
      );
    } else {
      const loaded = await importState(file, place);
      process.stdout.write(
        `Loaded ${file} into ${where}: ${loaded.rows} store rows, ${loaded.buckets} buckets, ${loaded.objects} objects, ${loaded.uploads} uploads in progress\n`,
      );
    }
  } finally {
    await place.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`state: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(EXIT_FAILURE);
});
