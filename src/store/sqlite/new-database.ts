import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, linkSync, readFileSync, rmSync } from 'node:fs';
import { prebuiltImage } from './prebuilt-image';

/**
 * Puts the build's database (prebuilt-image.ts) at `filename` when no database is there yet and
 * the store is to be seeded from a file whose text is the one the build seeded it from: opening
 * it then finds every migration run and the seed written, as a first start would have left them.
 * The copy is made under a name of its own and linked into place, which fails when another
 * process got there first (its database stands). Without an image, with another seed, or when
 * anything is missing, nothing happens and the store is created as usual.
 */
export function placePrebuiltImage(filename: string, seedFile: string | false): void {
  if (!prebuiltImage || seedFile === false || filename === ':memory:') return;
  // A log without its database (left by hand) would be replayed onto the copy: leave it to SQLite.
  if (existsSync(filename) || existsSync(`${filename}-wal`)) return;
  let seedText: Buffer;
  try {
    seedText = readFileSync(seedFile);
  } catch {
    return; // Opening the store reports the missing seed file in its own words.
  }
  if (createHash('sha256').update(seedText).digest('hex') !== prebuiltImage.seedSha256) return;
  const aside = `${filename}.${process.pid}-${randomBytes(4).toString('hex')}.new`;
  try {
    copyFileSync(prebuiltImage.file, aside);
    linkSync(aside, filename);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // EEXIST: another process placed its database first. ENOENT: no image beside the bundle.
    if (code !== 'EEXIST' && code !== 'ENOENT') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}
