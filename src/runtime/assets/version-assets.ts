/**
 * One version's static assets, served: which requests its worker runs first (`run_worker_first`,
 * then a request that matches no asset), and the answer for the others (the asset with its
 * `etag`, `content-type`, a 304 for a matching `If-None-Match`, HEAD without a body, the
 * config's redirects, 405 for another method, 404 when nothing matches).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AssetManifestEntry, AssetsConfig } from '../deployed';
import { decodePath, encodePath, resolveIntent, type Intent } from './resolve';

/** An asset's bytes and the content type it was uploaded with. */
export interface AssetContent {
  bytes: Uint8Array;
  content_type: string | null;
}

export type AssetReader = (account: string, hash: string) => Promise<AssetContent | null>;

/** The browser caching the platform answers assets with: revalidate every time (the etag makes it cheap). */
const CACHE_CONTROL = 'public, max-age=0, must-revalidate';
/** From this compatibility date a navigation (`Sec-Fetch-Mode: navigate`) gets `not_found_handling` before the worker. */
const NAVIGATION_PREFERS_ASSETS_FROM = '2025-04-01';

export class VersionAssets {
  readonly #account: string;
  readonly #manifest: Map<string, AssetManifestEntry>;
  readonly #config: AssetsConfig;
  readonly #hasWorker: boolean;
  readonly #read: AssetReader;
  readonly #navigationPrefersAssets: boolean;
  readonly #workerFirst: { include: RegExp[]; exclude: RegExp[] } | null;

  constructor(options: { account: string; manifest: Record<string, AssetManifestEntry>; config: AssetsConfig; hasWorker: boolean; compatibilityDate: string; compatibilityFlags: string[]; read: AssetReader }) {
    this.#account = options.account;
    this.#manifest = new Map(Object.entries(options.manifest));
    this.#config = options.config;
    this.#hasWorker = options.hasWorker;
    this.#read = options.read;
    const flags = options.compatibilityFlags;
    this.#navigationPrefersAssets =
      flags.includes('assets_navigation_prefers_asset_serving') || (options.compatibilityDate >= NAVIGATION_PREFERS_ASSETS_FROM && !flags.includes('assets_navigation_has_no_effect'));
    const rules = Array.isArray(options.config.run_worker_first) ? options.config.run_worker_first : null;
    this.#workerFirst =
      rules === null
        ? null
        : { include: rules.filter((rule) => !rule.startsWith('!')).map(globRegExp), exclude: rules.filter((rule) => rule.startsWith('!')).map((rule) => globRegExp(rule.slice(1))) };
  }

  /** Whether the request goes to the worker rather than the assets (never, for a version without a worker). */
  wantsWorker(request: IncomingMessage): boolean {
    if (!this.#hasWorker) return false;
    const { pathname } = splitTarget(request.url ?? '/');
    if (this.#workerFirst !== null) {
      if (this.#workerFirst.exclude.some((rule) => rule.test(pathname))) return false;
      if (this.#workerFirst.include.some((rule) => rule.test(pathname))) return true;
    }
    if (this.#config.run_worker_first === true) return true;
    // The worker runs for what no asset answers; not_found_handling counts for navigations (or
    // with the pattern form) only.
    const keepNotFound = this.#workerFirst !== null || (this.#navigationPrefersAssets && request.headers['sec-fetch-mode'] === 'navigate');
    return this.#intent(pathname, keepNotFound) === null;
  }

  #intent(pathname: string, keepNotFound: boolean): Intent {
    return resolveIntent(decodePath(pathname), (path) => this.#manifest.get(path), {
      html: this.#config.html_handling,
      notFound: keepNotFound ? this.#config.not_found_handling : 'none',
    });
  }

  /** Answers the request from the assets. */
  async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // The body of a request the assets answer is not read.
    request.resume();
    const { pathname, search } = splitTarget(request.url ?? '/');
    const intent = this.#intent(pathname, true);
    if (intent === null) return end(response, 404, {});
    const method = (request.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') return end(response, 405, {});
    const decoded = decodePath(pathname);
    const destination = intent.kind === 'redirect' ? intent.to : decoded;
    const encoded = encodePath(destination);
    // One redirect both to the canonical spelling and to where html_handling serves the file.
    if (intent.kind === 'redirect' || encoded !== pathname) return end(response, 307, { location: `${encoded}${search}` });
    const content = await this.#read(this.#account, intent.entry.hash);
    if (content === null) throw new Error(`asset ${intent.entry.hash} of account ${this.#account} is not in the store`);
    const etag = `"${intent.entry.hash}"`;
    const headers: Record<string, string> = { etag };
    if (content.content_type !== null) headers['content-type'] = content.content_type;
    if (request.headers.authorization === undefined && request.headers.range === undefined) headers['cache-control'] = CACHE_CONTROL;
    const ifNoneMatch = request.headers['if-none-match'] ?? '';
    if (ifNoneMatch === etag || ifNoneMatch === `W/${etag}`) return end(response, 304, headers);
    headers['content-length'] = String(content.bytes.byteLength);
    response.writeHead(intent.status, headers);
    if (method === 'HEAD') response.end();
    else response.end(content.bytes);
  }
}

function end(response: ServerResponse, status: number, headers: Record<string, string>): void {
  response.writeHead(status, status === 304 ? headers : { ...headers, 'content-length': '0' });
  response.end();
}

function splitTarget(requestTarget: string): { pathname: string; search: string } {
  // A request in absolute form (`GET http://host/path`) names its path after its authority.
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(requestTarget);
  const target = absolute ? requestTarget.slice(absolute[0].length) || '/' : requestTarget;
  const at = target.indexOf('?');
  const path = at < 0 ? target : target.slice(0, at);
  return { pathname: path.startsWith('/') ? path : `/${path}`, search: at < 0 ? '' : target.slice(at) };
}

/** A `run_worker_first` pattern: `*` matches anything, the rest literally, the whole path. */
function globRegExp(pattern: string): RegExp {
  const literal = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('.*')}$`);
}
