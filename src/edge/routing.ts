/**
 * Which worker a request runs, by its host: `<script>.<subdomain>.workers.dev` runs the script
 * of the account that owns the subdomain when its workers.dev switch is on; a hostname of a zone
 * runs the script of the zone's most specific matching route; anything else is not served here.
 */
import { bySpecificity, matchesRoute, parseRoutePattern, type RoutePattern } from './route-patterns';

/** The platform's domain for accounts' workers.dev subdomains. */
export const WORKERS_DEV = 'workers.dev';

/** What the edge routes, as the platform's state gives it (see the platform's wiring). */
export interface EdgeRoutes {
  /** Each account's workers.dev subdomain, with the scripts whose workers.dev switch is on and that are deployed. */
  workersDev: { account: string; subdomain: string; scripts: string[] }[];
  /** Zones with their workers routes; a route without a script runs no worker on what it matches. */
  zones: { id: string; name: string; account: string; routes: { pattern: string; script: string | null }[] }[];
}

/** A script to run. */
export interface WorkerTarget {
  account: string;
  script: string;
}

/** A zone as routing names it. */
export interface ZoneRef {
  id: string;
  name: string;
  account: string;
}

export type Route =
  | { kind: 'worker'; target: WorkerTarget; via: 'workers.dev' | { zone: ZoneRef; pattern: string } }
  /** A zone's hostname whose request runs no worker: it goes to the zone's origin. */
  | { kind: 'zone'; zone: ZoneRef; pattern?: string }
  /** A workers.dev hostname nothing is deployed at. */
  | { kind: 'workers-dev-empty' }
  /** A hostname the platform does not serve. */
  | { kind: 'unknown-host' }
  /** No hostname, or an IP address: the platform refuses direct IP access. */
  | { kind: 'direct-ip' };

interface CompiledZone {
  id: string;
  name: string;
  account: string;
  routes: { pattern: RoutePattern; script: string | null }[];
}

export interface RoutingTable {
  resolve(hostname: string, scheme: 'http' | 'https', target: string): Route;
}

/** Compiles routes once per change; a pattern that breaks the platform's rules is reported and left out. */
export function compileRoutes(routes: EdgeRoutes, report: (line: string) => void = () => {}): RoutingTable {
  const bySubdomain = new Map<string, { account: string; scripts: Set<string> }>();
  for (const { account, subdomain, scripts } of routes.workersDev) bySubdomain.set(subdomain.toLowerCase(), { account, scripts: new Set(scripts) });
  const zones: CompiledZone[] = routes.zones.map((zone) => ({
    id: zone.id,
    name: zone.name.toLowerCase(),
    account: zone.account,
    routes: zone.routes
      .flatMap(({ pattern, script }) => {
        const parsed = parseRoutePattern(pattern);
        if (!parsed) report(`zone ${zone.name}: the route pattern ${JSON.stringify(pattern)} is not one the platform accepts; it is left out`);
        return parsed ? [{ pattern: parsed, script }] : [];
      })
      .sort((a, b) => bySpecificity(a.pattern, b.pattern)),
  }));
  // The longest zone name first: a hostname belongs to its most specific zone.
  zones.sort((a, b) => b.name.length - a.name.length);

  return {
    resolve(hostname, scheme, target) {
      if (hostname === '' || isIpAddress(hostname)) return { kind: 'direct-ip' };
      if (hostname === WORKERS_DEV || hostname.endsWith(`.${WORKERS_DEV}`)) return workersDevRoute(bySubdomain, hostname);
      const zone = zones.find((candidate) => hostname === candidate.name || hostname.endsWith(`.${candidate.name}`));
      if (!zone) return { kind: 'unknown-host' };
      const matched = zone.routes.find((route) => matchesRoute(route.pattern, scheme, hostname, target));
      const zoneOf = { id: zone.id, name: zone.name, account: zone.account };
      if (!matched) return { kind: 'zone', zone: zoneOf };
      if (matched.script === null) return { kind: 'zone', zone: zoneOf, pattern: matched.pattern.pattern };
      return { kind: 'worker', target: { account: zone.account, script: matched.script }, via: { zone: zoneOf, pattern: matched.pattern.pattern } };
    },
  };
}

function workersDevRoute(bySubdomain: Map<string, { account: string; scripts: Set<string> }>, hostname: string): Route {
  // <script>.<subdomain>.workers.dev, exactly: nothing runs on <subdomain>.workers.dev itself.
  const labels = hostname.slice(0, -(WORKERS_DEV.length + 1)).split('.');
  if (labels.length !== 2) return { kind: 'workers-dev-empty' };
  const [script, subdomain] = labels as [string, string];
  const account = bySubdomain.get(subdomain);
  if (!account || !account.scripts.has(script)) return { kind: 'workers-dev-empty' };
  return { kind: 'worker', target: { account: account.account, script }, via: 'workers.dev' };
}

function isIpAddress(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.startsWith('[') || hostname.includes(':');
}
