/**
 * Which asset a path is, as the platform documents its routing of static assets: the config's
 * `html_handling` (which path serves an HTML file, and where the others redirect: `/file.html`
 * and `/folder/index.html` are served at `/file` and `/folder/` under `auto-trailing-slash`,
 * with a 307 from the other spellings) and, when nothing matches, its `not_found_handling`
 * (`index.html` at 200 for a single-page application, the nearest `404.html` at 404).
 */
import type { AssetManifestEntry, AssetsConfig } from '../deployed';

export type HtmlHandling = AssetsConfig['html_handling'];
export type NotFoundHandling = AssetsConfig['not_found_handling'];

/** What a path comes to: an asset (at 200, or 404 for a 404 page), a redirect, or nothing. */
export type Intent = { kind: 'asset'; entry: AssetManifestEntry; status: 200 | 404 } | { kind: 'redirect'; to: string } | null;

type Lookup = (path: string) => AssetManifestEntry | undefined;

interface Options {
  html: HtmlHandling;
  notFound: NotFoundHandling;
}

const served = (entry: AssetManifestEntry): Intent => ({ kind: 'asset', entry, status: 200 });

export function resolveIntent(path: string, lookup: Lookup, options: Options): Intent {
  return intentOf(path, lookup, options, false);
}

function intentOf(path: string, lookup: Lookup, options: Options, noRedirects: boolean): Intent {
  const found = htmlIntent(path, lookup, options.html, noRedirects);
  return found ?? notFoundIntent(path, lookup, options.notFound);
}

/**
 * A redirect from `path` to `to` when the file the request names is what `to` serves, and `to`
 * is not itself a file (a redirect never hides an asset).
 */
function redirect(file: string, to: string, lookup: Lookup, html: HtmlHandling, noRedirects: boolean): Intent {
  if (noRedirects || lookup(to) !== undefined) return null;
  const wanted = lookup(file);
  if (wanted === undefined) return null;
  const there = htmlIntent(to, lookup, html, true);
  return there?.kind === 'asset' && there.entry.hash === wanted.hash ? { kind: 'redirect', to } : null;
}

/** The first intent of candidates tried in order. */
function first(...candidates: (() => Intent)[]): Intent {
  for (const candidate of candidates) {
    const intent = candidate();
    if (intent !== null) return intent;
  }
  return null;
}

function htmlIntent(path: string, lookup: Lookup, html: HtmlHandling, noRedirects: boolean): Intent {
  const exact = lookup(path);
  const at = (file: string) => () => {
    const entry = lookup(file);
    return entry === undefined ? null : served(entry);
  };
  const go = (file: string, to: string) => () => redirect(file, to, lookup, html, noRedirects);
  const exactly = () => (exact === undefined ? null : served(exact));
  const strip = (suffix: string) => path.slice(0, -suffix.length);

  switch (html) {
    case 'none':
      return exactly();

    case 'auto-trailing-slash': {
      let special: Intent = null;
      if (path.endsWith('/index')) special = exact ? served(exact) : first(go(`${path}.html`, strip('index')), go(`${strip('/index')}.html`, strip('/index')));
      else if (path.endsWith('/index.html')) special = first(go(path, strip('index.html')), go(`${strip('/index.html')}.html`, strip('/index.html')));
      else if (path.endsWith('/')) special = first(at(`${path}index.html`), go(`${strip('/')}.html`, strip('/')));
      else if (path.endsWith('.html')) special = first(go(path, strip('.html')), go(`${strip('.html')}/index.html`, `${strip('.html')}/`));
      return special ?? first(exactly, at(`${path}.html`), go(`${path}/index.html`, `${path}/`));
    }

    case 'force-trailing-slash': {
      let special: Intent = null;
      if (path.endsWith('/index')) special = exact ? served(exact) : first(go(`${path}.html`, strip('index')), go(`${strip('/index')}.html`, strip('index')));
      else if (path.endsWith('/index.html')) special = first(go(path, strip('index.html')), go(`${strip('/index.html')}.html`, strip('index.html')));
      else if (path.endsWith('/')) special = first(at(`${path}index.html`), at(`${strip('/')}.html`));
      else if (path.endsWith('.html')) special = first(go(path, `${strip('.html')}/`), exactly, go(`${strip('.html')}/index.html`, `${strip('.html')}/`));
      return special ?? first(exactly, go(`${path}.html`, `${path}/`), go(`${path}/index.html`, `${path}/`));
    }

    case 'drop-trailing-slash': {
      let special: Intent = null;
      if (path.endsWith('/index')) {
        if (exact) special = served(exact);
        else if (path === '/index') special = go('/index.html', '/')();
        else special = first(go(`${strip('/index')}.html`, strip('/index')), go(`${path}.html`, strip('/index')));
      } else if (path.endsWith('/index.html')) {
        special = path === '/index.html' ? go('/index.html', '/')() : first(go(path, strip('/index.html')), exactly, go(`${strip('/index.html')}.html`, strip('/index.html')));
      } else if (path.endsWith('/')) {
        special = path === '/' ? at('/index.html')() : first(go(`${strip('/')}.html`, strip('/')), go(`${strip('/')}/index.html`, strip('/')));
      } else if (path.endsWith('.html')) {
        special = first(go(path, strip('.html')), go(`${strip('.html')}/index.html`, strip('.html')));
      }
      return special ?? first(exactly, at(`${path}.html`), at(`${path}/index.html`));
    }
  }
}

function notFoundIntent(path: string, lookup: Lookup, notFound: NotFoundHandling): Intent {
  switch (notFound) {
    case 'none':
      return null;
    case 'single-page-application': {
      const index = lookup('/index.html');
      return index === undefined ? null : served(index);
    }
    case '404-page': {
      // The nearest 404.html, from the request's own directory up to the root.
      for (let dir = path.slice(0, path.lastIndexOf('/')); ; dir = dir.slice(0, dir.lastIndexOf('/'))) {
        const page = lookup(`${dir}/404.html`);
        if (page !== undefined) return { kind: 'asset', entry: page, status: 404 };
        if (dir === '') return null;
      }
    }
  }
}

/** A request path decoded segment by segment (a segment that does not decode is kept), repeated slashes made one. */
export function decodePath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/')
    .replace(/\/+/g, '/');
}

/** The canonical spelling of a decoded path: each segment URI-encoded. */
export function encodePath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}
