// Builds the installable packages (typed client, rules language, bucket runtime) from `src/`
// and packs them: `npm run packages` writes one tarball per package to `dist/packages/`.
//
// Each package is a committed manifest in `packages/<name>/` (name, exports, files, runtime
// dependencies) and a git-ignored `dist/` built here from the one source in `src/`:
// - `dist/index.js`: the package's modules bundled by esbuild into one ES module, so plain
//   Node imports it (the sources' extensionless imports and the JSON catalogue need no loader);
//   its dependencies stay external and must be the manifest's `dependencies`.
// - `dist/types/`: declarations emitted by the TypeScript compiler, beside the hand-written
//   `.d.ts` files they import (bucket contract, generated API types), with relative imports
//   spelled as Node resolves them (`./client.js`), so `moduleResolution: node16` consumers see
//   the types too.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { root } from './tools';

export const packageNames = ['client', 'filter', 'bucket'] as const;
export type PackageName = (typeof packageNames)[number];

export const packagesDir = path.join(root, 'dist', 'packages');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

export function manifestOf(name: PackageName): Manifest {
  return JSON.parse(readFileSync(path.join(root, 'packages', name, 'package.json'), 'utf8')) as Manifest;
}

/** A package's runtime dependencies must be pinned as the repository pins them. */
function checkDependencies(name: PackageName, manifest: Manifest): void {
  const rootManifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
  for (const [dependency, version] of Object.entries(manifest.dependencies ?? {})) {
    const pinned = rootManifest.dependencies?.[dependency];
    if (pinned !== version) {
      throw new Error(`packages/${name}/package.json: ${dependency} is ${version}, the repository pins ${pinned ?? 'nothing'}`);
    }
  }
}

async function bundle(name: PackageName, manifest: Manifest, outDir: string): Promise<void> {
  const result = await build({
    entryPoints: [path.join(root, 'src', name, 'index.ts')],
    outfile: path.join(outDir, 'index.js'),
    absWorkingDir: root,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node22',
    metafile: true,
    logLevel: 'warning',
  });
  const declared = new Set(Object.keys(manifest.dependencies ?? {}));
  const imported = Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
  const undeclared = [...new Set(imported)].filter((specifier) => !specifier.startsWith('node:') && !declared.has(packageOf(specifier)));
  if (undeclared.length > 0) {
    throw new Error(`packages/${name}: the build imports ${undeclared.join(', ')}, missing from the manifest's dependencies`);
  }
}

/** `openapi-fetch` for `openapi-fetch/dist/x`, `@scope/pkg` for `@scope/pkg/x`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function compilerOptions(): ts.CompilerOptions {
  const configFile = path.join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(configFile, (file) => ts.sys.readFile(file));
  return ts.parseJsonConfigFileContent(config, ts.sys, root).options;
}

function emitDeclarations(name: PackageName, typesDir: string): void {
  const options: ts.CompilerOptions = {
    ...compilerOptions(),
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: root,
    outDir: typesDir,
  };
  const program = ts.createProgram([path.join(root, 'src', name, 'index.ts')], options);
  const { diagnostics } = program.emit();
  // The compiler emits nothing for hand-written declaration files: ship the ones the package uses.
  for (const file of program.getSourceFiles()) {
    const relative = path.relative(root, file.fileName);
    if (file.isDeclarationFile && !relative.startsWith('..') && !relative.split(path.sep).includes('node_modules')) {
      mkdirSync(path.dirname(path.join(typesDir, relative)), { recursive: true });
      cpSync(file.fileName, path.join(typesDir, relative));
    }
  }
  // Ship only what the entry point's declarations reach: the rest is internal, and its inferred
  // types may name what a declaration cannot (the statements of the bucket's SQLite engine).
  const entry = path.join(typesDir, 'src', name, 'index.d.ts');
  const reached = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    const { text, imports } = withNodeSpecifiers(file, readFileSync(file, 'utf8'));
    writeFileSync(file, text);
    pending.push(...imports);
  }
  for (const file of declarationFiles(typesDir)) if (!reached.has(file)) rmSync(file);
  const shipped = diagnostics.filter((d) => d.file && reached.has(declarationOf(d.file.fileName, typesDir)));
  if (shipped.length > 0) {
    throw new Error(ts.formatDiagnostics(shipped, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }));
  }
}

/** Where the declaration of a source file lands under `typesDir`. */
function declarationOf(source: string, typesDir: string): string {
  return path.join(typesDir, path.relative(root, source)).replace(/(\.d)?\.ts$/, '.d.ts');
}

function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * `from './client'` becomes `from './client.js'` (or `./dir/index.js`), as Node's resolution
 * wants; answers the rewritten text and the declaration files it imports.
 */
function withNodeSpecifiers(file: string, text: string): { text: string; imports: string[] } {
  const imports: string[] = [];
  const rewritten = text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\2/g, (whole, lead: string, quote: string, specifier: string) => {
    const base = path.resolve(path.dirname(file), specifier.replace(/\.js$/, ''));
    const [declaration, resolved] = existsSync(`${base}.d.ts`)
      ? [`${base}.d.ts`, specifier.endsWith('.js') ? specifier : `${specifier}.js`]
      : [path.join(base, 'index.d.ts'), `${specifier}/index.js`];
    if (!existsSync(declaration)) throw new Error(`${path.relative(root, file)}: cannot resolve ${specifier}`);
    imports.push(declaration);
    return `${lead}${quote}${resolved}${quote}`;
  });
  return { text: rewritten, imports };
}

/** Builds `packages/<name>/dist` from the sources. */
export async function buildPackage(name: PackageName): Promise<void> {
  const manifest = manifestOf(name);
  checkDependencies(name, manifest);
  const outDir = path.join(root, 'packages', name, 'dist');
  rmSync(outDir, { recursive: true, force: true });
  await bundle(name, manifest, outDir);
  emitDeclarations(name, path.join(outDir, 'types'));
}

/** Packs a built package into `destination`; answers the tarball's path. */
export function packPackage(name: PackageName, destination = packagesDir): string {
  mkdirSync(destination, { recursive: true });
  const output = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], {
    cwd: path.join(root, 'packages', name),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [packed] = JSON.parse(output) as { filename: string }[];
  return path.join(destination, packed!.filename);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const name of packageNames) {
    await buildPackage(name);
    console.log(path.relative(root, packPackage(name)));
  }
}
