// `npm run mock`: runs the mock (scripts/mock.ts) from its bundle (see bundles.mjs), rebuilt first
// if a source or the document changed since it was built. Plain node, no TypeScript compiler at
// run time, and Prism's operations prepared at the build rather than at every start.
import { pathToFileURL } from 'node:url';
import { mockBundle } from './bundles.mjs';

await import(pathToFileURL(mockBundle()).href);
