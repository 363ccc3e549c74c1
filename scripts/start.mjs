// `npm start`: runs the server from its bundle (see server-bundle.mjs), rebuilt first if a
// source changed since it was built. Plain node, no TypeScript compiler at run time.
import { pathToFileURL } from 'node:url';
import { serverBundle } from './server-bundle.mjs';

await import(pathToFileURL(await serverBundle()).href);
