// Route patterns as the platform documents them: the only operator is `*` at the start of the
// host or the end of the path, the whole URL (query included) is matched, and when several
// patterns match, the most specific wins.
import { describe, expect, it } from 'vitest';
import { compileRoutes, parseRoutePattern } from '../../src/edge';

const zone = (routes: { pattern: string; script: string | null }[]) => ({ workersDev: [], zones: [{ id: 'z1', name: 'example.com', account: 'a1', routes }] });

function scriptFor(routes: { pattern: string; script: string | null }[], url: string): string | null | undefined {
  const { protocol, hostname, pathname, search } = new URL(url);
  const route = compileRoutes(zone(routes)).resolve(hostname, protocol === 'https:' ? 'https' : 'http', `${pathname}${search}`);
  if (route.kind === 'worker') return route.target.script;
  return route.kind === 'zone' ? null : undefined;
}

describe('route patterns', () => {
  it('refuse infix wildcards and query parameters', () => {
    expect(parseRoutePattern('example.com/*.jpg')).toBeUndefined();
    expect(parseRoutePattern('example.com/?foo=*')).toBeUndefined();
    expect(parseRoutePattern('ex*ample.com/*')).toBeUndefined();
    expect(parseRoutePattern('https://*.example.com/images/*')).toMatchObject({ scheme: 'https', host: { kind: 'subhosts', name: 'example.com' }, path: { kind: 'prefix', value: '/images/' } });
  });

  it('match the host alone with an implied path of /, and nothing else', () => {
    const routes = [{ pattern: 'example.com', script: 'home' }];
    expect(scriptFor(routes, 'http://example.com/')).toBe('home');
    expect(scriptFor(routes, 'https://example.com/')).toBe('home');
    expect(scriptFor(routes, 'http://example.com/other')).toBeNull();
    // The whole URL counts: a query string needs a trailing wildcard.
    expect(scriptFor(routes, 'http://example.com/?a=1')).toBeNull();
  });

  it('match a scheme only when the pattern names it', () => {
    const routes = [{ pattern: 'https://example.com/*', script: 'secure' }];
    expect(scriptFor(routes, 'https://example.com/x')).toBe('secure');
    expect(scriptFor(routes, 'http://example.com/x')).toBeNull();
  });

  it('match the host and its subhosts with *, subhosts only with *.', () => {
    const all = [{ pattern: '*example.com/*', script: 'all' }];
    expect(scriptFor(all, 'http://example.com/')).toBe('all');
    expect(scriptFor(all, 'http://www.example.com/a?b=c')).toBe('all');
    const subs = [{ pattern: '*.example.com/*', script: 'subs' }];
    expect(scriptFor(subs, 'http://www.example.com/')).toBe('subs');
    expect(scriptFor(subs, 'http://example.com/')).toBeNull();
  });

  it('compare paths case-sensitively and hosts case-insensitively', () => {
    const routes = [{ pattern: 'Example.com/images/*', script: 'images' }];
    expect(scriptFor(routes, 'http://EXAMPLE.com/images/a.png')).toBe('images');
    expect(scriptFor(routes, 'http://example.com/Images/a.png')).toBeNull();
  });

  it('let the most specific pattern win, and a pattern without a script turn workers off under it', () => {
    const routes = [
      { pattern: '*example.com/*', script: 'everything' },
      { pattern: '*.example.com/*', script: 'subhosts' },
      { pattern: 'www.example.com/*', script: 'www' },
      { pattern: 'example.com/images/*', script: 'images' },
      { pattern: 'example.com/images/logo.png', script: 'logo' },
      { pattern: 'example.com/images/public/*', script: null },
      { pattern: 'https://example.com/images/*', script: 'secure-images' },
    ];
    expect(scriptFor(routes, 'https://www.example.com/')).toBe('www');
    expect(scriptFor(routes, 'https://api.example.com/')).toBe('subhosts');
    expect(scriptFor(routes, 'http://example.com/')).toBe('everything');
    expect(scriptFor(routes, 'http://example.com/images/a.png')).toBe('images');
    expect(scriptFor(routes, 'https://example.com/images/a.png')).toBe('secure-images');
    expect(scriptFor(routes, 'http://example.com/images/logo.png')).toBe('logo');
    expect(scriptFor(routes, 'http://example.com/images/public/a.png')).toBeNull();
    // A more specific host wins over a longer path (the platform's own example).
    expect(scriptFor([{ pattern: '*.example.com/a', script: 'path' }, { pattern: 'a.example.com/*', script: 'host' }], 'http://a.example.com/a')).toBe('host');
  });
});

describe('hosts', () => {
  const table = compileRoutes({
    workersDev: [{ account: 'a1', subdomain: 'team', scripts: ['api'] }],
    zones: [
      { id: 'z1', name: 'example.com', account: 'a1', routes: [{ pattern: 'example.com/*', script: 'site' }] },
      { id: 'z2', name: 'shop.example.com', account: 'a2', routes: [{ pattern: 'shop.example.com/*', script: 'shop' }] },
    ],
  });

  it('runs <script>.<subdomain>.workers.dev for a script whose switch is on, and nothing else there', () => {
    expect(table.resolve('api.team.workers.dev', 'http', '/')).toEqual({ kind: 'worker', target: { account: 'a1', script: 'api' }, via: 'workers.dev' });
    expect(table.resolve('other.team.workers.dev', 'http', '/').kind).toBe('workers-dev-empty');
    expect(table.resolve('api.nobody.workers.dev', 'http', '/').kind).toBe('workers-dev-empty');
    expect(table.resolve('team.workers.dev', 'http', '/').kind).toBe('workers-dev-empty');
    expect(table.resolve('x.api.team.workers.dev', 'http', '/').kind).toBe('workers-dev-empty');
  });

  it('puts a hostname in its most specific zone, and refuses hostnames it does not serve and IP addresses', () => {
    expect(table.resolve('shop.example.com', 'http', '/')).toMatchObject({ kind: 'worker', target: { account: 'a2', script: 'shop' } });
    expect(table.resolve('example.com', 'http', '/')).toMatchObject({ kind: 'worker', target: { account: 'a1', script: 'site' } });
    expect(table.resolve('www.example.com', 'http', '/')).toEqual({ kind: 'zone', zone: { id: 'z1', name: 'example.com', account: 'a1' } });
    expect(table.resolve('example.org', 'http', '/').kind).toBe('unknown-host');
    expect(table.resolve('notexample.com', 'http', '/').kind).toBe('unknown-host');
    expect(table.resolve('127.0.0.1', 'http', '/').kind).toBe('direct-ip');
    expect(table.resolve('[::1]', 'http', '/').kind).toBe('direct-ip');
    expect(table.resolve('', 'http', '/').kind).toBe('direct-ip');
  });

  it('leaves out a pattern the platform would refuse, saying so', () => {
    const lines: string[] = [];
    const bad = compileRoutes(zone([{ pattern: 'example.com/*.jpg', script: 'x' }]), (line) => lines.push(line));
    expect(bad.resolve('example.com', 'http', '/a.jpg').kind).toBe('zone');
    expect(lines).toEqual(['zone example.com: the route pattern "example.com/*.jpg" is not one the platform accepts; it is left out']);
  });
});
