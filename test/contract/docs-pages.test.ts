// README is the front door and docs/ the house: every link between them leads somewhere, and every
// `npm run` command they name exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const text = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text(page).split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]!));
  }
  return anchors;
}

test('README stays a front door and links every docs page', () => {
  const readme = text('README.md');
  for (const page of pages.filter((page) => page.startsWith('docs/'))) expect(readme, page).toContain(`](${page}`);
});

test.each(pages)('every local link of %s leads to a file and heading that exist', (page) => {
  const broken: string[] = [];
  for (const [, target] of text(page).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    const [file, anchor] = target!.split('#');
    const path = file ? resolve(dirname(join(ROOT, page)), file) : join(ROOT, page);
    if (!existsSync(path)) broken.push(`${target} (no such file)`);
    else if (anchor && path.endsWith('.md') && !anchorsOf(path.slice(ROOT.length + 1)).has(anchor)) broken.push(`${target} (no such heading)`);
  }
  expect(broken).toEqual([]);
});

test.each(pages)('every npm script %s names exists', (page) => {
  const scripts = Object.keys((JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts);
  const named = [...text(page).matchAll(/npm run(?: -s)? ([a-z][a-z0-9:-]*)/g)].map((match) => match[1]!);
  expect(named.filter((name) => !scripts.includes(name))).toEqual([]);
});
