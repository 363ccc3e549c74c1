// What the edge routes of what is deployed: a script on its account's workers.dev subdomain only
// when its switch is on, and zones' routes as the store keeps them.
import { expect, it } from 'vitest';
import { edgeRoutesOf } from '../../src/platform/deployments';
import type { DeployedVersion } from '../../src/runtime';

const version: DeployedVersion = { id: 'v', main_module: 'index.js', compatibility_date: '2026-07-01', compatibility_flags: [], modules: [], bindings: [] };

it('routes workers.dev names of deployed scripts whose switch is on, and every zone route', () => {
  const routes = edgeRoutesOf({
    subdomains: { a1: 'team', a2: 'quiet' },
    scripts: [
      { account_id: 'a1', name: 'public', workers_dev: true, versions: [{ percentage: 100, version }] },
      { account_id: 'a1', name: 'routed-only', workers_dev: false, versions: [{ percentage: 100, version }] },
      { account_id: 'a3', name: 'no-subdomain', workers_dev: true, versions: [{ percentage: 100, version }] },
    ],
    zones: [{ id: 'z1', name: 'example.com', account_id: 'a1', routes: [{ pattern: 'example.com/*', script: 'routed-only' }, { pattern: 'example.com/static/*', script: null }] }],
  });
  expect(routes).toEqual({
    workersDev: [
      { account: 'a1', subdomain: 'team', scripts: ['public'] },
      { account: 'a2', subdomain: 'quiet', scripts: [] },
    ],
    zones: [{ id: 'z1', name: 'example.com', account: 'a1', routes: [{ pattern: 'example.com/*', script: 'routed-only' }, { pattern: 'example.com/static/*', script: null }] }],
  });
});
