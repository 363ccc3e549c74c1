import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlError } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { FaultRulesError } from './errors';
import { splitFaces } from './rule-schema';

/**
 * The rule lists of a faults file: YAML (`.yaml`, `.yml`), JSON (`.json`) or TOML (`.toml`, as
 * the platform's own tooling writes configuration), holding `api` and/or `s3` lists. Problems
 * of syntax or shape throw a FaultRulesError naming the file; each face checks its own list.
 */
export function readRulesFile(file: string): { api?: unknown; s3?: unknown } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new FaultRulesError(`faults file ${file}`, [`cannot be read: ${(error as Error).message}`]);
  }
  const lower = file.toLowerCase();
  let document: unknown;
  try {
    if (lower.endsWith('.toml')) document = parseToml(text);
    else if (lower.endsWith('.yaml') || lower.endsWith('.yml') || lower.endsWith('.json')) document = parseYaml(text);
    else throw new Error('must end in .yaml, .yml, .json or .toml, which says how it is written');
  } catch (error) {
    const first = (error as Error).message.split('\n', 1)[0]!;
    const reason = error instanceof TomlError ? `${first.replace(/^Invalid TOML document: /, 'malformed TOML: ')} at line ${error.line}, column ${error.column}` : first;
    throw new FaultRulesError(`faults file ${file}`, [reason.replace(/:$/, '')]);
  }
  return splitFaces(document, `faults file ${file}`);
}
