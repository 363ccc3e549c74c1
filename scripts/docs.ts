// Builds the reference documentation as one self-contained HTML page (scripts inlined, no CDN).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { root, runTool } from './tools';

export const docsFile = path.join(root, 'dist', 'index.html');

// The page's "API docs by Redocly" badge loads its logo from Redoc's CDN: the attribution stays,
// drawn from the page itself (a request leaving the file fails offline and reports an error).
const logoText = (text: string) =>
  `data:image/svg+xml,${encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${text.length * 8}" height="16"><text x="0" y="12" font-family="sans-serif" font-size="12" font-weight="bold" fill="#0044d4">${text}</text></svg>`,
  )}`;
const offlineLogos: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': logoText('Redocly'),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': logoText('R'),
};

// Redoc lets an inline code chip break anywhere (`word-break: break-word`), which also makes
// table columns as narrow as one letter: "star t", "fini shed". Chips break between words only,
// and a chip wider than its line still wraps rather than overflow (`overflow-wrap` stays).
// Headings one size smaller, so the title and the longer operation summaries take fewer lines
// in the middle column.
const pageStyle = '<style>code { word-break: normal !important; } :root { --h1-font-size: 30px; --h1-line-height: 38px; }</style>';

/** Makes the built page self-contained: no request leaves the file. */
function offline(html: string): string {
  let page = html;
  for (const [url, replacement] of Object.entries(offlineLogos)) page = page.split(url).join(replacement);
  const remote = /https:\/\/cdn\.redoc\.ly\/[^\s"'`)]+/.exec(page);
  if (remote) throw new Error(`docs: the page would load ${remote[0]}; make it part of the page in scripts/docs.ts`);
  return page.replace('</head>', `${pageStyle}\n</head>`);
}

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
  writeFileSync(output, offline(readFileSync(output, 'utf8')));
  return output;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`docs written to ${path.relative(root, buildDocs())}`);
}
