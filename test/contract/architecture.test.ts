// The map of docs/architecture.md, enforced: every import of src/ is checked against the rooms and
// arrows of .dependency-cruiser.cjs (cycles, libraries that import nothing of ours, one front door
// per room, the server's ground floor, the front doors kept apart).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import { afterAll, expect, test } from 'vitest';

const ROOT = path.join(import.meta.dirname, '../..');
const rules = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as Record<string, unknown>;

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

/** The rules' violations in `root` (its src/ and tsconfig.json), one line each. */
async function violations(root: string): Promise<string[]> {
  const previous = process.cwd();
  process.chdir(root);
  try {
    const options = { ...(rules.options as object), validate: true, ruleSet: rules as never };
    const result = await cruise(['src'], options, undefined, { tsConfig: { fileName: 'tsconfig.json' } } as never);
    const output = result.output as { summary: { violations: Violation[] } };
    return output.summary.violations
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((step) => step.name).join(' -> ')})` : ''}`)
      .sort();
  } finally {
    process.chdir(previous);
  }
}

const fixtures: string[] = [];
afterAll(() => fixtures.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A throwaway project with the given files (paths under src/) and a plain tsconfig. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'architecture-'));
  fixtures.push(root);
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', strict: true } }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

test('every import of src/ follows the map', async () => {
  expect(await violations(ROOT)).toEqual([]);
}, 120_000);

test('the map catches the imports it forbids', async () => {
  const root = project({
    // A library reaching into the server, past its front door.
    'src/bucket/index.ts': "export { answer } from '../server/http/answer.js';\n",
    'src/server/index.ts': "export const server = 1;\n",
    'src/server/http/answer.ts': "import { step } from '../pipeline.js';\nexport const answer = step;\n",
    'src/server/pipeline.ts': "export const step = 1;\n",
    // Two modules importing each other.
    'src/store/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
    'src/store/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    // One front door importing another.
    'src/s3/index.ts': "import { c } from '../worker/index.js';\nexport const s3 = c;\n",
    'src/worker/index.ts': "export const c = 1;\n",
    // The edge importing what it must be handed.
    'src/edge/index.ts': "import { bucket } from '../bucket/index.js';\nexport const edge = bucket;\n",
    // Saving state through a front door instead of the store and the buckets.
    'src/state/index.ts': "import { s3 } from '../s3/index.js';\nexport const state = s3;\n",
  });
  const found = await violations(root);
  const rulesBroken = [...new Set(found.map((line) => line.split(':')[0]))].sort();
  expect(rulesBroken).toEqual([
    'bucket-is-a-library',
    'edge-stands-alone',
    'front-doors-stay-apart',
    'no-cycles',
    'nothing-imports-the-server',
    'one-front-door',
    'server-ground-floor',
    'state-through-store-and-bucket',
  ]);
  expect(found).toContain('server-ground-floor: src/server/http/answer.ts -> src/server/pipeline.ts');
  expect(found).toContain('front-doors-stay-apart: src/s3/index.ts -> src/worker/index.ts');
  expect(found).toContain('state-through-store-and-bucket: src/state/index.ts -> src/s3/index.ts');
  expect(found).toContain('edge-stands-alone: src/edge/index.ts -> src/bucket/index.ts');
}, 120_000);
