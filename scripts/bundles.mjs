// The platform (src/platform/main.ts, what `npm start` runs) and the API alone (src/server/main.ts)
// each as one ES module, dist/<name>/<name>.mjs: our TypeScript and its dependencies (all but the
// native SQLite binding, pg's optional native half and tsx, loaded only for workers written in
// TypeScript) bundled by esbuild, so a start loads one file instead of compiling TypeScript and
// resolving ~1,000 modules. Each bundle's entry, dist/<name>/main.mjs, turns on Node's compile
// cache (compile-cache/ beside it) before loading it: V8 then reads the bundle's compiled code
// back instead of parsing 4 MB of JavaScript at every start (the first start after a build fills
// the cache).
//
// A bundle is rebuilt only when one of the files it was built from changed (their sizes and
// modification times are kept beside it), so a start after an edit is always current and any
// other start skips the build (generated/openapi.json and fixtures/seed.json count among the
// inputs: the document the server prepares from the one, and the check of the other, are
// computed here, at build time; the dependencies count through npm's record of what it
// installed). A start that must build does it in a child process, so the serving process never
// holds the build. `npm ci` builds both (postinstall); `node scripts/bundles.mjs [name...]` builds
// them by hand.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A new data directory's database, shared by the bundles (see prepareStoreImage). */
const STORE_IMAGE = path.join(root, 'dist', 'store-image.sqlite');

/**
 * The bundles: a name (its folder under dist/), the module it starts from, what the build prepares
 * for it (plugins that put the prepared values in place of the sources' prebuilt-*.ts stand-ins),
 * and the files read by that preparation rather than bundled.
 */
const BUNDLES = {
  platform: { entry: 'src/platform/main.ts', prepare: prepareServer, inputs: ['generated/openapi.json', 'fixtures/seed.json'], storeImage: true, deferred: () => [deferredPackagesPlugin(DEFERRED_PACKAGES)] },
  server: { entry: 'src/server/main.ts', prepare: prepareServer, inputs: ['generated/openapi.json', 'fixtures/seed.json'], storeImage: true, deferred: () => [deferredPackagesPlugin(DEFERRED_PACKAGES)] },
  // `npm run mock`: Prism's operations prepared from the document here, not at every start.
  mock: { entry: 'scripts/mock.ts', prepare: prepareMock, inputs: ['generated/openapi.yaml'], storeImage: false, deferred: () => [deferredPackagesPlugin(MOCK_DEFERRED.packages, { fromDependencies: true, modules: MOCK_DEFERRED.modules })] },
};

/** Where a bundle's files are. */
function filesOf(name) {
  const dir = path.join(root, 'dist', name);
  return {
    entry: path.join(dir, 'main.mjs'),
    code: path.join(dir, `${name}.mjs`),
    compileCache: path.join(dir, 'compile-cache'),
    inputs: path.join(dir, 'inputs.json'),
  };
}

/** The platform's entry (`npm start`), after building it if it is missing or out of date. */
export function platformBundle() {
  return current('platform');
}

/** The API server's entry alone, after building it if it is missing or out of date. */
export function serverBundle() {
  return current('server');
}

/** The mock's entry (`npm run mock`), after building it if it is missing or out of date. */
export function mockBundle() {
  return current('mock');
}

/**
 * The build runs in a process of its own: esbuild's outputs and the sources it imports to prepare
 * the document, the seed and the store image (zod, Ajv, the document itself) would otherwise stay
 * in the serving process for its whole life, some 60 MiB of resident memory.
 */
function current(name) {
  if (!isCurrent(name)) {
    const build = spawnSync(process.execPath, [fileURLToPath(import.meta.url), name], { stdio: 'inherit' });
    if (build.status !== 0) {
      process.stderr.write(`Building the ${name} bundle failed (${build.error?.message ?? `exit ${build.status ?? build.signal}`}).\n`);
      process.exit(1);
    }
  }
  return filesOf(name).entry;
}

function fingerprint(file) {
  const stat = statSync(path.join(root, file), { throwIfNoEntry: false });
  return stat ? `${stat.size}:${stat.mtimeMs}` : 'missing';
}

function isCurrent(name) {
  const files = filesOf(name);
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(files.inputs, 'utf8'));
    statSync(files.entry);
    statSync(files.code);
    if (BUNDLES[name].storeImage) statSync(STORE_IMAGE);
  } catch {
    return false;
  }
  return Object.entries(recorded).every(([file, print]) => fingerprint(file) === print);
}

/** The entry: the compile cache on (Node 22.8+), then the bundle. */
const entryOf = (name) => `// Made by scripts/bundles.mjs: the compile cache on, then the ${name}'s bundle.
import module from 'node:module';
import { fileURLToPath } from 'node:url';

module.enableCompileCache?.(fileURLToPath(new URL('compile-cache', import.meta.url)));
await import('./${name}.mjs');
`;

/**
 * The document as the server prepares it before answering (src/server/http/prepared-document.ts),
 * computed now by the same function, built apart for the purpose and run.
 */
async function prepareDocument(build) {
  return withSources(build, 'prepare-document', "export { prepareDocument } from './src/server/http/prepared-document';", (sources) =>
    sources.prepareDocument(),
  );
}

/** The project's seed file checked as the store checks it (src/store/seed/load.ts): see prebuilt-seed.ts. */
async function prepareSeed(build) {
  const exports = "export { loadSeedFile } from './src/store/seed/load'; export { DEFAULT_SEED_FILE } from './src/store/open/kysely-store';";
  return withSources(build, 'prepare-seed', exports, async ({ loadSeedFile, DEFAULT_SEED_FILE }) => {
    const text = readFileSync(DEFAULT_SEED_FILE, 'utf8');
    const checked = JSON.stringify(await loadSeedFile(DEFAULT_SEED_FILE));
    const sha256 = createHash('sha256').update(text).digest('hex');
    // The text itself when the check kept it as it is (the usual case): nothing more to carry.
    return checked === JSON.stringify(JSON.parse(text)) ? { sha256 } : { sha256, seed: checked };
  });
}

/**
 * A new data directory's database, migrated and seeded with the project's seed file by the
 * sources' own store, written beside the bundles (see src/store/sqlite/prebuilt-image.ts).
 */
async function prepareStoreImage(build, seedSha256) {
  const exports = "export { openSqliteStore, SQLITE_FILE_NAME } from './src/store/sqlite/open';";
  return withSources(build, 'prepare-store-image', exports, async ({ openSqliteStore, SQLITE_FILE_NAME }) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'store-image-'));
    try {
      const store = await openSqliteStore({ dataDir });
      // Closing the last connection folds the log into the file and removes it.
      await store.close();
      mkdirSync(path.dirname(STORE_IMAGE), { recursive: true });
      const aside = `${STORE_IMAGE}.${process.pid}.tmp`;
      copyFileSync(path.join(dataDir, SQLITE_FILE_NAME), aside);
      renameSync(aside, STORE_IMAGE);
      return { seedSha256 };
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

/**
 * Runs `use` on the exports of a module of the sources (`exports`, TypeScript), built apart for
 * the purpose, its dependencies left to node_modules, and removed afterwards.
 */
async function withSources(build, name, exports, use) {
  mkdirSync(path.join(root, 'dist'), { recursive: true });
  const script = path.join(root, 'dist', `${name}.${process.pid}.mjs`);
  await build({
    stdin: { contents: exports, resolveDir: root, loader: 'ts' },
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  try {
    return await use(await import(pathToFileURL(script).href));
  } finally {
    rmSync(script, { force: true });
  }
}

/** The server's preparations: its document, the checked seed and a new data directory's database. */
async function prepareServer(build) {
  const document = await prepareDocument(build);
  const seed = await prepareSeed(build);
  const image = await prepareStoreImage(build, seed.sha256);
  return [prebuiltDocumentPlugin(document), prebuiltSeedPlugin(seed), prebuiltImagePlugin(image)];
}

/** The mock's preparation: Prism's operations and the wording, from generated/openapi.yaml (scripts/mock-server.ts). */
async function prepareMock(build) {
  const prepared = await withSources(build, 'prepare-mock', "export { prepareMock } from './scripts/mock-server';", (sources) => sources.prepareMock());
  return [
    {
      name: 'prebuilt-mock',
      setup(pluginBuild) {
        pluginBuild.onLoad({ filter: /[\\/]scripts[\\/]mock-prebuilt\.ts$/ }, () => ({
          contents: `export const prebuiltMock = JSON.parse(${JSON.stringify(JSON.stringify(prepared))});\n`,
          loader: 'js',
        }));
      },
    },
  ];
}

/** Names the store image in the bundle, in place of the sources' empty prebuilt-image.ts. */
function prebuiltImagePlugin(prepared) {
  return {
    name: 'prebuilt-image',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]store[\\/]sqlite[\\/]prebuilt-image\.ts$/ }, () => ({
        // Beside the bundles, from the bundle's own place (dist/<name>/<name>.mjs).
        contents: `export const prebuiltImage = { file: new URL('../store-image.sqlite', import.meta.url), seedSha256: ${JSON.stringify(prepared.seedSha256)} };\n`,
        loader: 'js',
      }));
    },
  };
}

/** Puts the checked seed into the bundle, in place of the sources' empty prebuilt-seed.ts. */
function prebuiltSeedPlugin(prepared) {
  return {
    name: 'prebuilt-seed',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]store[\\/]seed[\\/]prebuilt-seed\.ts$/ }, () => ({
        contents: `export const prebuiltSeed = ${JSON.stringify(prepared)};\n`,
        loader: 'js',
      }));
    },
  };
}

/** Puts the prepared document into the bundle, in place of the sources' empty prebuilt-document.ts. */
function prebuiltDocumentPlugin(prepared) {
  return {
    name: 'prebuilt-document',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]server[\\/]http[\\/]prebuilt-document\.ts$/ }, () => ({
        // One JSON text, which V8 parses faster than the same value written as JavaScript.
        contents: `export const prebuiltDocument = JSON.parse(${JSON.stringify(JSON.stringify(prepared))});\n`,
        loader: 'js',
      }));
    },
  };
}

/**
 * node:http as CommonJS's require() gives it. An ES module import of it builds the module's ES
 * facade, which reads every export, getters included: `WebSocket`, `CloseEvent` and
 * `MessageEvent` then load Node's whole fetch client (undici), ~0.2 s of start-up the server
 * never uses. Express and the other CommonJS dependencies require() it already.
 */
const requiredHttpPlugin = {
  name: 'required-http',
  setup(build) {
    build.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      args.namespace === 'required-http' ? { path: 'node:http', external: true } : { path: 'node:http', namespace: 'required-http' },
    );
    build.onLoad({ filter: /.*/, namespace: 'required-http' }, () => ({ contents: "module.exports = require('node:http');", loader: 'js' }));
  },
};

/**
 * Packages only some starts use (zod checks configuration, auth and seed files and request
 * descriptions; yaml reads auth files), evaluated on first use instead of at every start: an ES
 * module is evaluated when the bundle is, but a module reached by require() only when first
 * required. Our sources' imports of them get a CommonJS stand-in whose exports are getters that
 * require the package itself; the names come from the package as this build loads it. The
 * modules that use them build their schemas on first use too, so that nothing touches an export
 * while the bundle is evaluated. About 60 ms of every start (docs/performance.md, the management API server's start-up).
 */
const DEFERRED_PACKAGES = ['zod', 'yaml'];

/**
 * The mock's own: Prism requires them when it loads but uses them only for some requests (its
 * schema-driven generator, with faker, when an answer has no example or `Prefer: dynamic=true`
 * asks for one; node-fetch for callbacks and proxying) or never once the operations are prepared
 * (http-spec and yaml read the document, at the build): 6 of the bundle's 11 MB, evaluated on
 * first use. Deferred wherever they are imported, Prism's modules included.
 */
const MOCK_DEFERRED = {
  packages: ['node-fetch', '@stoplight/http-spec', 'yaml'],
  // The generator's module calls faker's setup as it loads, so it is the module that waits.
  modules: ['@stoplight/prism-http/dist/mocker/generator/JSONSchema.js'],
};

/**
 * Defers `packages` (and their sub-paths), imported from our sources only or, with
 * `fromDependencies`, from anywhere; and `modules` (files of packages), wherever they are required.
 */
function deferredPackagesPlugin(packages, { fromDependencies = false, modules = [] } = {}) {
  const requireHere = createRequire(path.join(root, 'package.json'));
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const packagePattern = new RegExp(`^(${packages.map(escape).join('|')})(/.*)?$`);
  const deferredFiles = new Set(modules.map((module) => requireHere.resolve(module)));
  const basenames = [...deferredFiles].map((file) => escape(path.basename(file, '.js')));
  // Never matches when no module is deferred.
  const modulePattern = new RegExp(basenames.length > 0 ? `(^|/)(${basenames.join('|')})(\\.js)?$` : '^$.');
  const standIn = (file) => ({ path: file, namespace: 'deferred' });
  return {
    name: 'deferred-packages',
    setup(build) {
      build.onResolve({ filter: packagePattern }, (args) => {
        // The stand-in's own require(): the package itself.
        if (args.namespace === 'deferred') return undefined;
        if (!fromDependencies && (!/[\\/]src[\\/]/.test(args.importer) || /node_modules/.test(args.importer))) return undefined;
        // Where the importer would find it, so that each stand-in stands for the package its importer gets.
        return standIn(requireHere.resolve(args.path, { paths: [path.dirname(args.importer)] }));
      });
      build.onResolve({ filter: modulePattern }, (args) => {
        if (args.namespace === 'deferred' || !args.importer) return undefined;
        const file = requireHere.resolve(args.path, { paths: [path.dirname(args.importer)] });
        return deferredFiles.has(file) ? standIn(file) : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'deferred' }, (args) => ({
        contents: [
          'let loaded;',
          `const load = () => (loaded ??= require(${JSON.stringify(args.path)}));`,
          "Object.defineProperty(exports, '__esModule', { value: true });",
          `for (const name of ${JSON.stringify(Object.keys(requireHere(args.path)))}) Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });`,
        ].join('\n'),
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}

/**
 * JSON files bundled as one JSON text each, parsed when the module is first evaluated: V8 parses
 * JSON faster than it runs the same value written as a JavaScript literal, esbuild's way (the
 * media type database alone is 200 KB).
 */
const jsonTextPlugin = {
  name: 'json-text',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, (args) => ({
      contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(readFileSync(args.path, 'utf8'))))});\n`,
      loader: 'js',
    }));
  },
};

/** What changes when the dependencies do: npm's record of what it installed, and the patches to them. */
function dependencyInputs() {
  const patches = readdirSync(path.join(root, 'patches')).filter((file) => file.endsWith('.patch'));
  return ['package-lock.json', 'node_modules/.package-lock.json', ...patches.map((file) => `patches/${file}`)];
}

async function buildBundle(name) {
  const files = filesOf(name);
  // Only loaded when a build is due: most starts never need it.
  const { build } = await import('esbuild');
  const prepared = await BUNDLES[name].prepare(build);
  const result = await build({
    entryPoints: [path.join(root, BUNDLES[name].entry)],
    outfile: files.code,
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.12', // the oldest Node that package.json's engines accept
    // tsx is loaded at run time, and only for workers written in TypeScript; workerd's package
    // finds its platform's binary from where it is installed.
    external: ['better-sqlite3', 'pg-native', 'tsx', 'workerd'],
    // jsonc-parser's main build is UMD, whose require() calls esbuild cannot see; its ES module
    // build bundles as any other (the configuration files' reader uses it).
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    // For NODE_OPTIONS=--enable-source-maps when a stack trace must point into the sources;
    // not on by default, since reading the map costs ~0.1 s at every start.
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [...prepared, requiredHttpPlugin, ...BUNDLES[name].deferred(), jsonTextPlugin],
    // Whitespace only: a third less text to read and compile at every start, while every name
    // stays (the server tells the validator's middlewares apart by their functions' names, which
    // the syntax minifier drops).
    minifyWhitespace: true,
  });
  // Written aside and renamed, so a process starting meanwhile never loads half a file.
  mkdirSync(path.dirname(files.entry), { recursive: true });
  const put = (file, contents) => {
    const aside = `${file}.${process.pid}.tmp`;
    writeFileSync(aside, contents);
    renameSync(aside, file);
  };
  for (const output of result.outputFiles) put(output.path, output.contents);
  // The cache of the previous build's code would only be read to be found stale.
  rmSync(files.compileCache, { recursive: true, force: true });
  put(files.entry, entryOf(name));
  // Dependencies change only with an install, which rewrites npm's record of node_modules and
  // rebuilds (postinstall): that record stands for the thousand files bundled from there, so a
  // start checks some 300 files rather than 1,300.
  const ownInputs = Object.keys(result.metafile.inputs).filter((file) => !file.startsWith('node_modules/'));
  // Read by the build rather than bundled: a change to them must rebuild the bundle too.
  const recorded = Object.fromEntries([...ownInputs, ...BUNDLES[name].inputs, ...dependencyInputs()].map((file) => [file, fingerprint(file)]));
  put(files.inputs, `${JSON.stringify(recorded)}\n`);
}

// `node scripts/bundles.mjs [name...]`: builds the bundles named (all by default).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(BUNDLES);
  try {
    for (const name of names) {
      if (!(name in BUNDLES)) throw new Error(`no bundle is called ${name} (${Object.keys(BUNDLES).join(', ')})`);
      await buildBundle(name);
    }
  } catch (error) {
    // esbuild has printed its own messages (file, line and reason) already.
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
