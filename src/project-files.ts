import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * A file of the project (fixtures, the generated document), found from the project root: the
 * nearest directory holding package.json above this module, whether it runs from src/ or bundled.
 */
export function projectFile(...segments: string[]): string {
  if (root === undefined) {
    let dir = path.dirname(fileURLToPath(import.meta.url));
    while (!existsSync(path.join(dir, 'package.json'))) {
      const up = path.dirname(dir);
      if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
      dir = up;
    }
    root = dir;
  }
  return path.join(root, ...segments);
}
