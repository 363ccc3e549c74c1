// The platform keeps V8's young generation small (src/platform/young-generation.ts): measured in
// child processes, whose heaps are their own.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { keepYoungGenerationSmall } from '../../src/platform/young-generation';

const CHILD = fileURLToPath(new URL('./fixtures/young-generation-child.ts', import.meta.url));
const MiB = 1024 * 1024;

function largestYoungGeneration(mode: 'keep' | 'default'): number {
  const output = execFileSync(process.execPath, ['--import', 'tsx', CHILD, mode], { encoding: 'utf8' });
  return (JSON.parse(output) as { largestYoungBytes: number }).largestYoungBytes;
}

test('under a burst of short-lived objects the young generation stays near its starting size, where V8 alone grows it to its most', () => {
  const alone = largestYoungGeneration('default');
  const kept = largestYoungGeneration('keep');
  // V8 alone doubles it up to its most (128 MiB on Node 24, 32 on Node 22); kept, it stayed within 4-12.
  expect(alone).toBeGreaterThanOrEqual(32 * MiB);
  expect(kept).toBeLessThanOrEqual(16 * MiB);
}, 60_000);

test('a young-generation flag the process was started with is left to decide', () => {
  expect(keepYoungGenerationSmall(['--max-semi-space-size=16'], '')).toBe(false);
  expect(keepYoungGenerationSmall([], '--enable-source-maps --semi_space_growth_factor=4')).toBe(false);
  expect(keepYoungGenerationSmall([], '--min-semi-space-size=8')).toBe(false);
});
