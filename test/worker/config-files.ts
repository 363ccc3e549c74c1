// Temporary worker configuration files for the tests, removed after each test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A fresh directory holding a worker module `worker.ts`, deleted after the test. */
export function configDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'worker-config-'));
  directories.push(directory);
  writeFileSync(join(directory, 'worker.ts'), 'export default { fetch: () => new Response("ok") };\n');
  return directory;
}

/** Writes `text` to `name` in a fresh configuration directory and answers its path. */
export function configFile(name: string, text: string, directory = configDirectory()): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}
