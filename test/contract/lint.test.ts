// The contract's quality gates: both linters with zero problems, no drift between openapi/ and
// generated/, and the whole project type-checks.
import { describe, expect, it } from 'vitest';
import { findDrift } from '../../scripts/check-drift';
import { runTool } from '../../scripts/tools';

describe('contract gates', () => {
  it('redocly lints the split source with no errors or warnings', () => {
    const output = runTool('redocly', ['lint']);
    expect(output).toContain('Your API description is valid');
    expect(output).not.toMatch(/\d+ (problems?|warnings?|errors?)\b/);
  }, 60_000);

  it('spectral lints the bundle with no problems of any severity', () => {
    // Any finding, even a hint, makes spectral exit non-zero and runTool throw with the findings.
    const output = runTool('spectral', ['lint', '--fail-severity', 'hint', 'generated/openapi.yaml']);
    expect(output).toContain("No results with a severity of 'hint' or higher found!");
  }, 60_000);

  it('generated/ is what `npm run generate` produces', async () => {
    expect(await findDrift(), 'run `npm run generate` and commit generated/').toEqual([]);
  }, 60_000);

  it('the whole project type-checks', () => {
    expect(() => runTool('tsc', ['--noEmit', '-p', '.'])).not.toThrow();
  }, 180_000);
});
