// Faults files in the three spellings, and what is said about one that cannot be read.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRulesFile } from '../../src/faults';

const dir = mkdtempSync(path.join(os.tmpdir(), 'faults-file-'));
function file(name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

const expected = {
  api: [{ name: 'two-429s', match: { operationId: 'listZones' }, status: 429, first: 2 }],
  s3: [{ match: { operation: 'PutObject', bucket: 'photos' }, status: 503, first: 1 }],
};

describe('faults files', () => {
  it('reads YAML, JSON and TOML alike', () => {
    const yaml = file(
      'faults.yaml',
      `api:
  - name: two-429s
    match: { operationId: listZones }
    status: 429
    first: 2
s3:
  - match: { operation: PutObject, bucket: photos }
    status: 503
    first: 1
`,
    );
    const toml = file(
      'faults.toml',
      `[[api]]
name = "two-429s"
match = { operationId = "listZones" }
status = 429
first = 2

[[s3]]
match = { operation = "PutObject", bucket = "photos" }
status = 503
first = 1
`,
    );
    const json = file('faults.json', JSON.stringify(expected));
    expect(readRulesFile(yaml)).toEqual(expected);
    expect(readRulesFile(toml)).toEqual(expected);
    expect(readRulesFile(json)).toEqual(expected);
  });

  it('an empty file holds no rules', () => {
    expect(readRulesFile(file('empty.yaml', ''))).toEqual({});
  });

  it('names the file and the problem', () => {
    const missing = path.join(dir, 'missing.yaml');
    expect(() => readRulesFile(missing)).toThrow(`faults file ${missing}: cannot be read: ENOENT`);
    const ini = file('faults.ini', 'x=1');
    expect(() => readRulesFile(ini)).toThrow(`faults file ${ini}: must end in .yaml, .yml, .json or .toml, which says how it is written`);
    const broken = file('broken.toml', '[[api]\nstatus = 500');
    expect(() => readRulesFile(broken)).toThrow(`faults file ${broken}: malformed TOML: expected end of table array declaration at line 1, column 7`);
    const yaml = file('broken.yaml', 'api: [\n  {status: 500');
    expect(() => readRulesFile(yaml)).toThrow(`faults file ${yaml}: Flow map in block collection must be sufficiently indented and end with a } at line 2, column 15`);
    const sections = file('sections.yaml', 'faults:\n  - status: 500\n');
    expect(() => readRulesFile(sections)).toThrow(`faults file ${sections}: unknown section "faults" (sections: api, s3)`);
  });
});
