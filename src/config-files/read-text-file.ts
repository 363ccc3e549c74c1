import fs from 'node:fs';
import { ProblemList } from './problems';

/**
 * The text of a file. A file that cannot be read is a `ConfigFileError` naming it and the
 * reason; a missing one answers undefined instead when it is `optional`.
 */
export function readTextFile(file: string, optional?: false): string;
export function readTextFile(file: string, optional: true): string | undefined;
export function readTextFile(file: string, optional = false): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (optional && code === 'ENOENT') return undefined;
    return new ProblemList(file).fail('', `cannot read the file (${code ?? String(error)})`);
  }
}
