// `npm start`: runs the whole platform (src/platform/main.ts) from its bundle (see bundles.mjs),
// rebuilt first if a source changed since it was built. Plain node, no TypeScript compiler at run
// time.
import { pathToFileURL } from 'node:url';
import { platformBundle } from './bundles.mjs';

await import(pathToFileURL(platformBundle()).href);
