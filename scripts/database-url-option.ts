// The `--database-url` option of the bucket commands (`npm run worker`, `npm run s3`,
// `npm run bucket`): the buckets in PostgreSQL, as the API server keeps its state there with
// DATABASE_URL. The option wins over the variable; an empty one means the data directory.
import { parseDatabaseUrl } from '../src/database-url';

/** The option's help lines, its text starting at `column` as the other options' do. */
export function databaseUrlUsage(column: number): string {
  const option = '  --database-url <url>';
  const text = ['keep the buckets in this PostgreSQL database instead of the', 'data directory (default: DATABASE_URL)'];
  const indent = ' '.repeat(column);
  // An option longer than the column gets its text on the lines below.
  const lines = option.length < column ? [option.padEnd(column) + text[0], indent + text[1]] : [option, ...text.map((line) => indent + line)];
  return lines.join('\n');
}

/** The URL to open, checked; a message naming where it came from when it is not a PostgreSQL URL. */
export function databaseUrlFrom(option: string | undefined, env: NodeJS.ProcessEnv = process.env): { url?: string; problem?: string } {
  const [text, name] = option !== undefined ? [option, '--database-url'] : [env.DATABASE_URL, 'DATABASE_URL'];
  if (!text) return {};
  try {
    parseDatabaseUrl(text, name);
  } catch (error) {
    return { problem: (error as Error).message };
  }
  return { url: text };
}
