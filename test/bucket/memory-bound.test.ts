// Bodies stream end to end: a large object goes in and out of the on-disk engine without the
// process ever holding it. Measured in a child process, whose peak memory is its own.
import { rmSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { runChild } from './child-process';
import { temporaryDirectory } from './engines';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const SIZE = 256 * 1024 * 1024;
const MEMORY_CEILING = 150 * 1024 * 1024;

test('writing and reading a 256 MiB object keeps the process under 150 MiB', async () => {
  const [line] = await runChild('round-trip', temporaryDirectory(directories), String(SIZE));
  const report = JSON.parse(line!) as { sent: string; stored: string; read: string; size: number; maxRssBytes: number };
  expect(report.size).toBe(SIZE);
  expect(report.stored).toBe(report.sent);
  expect(report.read).toBe(report.sent);
  expect(report.maxRssBytes).toBeLessThan(MEMORY_CEILING);
}, 60_000);
