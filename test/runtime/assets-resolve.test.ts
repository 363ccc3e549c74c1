// The routing of static assets, path by path, for each html_handling and not_found_handling, as
// the platform documents them (the tables of its "HTML handling" page): which file serves, which
// spelling redirects where, and what a path that matches nothing gets.
import { describe, expect, it } from 'vitest';
import { decodePath, encodePath, resolveIntent, type HtmlHandling, type NotFoundHandling } from '../../src/runtime/assets/resolve';

const FILES = ['/index.html', '/file.html', '/folder/index.html', '/both.html', '/both/index.html', '/binary', '/404.html', '/deep/404.html', '/style.css'];
const manifest = new Map(FILES.map((file) => [file, { hash: file, size: 1 }]));
const lookup = (path: string) => manifest.get(path);

/** What a path comes to, as `200 <file>`, `404 <file>`, `307 <to>` or `none`. */
function outcome(path: string, html: HtmlHandling, notFound: NotFoundHandling = 'none'): string {
  const intent = resolveIntent(path, lookup, { html, notFound });
  if (intent === null) return 'none';
  return intent.kind === 'redirect' ? `307 ${intent.to}` : `${intent.status} ${intent.entry.hash}`;
}

function table(html: HtmlHandling, paths: string[]): Record<string, string> {
  return Object.fromEntries(paths.map((path) => [path, outcome(path, html)]));
}

const PATHS = ['/', '/index.html', '/index', '/file', '/file.html', '/file/', '/folder', '/folder/', '/folder/index.html', '/folder/index', '/both', '/both.html', '/both/', '/binary', '/style.css', '/missing'];

describe('html_handling', () => {
  it('auto-trailing-slash: files without a slash, folders with one, the other spellings redirected', () => {
    expect(table('auto-trailing-slash', PATHS)).toEqual({
      '/': '200 /index.html',
      '/index.html': '307 /',
      '/index': '307 /',
      '/file': '200 /file.html',
      '/file.html': '307 /file',
      '/file/': '307 /file',
      '/folder': '307 /folder/',
      '/folder/': '200 /folder/index.html',
      '/folder/index.html': '307 /folder/',
      '/folder/index': '307 /folder/',
      '/both': '200 /both.html',
      '/both.html': '307 /both',
      '/both/': '200 /both/index.html',
      '/binary': '200 /binary',
      '/style.css': '200 /style.css',
      '/missing': 'none',
    });
  });

  it('force-trailing-slash: every HTML file at a path ending in /', () => {
    expect(table('force-trailing-slash', PATHS)).toEqual({
      '/': '200 /index.html',
      '/index.html': '307 /',
      '/index': '307 /',
      '/file': '307 /file/',
      '/file.html': '307 /file/',
      '/file/': '200 /file.html',
      '/folder': '307 /folder/',
      '/folder/': '200 /folder/index.html',
      '/folder/index.html': '307 /folder/',
      '/folder/index': '307 /folder/',
      '/both': '307 /both/',
      '/both.html': '200 /both.html',
      '/both/': '200 /both/index.html',
      '/binary': '200 /binary',
      '/style.css': '200 /style.css',
      '/missing': 'none',
    });
  });

  it('drop-trailing-slash: every HTML file at a path without a trailing / (the root excepted)', () => {
    expect(table('drop-trailing-slash', PATHS)).toEqual({
      '/': '200 /index.html',
      '/index.html': '307 /',
      '/index': '307 /',
      '/file': '200 /file.html',
      '/file.html': '307 /file',
      '/file/': '307 /file',
      '/folder': '200 /folder/index.html',
      '/folder/': '307 /folder',
      '/folder/index.html': '307 /folder',
      '/folder/index': '307 /folder',
      '/both': '200 /both.html',
      '/both.html': '307 /both',
      '/both/': '307 /both',
      '/binary': '200 /binary',
      '/style.css': '200 /style.css',
      '/missing': 'none',
    });
  });

  it('none: a file at its own path only', () => {
    expect(table('none', ['/', '/index.html', '/file', '/file.html', '/folder/', '/binary'])).toEqual({
      '/': 'none',
      '/index.html': '200 /index.html',
      '/file': 'none',
      '/file.html': '200 /file.html',
      '/folder/': 'none',
      '/binary': '200 /binary',
    });
  });
});

describe('not_found_handling', () => {
  it('single-page-application answers /index.html at 200; 404-page the nearest 404.html at 404; none nothing', () => {
    expect(outcome('/app/route', 'auto-trailing-slash', 'single-page-application')).toBe('200 /index.html');
    expect(outcome('/deep/er/page', 'auto-trailing-slash', '404-page')).toBe('404 /deep/404.html');
    expect(outcome('/other/page', 'auto-trailing-slash', '404-page')).toBe('404 /404.html');
    expect(outcome('/other/page', 'auto-trailing-slash', 'none')).toBe('none');
    // A file that exists is served whatever the not-found handling.
    expect(outcome('/style.css', 'auto-trailing-slash', 'single-page-application')).toBe('200 /style.css');
  });
});

describe('paths', () => {
  it('are decoded segment by segment with repeated slashes made one, and encoded back canonically', () => {
    expect(decodePath('/caf%C3%A9//menu%20a.html')).toBe('/café/menu a.html');
    expect(decodePath('/bad%E0%A4%A')).toBe('/bad%E0%A4%A');
    expect(encodePath('/[boop]/a b')).toBe('/%5Bboop%5D/a%20b');
  });
});
