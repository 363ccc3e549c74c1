// The map of docs/architecture.md, enforced: every import of src/ must be an arrow the map draws
// (.dependency-cruiser.cjs lists, room by room, what each may import), and the shape rules hold (no
// cycles, one front door per room, the server's ground floor, the store's floors). Each rule is
// shown to fire on a fixture, and the real tree is shown to have been read whole.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import { afterAll, beforeAll, expect, test } from 'vitest';

const ROOT = path.join(import.meta.dirname, '../..');
const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as Record<string, unknown> & {
  rooms: Record<string, string[]>;
};

interface Dependency {
  resolved: string;
  couldNotResolve: boolean;
  dependencyTypes: string[];
}
interface Module {
  source: string;
  dependencies: Dependency[];
}
interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}
interface Cruise {
  modules: Module[];
  /** One line each: `rule: from -> to`. */
  violations: string[];
}

/** The rules' violations and every module read in `root` (its src/ and tsconfig.json). */
async function cruiseIn(root: string): Promise<Cruise> {
  const previous = process.cwd();
  process.chdir(root);
  try {
    const options = { ...(config.options as object), validate: true, ruleSet: config as never };
    const result = await cruise(['src'], options, undefined, { tsConfig: { fileName: 'tsconfig.json' } } as never);
    const output = result.output as { modules: Module[]; summary: { violations: Violation[] } };
    const violations = output.summary.violations
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((step) => step.name).join(' -> ')})` : ''}`)
      .sort();
    return { modules: output.modules, violations };
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

/** Every file under `dir`, relative to ROOT. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

let tree: Cruise;
beforeAll(async () => {
  tree = await cruiseIn(ROOT);
}, 120_000);

test('every import of src/ follows the map', () => {
  expect(tree.violations).toEqual([]);
});

test('the real tree was read whole: every file of src/ is a module, every import resolved, type imports included', () => {
  const cruised = tree.modules.map((module) => module.source).filter((source) => source.startsWith('src/'));
  expect(cruised.sort()).toEqual(filesUnder('src').sort());
  expect(cruised.length).toBeGreaterThan(300);
  const unresolved = tree.modules.flatMap((module) => module.dependencies.filter((d) => d.couldNotResolve).map((d) => `${module.source} -> ${d.resolved}`));
  expect(unresolved).toEqual([]);
  // An import of types only (erased by the compiler) is an arrow too: the store's contract imports its records so.
  const contract = tree.modules.find((module) => module.source === 'src/store/store.ts');
  expect(contract?.dependencies.find((d) => d.resolved === 'src/store/types.ts')?.dependencyTypes).toContain('type-only');
});

test('every room of src/ is on the map, and the map is the table of docs/architecture.md', () => {
  const folders = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  expect(Object.keys(config.rooms).sort()).toEqual(folders.sort());
  const doc = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## The arrows'));
  const drawn: Record<string, string[]> = {};
  for (const [, room, uses] of table.matchAll(/^\| `([a-z0-9-]+)` \| (.*) \|$/gm)) {
    drawn[room!] = [...uses!.matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1]!);
  }
  expect(drawn).toEqual(config.rooms);
});

/**
 * The floors of the files under `prefix`: a file stands one floor above the highest file of the
 * folder it imports (type imports included); a door (index.ts) adds no floor of its own.
 */
function floors(modules: Module[], prefix: string): Map<string, number> {
  const imports = new Map(
    modules.filter((m) => m.source.startsWith(prefix)).map((m) => [m.source, m.dependencies.map((d) => d.resolved).filter((r) => r.startsWith(prefix))]),
  );
  const floor = new Map<string, number>();
  const floorOf = (file: string): number => {
    let known = floor.get(file);
    if (known === undefined) {
      known = (file.endsWith('/index.ts') ? 0 : 1) + Math.max(0, ...(imports.get(file) ?? []).map(floorOf));
      floor.set(file, known);
    }
    return known;
  };
  for (const file of imports.keys()) floorOf(file);
  return floor;
}

/** The pairs of folders under `prefix` (its top-level files count as one) that import each other. */
function foldersImportingEachOther(modules: Module[], prefix: string): string[] {
  const folderOf = (file: string) => path.dirname(file.slice(prefix.length)).split('/')[0]!;
  const arrows = new Set<string>();
  for (const module of modules.filter((m) => m.source.startsWith(prefix) && m.source !== `${prefix}index.ts`)) {
    for (const d of module.dependencies.filter((d) => d.resolved.startsWith(prefix))) {
      if (folderOf(module.source) !== folderOf(d.resolved)) arrows.add(`${folderOf(module.source)} -> ${folderOf(d.resolved)}`);
    }
  }
  return [...arrows].filter((arrow) => {
    const [from, to] = arrow.split(' -> ');
    return from! < to! && arrows.has(`${to} -> ${from}`);
  });
}

test('the store stands at most 8 floors, its contract on the second, and no two of its folders import each other', () => {
  const store = floors(tree.modules, 'src/store/');
  expect(Math.max(...store.values())).toBeLessThanOrEqual(8);
  expect(store.get('src/store/store.ts')).toBe(2);
  expect(foldersImportingEachOther(tree.modules, 'src/store/')).toEqual([]);
});

test('the floors and the folders importing each other are counted as described', () => {
  const modules: Module[] = [
    ['x/index.ts', ['x/top.ts']],
    ['x/top.ts', ['x/a/one.ts']],
    ['x/a/one.ts', ['x/b/two.ts']],
    ['x/b/two.ts', ['x/b/three.ts']],
    ['x/b/three.ts', ['x/a/four.ts']],
    ['x/a/four.ts', []],
  ].map(([source, to]) => ({ source: source as string, dependencies: (to as string[]).map((resolved) => ({ resolved, couldNotResolve: false, dependencyTypes: [] })) }));
  const floor = floors(modules, 'x/');
  expect([...floor.entries()].sort()).toEqual(
    Object.entries({ 'x/a/four.ts': 1, 'x/a/one.ts': 4, 'x/b/three.ts': 2, 'x/b/two.ts': 3, 'x/index.ts': 5, 'x/top.ts': 5 }).sort(),
  );
  expect(foldersImportingEachOther(modules, 'x/')).toEqual(['a -> b']);
});

test('each shape rule fires on its fixture', async () => {
  const root = project({
    // Two modules importing each other.
    'src/store/index.ts': "export { a } from './a.js';\n",
    'src/store/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
    'src/store/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    // The server's ground floor reaching upstairs.
    'src/server/index.ts': "export { answer } from './http/answer.js';\n",
    'src/server/http/answer.ts': "import { step } from '../pipeline.js';\nexport const answer = step;\n",
    'src/server/pipeline.ts': "import { a } from '../store/index.js';\nexport const step = a;\n",
    // A room reached past its front door (an arrow the map draws, through the wrong door).
    'src/s3/index.ts': "import { open } from '../bucket/engine.js';\nexport const s3 = open;\n",
    'src/bucket/index.ts': "export { open } from './engine.js';\n",
    'src/bucket/engine.ts': 'export const open = 1;\n',
  });
  expect((await cruiseIn(root)).violations).toEqual([
    'no-cycles: src/store/a.ts -> src/store/b.ts (cycle: src/store/b.ts -> src/store/a.ts)',
    'one-front-door: src/s3/index.ts -> src/bucket/engine.ts',
    'server-ground-floor: src/server/http/answer.ts -> src/server/pipeline.ts',
  ]);
}, 120_000);

test('an import the map does not draw fails, whichever room it leaves; the arrows it draws pass', async () => {
  const door = (name: string) => `export const ${name} = 1;\n`;
  const root = project({
    'src/server/index.ts': door('server'),
    // store-below-the-server: the store never knows a front door.
    'src/store/index.ts': "import { server } from '../server/index.js';\nexport const store = 1;\nexport const seen = server;\n",
    // client-from-the-document: the client imports nothing of src/.
    'src/client/index.ts': "import { store } from '../store/index.js';\nexport const client = store;\n",
    // The front doors stay apart; what they share lives in the bucket library.
    'src/s3/index.ts': "import { worker } from '../worker/index.js';\nimport { bucket } from '../bucket/index.js';\nexport const s3 = worker + bucket;\n",
    'src/worker/index.ts': door('worker'),
    // Saving and loading state goes through the store and the buckets, never a front door.
    'src/state/index.ts': "import { s3 } from '../s3/index.js';\nexport const state = s3;\n",
    // A library imports nothing else of ours.
    'src/bucket/index.ts': "import { faults } from '../faults/index.js';\nexport const bucket = faults;\n",
    'src/faults/index.ts': door('faults'),
    // Nothing but the platform imports the server.
    'src/simulator/index.ts': "import { server } from '../server/index.js';\nexport const simulator = server;\n",
    // The edge is handed what it runs, never imports it.
    'src/edge/index.ts': "import { bucket } from '../bucket/index.js';\nexport const edge = bucket;\n",
    // The runtime of deployed workers is handed what is deployed, never reads the store itself.
    'src/runtime/index.ts': "import { store } from '../store/index.js';\nimport { bucket } from '../bucket/index.js';\nexport const runtime = store + bucket;\n",
    // A room not yet on the map: it may use its own files and the helpers, nothing else, and nothing may use it.
    'src/unmapped/index.ts': "import { rule } from './rule.js';\nimport { helper } from '../helper.js';\nimport { faults } from '../faults/index.js';\nexport const unmapped = rule + helper + faults;\n",
    'src/unmapped/rule.ts': door('rule'),
    'src/helper.ts': door('helper'),
    'src/platform/main.ts': "import { unmapped } from '../unmapped/index.js';\nimport { server } from '../server/index.js';\nimport { edge } from '../edge/index.js';\nexport const main = unmapped + server + edge;\n",
  });
  expect((await cruiseIn(root)).violations).toEqual([
    'not-in-allowed: src/bucket/index.ts -> src/faults/index.ts',
    'not-in-allowed: src/client/index.ts -> src/store/index.ts',
    'not-in-allowed: src/edge/index.ts -> src/bucket/index.ts',
    'not-in-allowed: src/platform/main.ts -> src/unmapped/index.ts',
    'not-in-allowed: src/runtime/index.ts -> src/store/index.ts',
    'not-in-allowed: src/s3/index.ts -> src/worker/index.ts',
    'not-in-allowed: src/simulator/index.ts -> src/server/index.ts',
    'not-in-allowed: src/state/index.ts -> src/s3/index.ts',
    'not-in-allowed: src/store/index.ts -> src/server/index.ts',
    'not-in-allowed: src/unmapped/index.ts -> src/faults/index.ts',
  ]);
}, 120_000);
