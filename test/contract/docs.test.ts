// The published reference page, opened in headless Chromium with every request outside the
// file blocked: it must render every operation and raise no page errors.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../../scripts/docs';
import { loadBundle, operationsOf } from '../support/bundle';

const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts');
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let browser: Browser;
let pageFile: string;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  pageFile = buildDocs(path.join(artifacts, 'docs.html'));
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('the published docs', () => {
  it('render every operation offline, without page errors', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const pageErrors: string[] = [];
    const blocked: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const url = pathToFileURL(pageFile).href;
    // Any request leaving the file is refused and recorded.
    await page.route('**/*', (route) => {
      if (route.request().url().startsWith(url)) return route.continue();
      blocked.push(route.request().url());
      return route.abort();
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.getByText('Status and error codes').first().waitFor({ timeout: 30_000 });
    // The page shows one tag at a time and renders as it scrolls: open each tag in the sidebar
    // (the first match in the page), then each of its entries, and read the rendered heading.
    const byTag = new Map<string, string[]>();
    for (const op of operationsOf(loadBundle())) {
      const tag = (op.operation.tags as string[])[0]!;
      byTag.set(tag, [...(byTag.get(tag) ?? []), op.summary]);
    }
    const headings = (text: string) =>
      // Deprecated operations (the previous WAF's) carry a "deprecated" badge inside their heading.
      page.locator('h1, h2, h3').filter({ hasText: new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*(?:deprecated)?\\s*$`) }).first();
    const rendered: string[] = [];
    // The how-to sequences, each with its sidebar entry under the tag that teaches it.
    const howTos: Record<string, string[]> = {
      Rulesets: ['How to set the OWASP paranoia level', 'How to set the score threshold and action', 'How to configure custom log fields'],
      'WAF Migration': ['How to migrate a zone that has URI-based WAF overrides'],
    };
    for (const [tag, summaries] of byTag) {
      await page.getByText(tag, { exact: true }).first().click();
      for (const summary of [...(howTos[tag] ?? []), ...summaries]) {
        await page.getByText(summary, { exact: true }).first().click();
        const heading = headings(summary);
        await heading.waitFor({ timeout: 30_000 });
        if (await heading.isVisible()) rendered.push(summary);
      }
    }
    expect(rendered.sort()).toEqual([...Object.values(howTos).flat(), ...[...byTag.values()].flat()].sort());
    // Beside the operations: the bucket binding's reference, generated from its contract, and the
    // S3 endpoint's page, each with its own sidebar entries.
    await page.getByText('Bucket binding', { exact: true }).first().click();
    await page.getByText('MultipartUpload', { exact: true }).first().click();
    await headings('MultipartUpload').waitFor({ timeout: 30_000 });
    // Waits for the signature to be shown (the first match in the DOM may be a hidden copy).
    await page
      .getByText('resumeMultipartUpload(key: string, uploadId: string): MultipartUpload')
      .filter({ visible: true })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByText('S3 endpoint', { exact: true }).first().click();
    await headings('S3 endpoint').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(artifacts, 'docs.png') });
    expect(pageErrors).toEqual([]);
    // Nothing leaves the file (the page's own blob: workers and data: images stay in it).
    expect(blocked.filter((u) => !/^(blob|data):/.test(u))).toEqual([]);
    await page.close();
  }, 300_000);
});
