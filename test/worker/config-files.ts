// Temporary directories for worker configurations and data, removed when the test file ends.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { BucketCatalogue } from '../../src/bucket';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

export function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'worker-test-'));
  directories.push(directory);
  return directory;
}

/** A fresh directory holding a trivial worker module `worker.ts`. */
export function configDirectory(): string {
  const directory = temporaryDirectory();
  writeFileSync(join(directory, 'worker.ts'), 'export default { fetch: () => new Response("ok") };\n');
  return directory;
}

/** Writes `text` to `name` in a fresh configuration directory (or `directory`) and answers its path. */
export function configFile(name: string, text: string, directory = configDirectory()): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

/** A fresh data directory holding empty buckets of these names. */
export async function dataDirectoryWith(...buckets: string[]): Promise<string> {
  const dataDir = temporaryDirectory();
  const catalogue = new BucketCatalogue(dataDir);
  for (const name of buckets) await catalogue.create(name);
  await catalogue.close();
  return dataDir;
}
