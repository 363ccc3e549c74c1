import { formatOfFile, parseConfigText, ProblemList, readTextFile } from '../config-files';
import { splitFaces } from './rule-schema';

/**
 * The rule lists of a faults file: TOML or JSON (with comments), as the platform's own tooling
 * writes configuration and as the platform's configuration file will hold them, read by the
 * project's one configuration reader (syntax errors as `file:line:column: reason`). Holds `api`
 * and/or `s3` lists; each face checks its own.
 */
export function readRulesFile(file: string): { api?: unknown; s3?: unknown } {
  const format = formatOfFile(file);
  if (format === undefined) return new ProblemList(file).fail('', 'a faults file is TOML (.toml) or JSON (.json, .jsonc), as the platform tooling writes configuration');
  return splitFaces(parseConfigText(readTextFile(file), file, format), `faults file ${file}`);
}
