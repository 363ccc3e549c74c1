// Builds the reference documentation as one self-contained HTML page (scripts inlined, no CDN).
import path from 'node:path';
import { root, runTool } from './tools';

export const docsFile = path.join(root, 'dist', 'index.html');

export function buildDocs(output = docsFile): string {
  runTool('redocly', [
    'build-docs',
    'generated/openapi.yaml',
    '--inlineBundle',
    '--output',
    output,
    '--title',
    'Edge Management API',
  ]);
  return output;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`docs written to ${path.relative(root, buildDocs())}`);
}
