// Faults files in the platform tooling's two spellings, and what is said about one that cannot be read.
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
  it('reads TOML and JSON with comments alike', () => {
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
    const jsonc = file('faults.jsonc', `// the same rules\n${JSON.stringify(expected, null, 2).replace(/\n}$/, ',\n}')}`);
    expect(readRulesFile(toml)).toEqual(expected);
    expect(readRulesFile(jsonc)).toEqual(expected);
    expect(readRulesFile(file('faults.json', JSON.stringify(expected)))).toEqual(expected);
  });

  it('an empty file holds no rules', () => {
    expect(readRulesFile(file('empty.toml', ''))).toEqual({});
  });

  it('names the file and the problem, with line and column for syntax', () => {
    const missing = path.join(dir, 'missing.toml');
    expect(() => readRulesFile(missing)).toThrow(`${missing}: cannot read the file (ENOENT)`);
    const yaml = file('faults.yaml', 'api: []');
    expect(() => readRulesFile(yaml)).toThrow(`${yaml}: a faults file is TOML (.toml) or JSON (.json, .jsonc), as the platform tooling writes configuration`);
    const broken = file('broken.toml', '[[api]\nstatus = 500');
    expect(() => readRulesFile(broken)).toThrow(new RegExp(`^${broken.replace(/[.\\/]/g, '\\$&')}:1:7: malformed TOML`));
    const sections = file('sections.toml', '[[faults]]\nstatus = 500\n');
    expect(() => readRulesFile(sections)).toThrow(`faults file ${sections}: unknown section "faults" (sections: api, s3)`);
  });
});
