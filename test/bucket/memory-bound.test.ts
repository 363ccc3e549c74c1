// Bodies stream end to end: a large object goes in and out of the on-disk and PostgreSQL engines
// without the process ever holding it. Measured in a child process, whose peak memory is its own.
import { rmSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { startPostgres } from '../support/postgres';
import { runChild } from './child-process';
import { temporaryDirectory } from './engines';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
/**
 * Half the object: a process that held it whole would grow by at least 256 MiB. Streaming, it
 * grows by the buffers the collector has not reclaimed yet (Node 24's V8 lets up to about 64 MiB
 * of them wait). Measured from the process's memory once loaded, not from zero: the runtime and
 * the TypeScript loader alone take 100 MiB or more, depending on the Node line.
 */
const GROWTH_CEILING = 128 * MiB;
/**
 * A read into one buffer allocates nothing on the reader's side: what the process grows by is
 * the engine's. 1 GiB grew disk by about 7 MiB and PostgreSQL by about 15 (its connections read
 * into buffers of their own, see LeanSocket), where a socket reading into new buffers grows by 90.
 */
const READ_GROWTH_CEILING = 40 * MiB;

async function roundTrip(target: string): Promise<void> {
  const [line] = await runChild('round-trip', target, String(SIZE));
  const report = JSON.parse(line!) as {
    sent: string;
    stored: string;
    read: string;
    size: number;
    baselineRssBytes: number;
    maxRssBytes: number;
    readGrowthBytes: number;
  };
  expect(report.size).toBe(SIZE);
  expect(report.stored).toBe(report.sent);
  expect(report.read).toBe(report.sent);
  expect(report.maxRssBytes - report.baselineRssBytes).toBeLessThan(GROWTH_CEILING);
  expect(report.readGrowthBytes).toBeLessThan(READ_GROWTH_CEILING);
}

test('writing and reading a 256 MiB object on disk grows the process by less than half of it, the read by less than 40 MiB', async () => {
  await roundTrip(temporaryDirectory(directories));
}, 60_000);

test('writing and reading a 256 MiB object on PostgreSQL grows the process by less than half of it, the read by less than 40 MiB', async () => {
  const cluster = await startPostgres();
  try {
    await roundTrip(await cluster.createDatabase());
  } finally {
    await cluster.stop();
  }
}, 180_000);
