// Builds the reference documentation as one self-contained HTML page (scripts inlined, no CDN).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { bindingReference } from './binding-reference';
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

/** The guides beside the README, as the published page links them (it is built into dist/). */
const guides: [page: string, what: string][] = [
  ['server.md', 'the server: settings, authentication, deployment on PostgreSQL, the previous WAF'],
  ['mock-and-client.md', 'the mock and the typed client'],
  ['rules-language.md', 'the rules language and the request simulator'],
  ['buckets-and-workers.md', 'the bucket runtime, the worker host and the reference worker'],
  ['s3-endpoint.md', 'the S3-compatible endpoint'],
  ['performance.md', 'benchmarks and figures'],
];

/** A docs page as a section of the published page: its title dropped, its links kept working from dist/. */
function guideSection(page: string): string {
  const text = readFileSync(path.join(root, 'docs', page), 'utf8').replace(/^# .*\n+/, '');
  return text.replace(/\]\((?![a-z]+:|#)([^)]+)\)/g, (_, target: string) => `](../docs/${target})`);
}

/**
 * The document as published: the bundle plus what lives beside the API on the same page, as
 * sections without operations (Redoc's trait tags): the bucket binding's reference, generated
 * from its contract, and the S3 endpoint's page with its compatibility table.
 */
export function publishedDocument(): Record<string, unknown> {
  const document = parse(readFileSync(path.join(root, 'generated', 'openapi.yaml'), 'utf8')) as {
    info: { description: string };
    tags: { name: string; description?: string; 'x-traitTag'?: boolean }[];
    'x-tagGroups': { name: string; tags: string[] }[];
  };
  document.info.description += `\n## Beyond this page\n${guides.map(([page, what]) => `- [${page}](../docs/${page}): ${what}`).join('\n')}\n`;
  document.tags.push(
    { name: 'Bucket binding', 'x-traitTag': true, description: bindingReference() },
    { name: 'S3 endpoint', 'x-traitTag': true, description: guideSection('s3-endpoint.md') },
  );
  document['x-tagGroups'].push({ name: 'Beyond the management API', tags: ['Bucket binding', 'S3 endpoint'] });
  return document;
}

export function buildDocs(output = docsFile): string {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'docs-'));
  try {
    const source = path.join(scratch, 'openapi.yaml');
    writeFileSync(source, stringify(publishedDocument(), { lineWidth: 0 }));
    runTool('redocly', ['build-docs', source, '--inlineBundle', '--output', output, '--title', 'Edge Management API']);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  writeFileSync(output, offline(readFileSync(output, 'utf8')));
  return output;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`docs written to ${path.relative(root, buildDocs())}`);
}
