import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { prebuiltSeed } from './prebuilt-seed';
import type { SeedFile } from './schema';

/**
 * A seed file, checked (see load.ts). A file whose text is the one the build checked (the bundle
 * carries its hash, prebuilt-seed.ts) is taken as the build found it; any other file, and any
 * file when run from the sources, is read and checked now. The checker, and the schema library
 * it uses, are loaded only then.
 */
export async function checkedSeed(file: string): Promise<SeedFile> {
  if (prebuiltSeed) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined && createHash('sha256').update(text).digest('hex') === prebuiltSeed.sha256) {
      return JSON.parse(prebuiltSeed.seed ?? text) as SeedFile;
    }
  }
  const { loadSeedFile } = await import('./load');
  return loadSeedFile(file);
}
