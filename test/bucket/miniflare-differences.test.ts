// Every difference the contract suite allows under Miniflare points at a row of docs/buckets-and-workers.md's one
// table of allowed differences.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { MINIFLARE_DIFFERENCES } from './miniflare-differences';

function allowedDifferenceRows(): string[] {
  const readme = readFileSync(join(import.meta.dirname, '../../docs/buckets-and-workers.md'), 'utf8');
  const section = readme.split('#### Allowed differences')[1]?.split(/\n#/)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| where'))
    .map((line) => line.split(' | ')[0]!.slice(2).replaceAll('`', ''));
}

test('each listed difference has its row in the allowed-differences table', () => {
  const rows = allowedDifferenceRows();
  expect(rows.length).toBeGreaterThan(5);
  const missing = [...new Set(Object.values(MINIFLARE_DIFFERENCES).map((difference) => difference.row))].filter(
    (row) => !rows.includes(row),
  );
  expect(missing).toEqual([]);
});
