// The whole platform as one ES module (dist/platform/main.mjs, from src/platform/main.ts): our
// TypeScript and its dependencies bundled by esbuild as scripts/server-bundle.mjs bundles the API
// alone, so `npm start` loads one file with plain node. Rebuilt only when a file it was built
// from changed (sizes and modification times kept beside it); `npm ci` builds it (postinstall);
// `node scripts/platform-bundle.mjs` builds it by hand.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bundleFile = path.join(root, 'dist', 'platform', 'main.mjs');
const inputsFile = path.join(root, 'dist', 'platform', 'inputs.json');

/** The bundle's path, after building it if it is missing or older than one of its inputs. */
export async function platformBundle() {
  if (!isCurrent()) await buildBundle();
  return bundleFile;
}

function fingerprint(file) {
  const stat = statSync(path.join(root, file), { throwIfNoEntry: false });
  return stat ? `${stat.size}:${stat.mtimeMs}` : 'missing';
}

function isCurrent() {
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(inputsFile, 'utf8'));
    statSync(bundleFile);
  } catch {
    return false;
  }
  return Object.entries(recorded).every(([file, print]) => fingerprint(file) === print);
}

async function buildBundle() {
  // Only loaded when a build is due: most starts never need it.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [path.join(root, 'src', 'platform', 'main.ts')],
    outfile: bundleFile,
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.12', // the oldest Node that package.json's engines accept
    // tsx is loaded at run time, and only for workers written in TypeScript.
    external: ['better-sqlite3', 'pg-native', 'tsx'],
    // jsonc-parser's main build is UMD, whose require() calls esbuild cannot see.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    // For NODE_OPTIONS=--enable-source-maps; off by default, reading the map costs ~0.1 s a start.
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  // Written aside and renamed, so a platform starting meanwhile never loads half a file.
  mkdirSync(path.dirname(bundleFile), { recursive: true });
  const put = (file, contents) => {
    const aside = `${file}.${process.pid}.tmp`;
    writeFileSync(aside, contents);
    renameSync(aside, file);
  };
  for (const output of result.outputFiles) put(output.path, output.contents);
  const recorded = Object.fromEntries(Object.keys(result.metafile.inputs).map((file) => [file, fingerprint(file)]));
  put(inputsFile, `${JSON.stringify(recorded)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildBundle();
}
