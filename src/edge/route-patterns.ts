/**
 * Workers route patterns, as the platform documents their matching: `[scheme://]host[/path]`,
 * where the only operator is `*` (zero or more of any character), at the start of the host
 * (`*example.com`: any hostname ending so, the host itself and its subhosts among them;
 * `*.example.com`: subhosts only) or at the end of the path (every suffix, the query included). A path without `*` matches that path exactly, and a pattern without a path means
 * `/`. A scheme matches only requests of that scheme. Hosts compare case-insensitively, paths
 * case-sensitively.
 *
 * When several patterns match, the most specific wins: an exact host before a wildcard one (the
 * longer literal part first), then the longer literal path, then an exact path before a wildcard
 * one of the same literal, then a pattern with a scheme before one without.
 */

export interface RoutePattern {
  /** As written. */
  pattern: string;
  scheme: 'http' | 'https' | undefined;
  host: { kind: 'exact'; name: string } | { kind: 'host-and-subhosts'; name: string } | { kind: 'subhosts'; name: string };
  path: { kind: 'exact'; value: string } | { kind: 'prefix'; value: string };
}

/** Parses a pattern; undefined when it breaks the platform's rules (infix wildcards, a query). */
export function parseRoutePattern(pattern: string): RoutePattern | undefined {
  let rest = pattern.trim();
  let scheme: RoutePattern['scheme'];
  const schemeMatch = /^(https?):\/\//i.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1]!.toLowerCase() as 'http' | 'https';
    rest = rest.slice(schemeMatch[0].length);
  }
  const slash = rest.indexOf('/');
  const hostText = (slash < 0 ? rest : rest.slice(0, slash)).toLowerCase();
  const pathText = slash < 0 ? '/' : rest.slice(slash);
  if (hostText === '' || pathText.includes('?')) return undefined;
  let host: RoutePattern['host'];
  if (hostText.startsWith('*.')) host = { kind: 'subhosts', name: hostText.slice(2) };
  else if (hostText.startsWith('*')) host = { kind: 'host-and-subhosts', name: hostText.slice(1) };
  else host = { kind: 'exact', name: hostText };
  if (host.name === '' || host.name.includes('*') || host.name.includes(':')) return undefined;
  const starAt = pathText.indexOf('*');
  let path: RoutePattern['path'];
  if (starAt < 0) path = { kind: 'exact', value: pathText };
  else if (starAt === pathText.length - 1) path = { kind: 'prefix', value: pathText.slice(0, -1) };
  else return undefined;
  return { pattern, scheme, host, path };
}

/** Whether a pattern matches a request to `hostname` (lower-case, no port) for `target` (path and query). */
export function matchesRoute(route: RoutePattern, scheme: 'http' | 'https', hostname: string, target: string): boolean {
  if (route.scheme !== undefined && route.scheme !== scheme) return false;
  const { host, path } = route;
  const hostMatches =
    host.kind === 'exact'
      ? hostname === host.name
      : host.kind === 'subhosts'
        ? hostname.endsWith(`.${host.name}`)
        : hostname.endsWith(host.name);
  if (!hostMatches) return false;
  return path.kind === 'exact' ? target === path.value : target.startsWith(path.value);
}

/** The host's part of specificity: exact hosts first, then the longer literal. */
function hostRank(route: RoutePattern): [number, number] {
  const literal = route.host.kind === 'subhosts' ? route.host.name.length + 1 : route.host.name.length;
  return [route.host.kind === 'exact' ? 1 : 0, literal];
}

/** Negative when `a` is more specific than `b` (sorts the most specific first). */
export function bySpecificity(a: RoutePattern, b: RoutePattern): number {
  const [aExact, aHost] = hostRank(a);
  const [bExact, bHost] = hostRank(b);
  if (aExact !== bExact) return bExact - aExact;
  if (aHost !== bHost) return bHost - aHost;
  if (a.path.value.length !== b.path.value.length) return b.path.value.length - a.path.value.length;
  if (a.path.kind !== b.path.kind) return a.path.kind === 'exact' ? -1 : 1;
  if ((a.scheme === undefined) !== (b.scheme === undefined)) return a.scheme === undefined ? 1 : -1;
  return 0;
}
