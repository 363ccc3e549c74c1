// `npm start`: bundles the server's TypeScript into one ES module (dependencies stay in
// node_modules) and runs it with plain node, which starts much faster than transpiling every
// module at load time. The bundle is build output under dist/, made anew on every start.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist', 'server', 'main.mjs');
await build({
  entryPoints: [path.join(root, 'src/server/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
await import(pathToFileURL(outfile).href);
