// A small file system made for a test, to fill up: a tmpfs of a few MiB mounted on a temporary
// directory. Mounting needs root (or CAP_SYS_ADMIN); where this process cannot mount one,
// `mountSmallFilesystem` answers why, and the tests that need it are skipped by a name saying so.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SmallFilesystem {
  /** The mounted directory: everything under it shares the file system's few MiB. */
  readonly directory: string;
  /** Bytes still free on it. */
  free(): number;
  /**
   * Fills it with a file of its own until at most `leave` bytes stay free; answers the file, to
   * remove when the test frees space.
   */
  fill(leave: number): string;
  unmount(): void;
}

/** Mounts a tmpfs of `mebibytes` MiB, or answers why it cannot. */
export function mountSmallFilesystem(mebibytes: number): SmallFilesystem | { unavailable: string } {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'small-fs-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${mebibytes}m`, 'tmpfs', directory], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(directory, { recursive: true, force: true });
    return { unavailable: (mounted.stderr || mounted.error?.message || `mount exited ${mounted.status}`).trim() };
  }
  const free = () => {
    const stats = statfsSync(directory);
    return stats.bavail * stats.bsize;
  };
  let fills = 0;
  return {
    directory,
    free,
    fill(leave) {
      const file = path.join(directory, `fill-${++fills}`);
      writeFileSync(file, Buffer.alloc(Math.max(0, free() - leave)));
      return file;
    },
    unmount() {
      // Lazily: a test's server may still hold a file open as it closes.
      spawnSync('umount', ['-l', directory]);
      if (readdirSync(directory).length === 0) rmSync(directory, { recursive: true, force: true });
    },
  };
}
