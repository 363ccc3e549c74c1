// The published docs as a reader sees them, at 1400 and 1024 px: nothing requested outside the
// file, the migration table and how-to sequences without words broken in the middle, how-to
// steps that lead to their operations, the servers panel without raw markup, a short title.
// Screenshots of each section land in test-artifacts/ (docs-<width>-<section>.png).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../../scripts/docs';
import { loadBundle, operationsOf } from '../support/bundle';

const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts');
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const doc = loadBundle() as { info: { title: string }; servers: { description?: string }[]; tags: { name: string }[]; 'x-tagGroups'?: { tags: string[] }[] };

let browser: Browser;
let pageUrl: string;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  pageUrl = pathToFileURL(buildDocs(path.join(artifacts, 'docs-reading.html'))).href;
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

/** Redoc's address of an operation: `#/<tag slug>/<operationId in lower case>`. */
const slug = (text: string) => text.toLowerCase().replace(/\s+/g, '-');
const operationLinks = new Map(
  operationsOf(doc).map((op) => [`#/${slug((op.operation.tags as string[])[0]!)}/${op.operationId.toLowerCase()}`, op.summary]),
);

const sections = {
  top: '',
  'waf-migration': '#/waf-migration',
  'how-to-paranoia-level': '#/rulesets/how-to-set-the-owasp-paranoia-level',
  'how-to-score-threshold': '#/rulesets/how-to-set-the-score-threshold-and-action',
  'how-to-custom-log-fields': '#/rulesets/how-to-configure-custom-log-fields',
  'how-to-migrate-overrides': '#/waf-migration/how-to-migrate-a-zone-that-has-uri-based-waf-overrides',
} as const;

// What the functions run in the page use of it (the project compiles without the DOM library).
interface PageNode {
  nodeType: number;
  textContent: string | null;
}
interface PageElement extends PageNode {
  closest(selector: string): PageElement | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): { forEach(each: (element: PageElement) => void): void };
  getAttribute(name: string): string | null;
  nextElementSibling: PageElement | null;
}
declare const document: {
  getElementById(id: string): PageElement | null;
  createRange(): { setStart(node: PageNode, offset: number): void; setEnd(node: PageNode, offset: number): void; getBoundingClientRect(): { top: number } };
};
declare function getComputedStyle(element: unknown): { lineHeight: string; fontSize: string };

/**
 * Inline code chips the layout breaks between two letters or digits ("star t", "fini shed").
 * A break after a hyphen, slash or space (`X-Auth-` / `Key`) is where text may wrap.
 */
function brokenChips(page: Page): Promise<string[]> {
  return page.$$eval('code', (chips) =>
    chips
      .filter((chip) => !chip.closest('pre') && chip.getClientRects().length > 1)
      .filter((chip) => {
        const text = chip.firstChild;
        if (!text || text.nodeType !== 3 /* a text node */) return false;
        const value = text.textContent ?? '';
        const range = document.createRange();
        let previousTop: number | undefined;
        for (let i = 0; i < value.length; i++) {
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          const top = range.getBoundingClientRect().top;
          if (previousTop !== undefined && top > previousTop + 2 && /[A-Za-z0-9]/.test(value[i - 1]!) && /[A-Za-z0-9]/.test(value[i]!)) return true;
          previousTop = top;
        }
        return false;
      })
      .map((chip) => chip.textContent ?? ''),
  );
}

async function open(page: Page, hash: string): Promise<void> {
  await page.goto(`${pageUrl}${hash}`, { waitUntil: 'load' });
  await page.getByText('Status and error codes').first().waitFor({ timeout: 30_000 });
  // Redoc renders the section asked for, then scrolls to it: give it time to settle.
  const id = hash.replace(/^#\/?/, '');
  if (id) await page.locator(`[id="${id}"], [id="/${id}"]`).first().waitFor({ timeout: 5_000 }).catch(() => undefined);
  await page.waitForTimeout(1_500);
}

/**
 * The links in the steps of a how-to: the list after its heading. Redoc renders each heading
 * of a description in its own block; the steps are in the blocks that follow, up to the next heading.
 */
function stepLinks(page: Page, headingId: string): Promise<string[]> {
  return page.evaluate((id) => {
    const heading = document.getElementById(id);
    const block = heading?.closest('[data-component-name="Markdown/Markdown"]') ?? heading;
    const found: string[] = [];
    for (let next = block?.nextElementSibling; next && !next.querySelector('h1, h2'); next = next.nextElementSibling) {
      next.querySelectorAll('ol > li a[href^="#/"]').forEach((a) => found.push(a.getAttribute('href')!));
    }
    return found;
  }, headingId);
}

describe('the published docs read well', () => {
  it('group every tag in the sidebar (a tag outside x-tagGroups would be hidden)', () => {
    const grouped = new Set((doc['x-tagGroups'] ?? []).flatMap((group) => group.tags));
    const ungrouped = doc.tags.map((tag) => tag.name).filter((name) => !grouped.has(name));
    expect(ungrouped, 'tags to add to a group of x-tagGroups in openapi/openapi.yaml').toEqual([]);
  });

  it('have a short title and a servers description without markup', () => {
    expect(doc.info.title).toBe('Edge Management API');
    for (const server of doc.servers) expect(server.description ?? '').not.toMatch(/[`*_[\]]/);
  });

  for (const width of [1400, 1024]) {
    it(`at ${width} px: no request leaves the file, no chip breaks mid-word, how-to steps lead to their operations`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 1000 } });
      const outside: string[] = [];
      const consoleErrors: string[] = [];
      // The network is blocked; requests the page makes to itself (its blob: workers, data:
      // images) stay in the file, any other is recorded.
      await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
      page.on('request', (request) => {
        if (!/^(file|blob|data):/.test(request.url())) outside.push(request.url());
      });
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      page.on('pageerror', (error) => consoleErrors.push(error.message));

      const broken: Record<string, string[]> = {};
      const links = new Set<string>();
      for (const [name, hash] of Object.entries(sections)) {
        await open(page, hash);
        await page.screenshot({ path: path.join(artifacts, `docs-${width}-${name}.png`) });
        const chips = await brokenChips(page);
        if (chips.length > 0) broken[name] = chips;
        if (name.startsWith('how-to')) {
          const hrefs = await stepLinks(page, hash.slice(1)); // headings' ids are `/rulesets/how-to-...`
          expect(hrefs.length, `${name} links its steps`).toBeGreaterThanOrEqual(2);
          hrefs.forEach((href) => links.add(href));
        }
      }
      expect(broken).toEqual({});

      // The title, with the version Redoc adds to it, takes at most two lines beside its Copy button.
      await open(page, '');
      const title = page.locator('h1', { hasText: doc.info.title }).first();
      const box = await title.boundingBox();
      const lineHeight = await title.evaluate((h1) => parseFloat(getComputedStyle(h1).lineHeight) || parseFloat(getComputedStyle(h1).fontSize) * 1.3);
      expect(box!.height).toBeLessThan(lineHeight * 2.5);

      // Every link of the how-to steps opens the operation it names.
      expect([...links].filter((href) => !operationLinks.has(href))).toEqual([]);
      for (const href of links) {
        await open(page, href);
        await expect.poll(() => page.locator('h1, h2', { hasText: operationLinks.get(href)! }).first().isVisible()).toBe(true);
      }

      // The servers panel of the overview: its description rendered as plain text, no backticks.
      await open(page, '');
      const servers = page.getByText(doc.servers[0]!.description!, { exact: true }).first();
      await servers.scrollIntoViewIfNeeded();
      expect(await servers.isVisible()).toBe(true);
      await page.screenshot({ path: path.join(artifacts, `docs-${width}-servers.png`) });

      expect(outside).toEqual([]);
      expect(consoleErrors).toEqual([]);
      await page.close();
    }, 240_000);
  }
});
