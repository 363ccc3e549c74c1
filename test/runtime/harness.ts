// The runtime of deployed workers behind a plain HTTP server of the test's own (the platform puts
// it behind the edge): `/<account>/<script>/...` runs that script, the answer or the failure as
// the runtime reports it (`x-run-result`, and the error in `x-run-error` when nothing was written).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BucketCatalogue } from '../../src/bucket';
import { WorkersRuntime, type DeployedVersion, type DeployedWorkers, type WorkersRuntimeOptions } from '../../src/runtime';

export const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';
export const OTHER_ACCOUNT = '9a7806061c88ada191ed06f989cc3dac';

export interface Harness {
  runtime: WorkersRuntime;
  catalogue: BucketCatalogue;
  dataDir: string;
  url: string;
  logs: { script: string; version: string; level: string; message: string }[];
  reports: string[];
  close(): Promise<void>;
}

export async function startHarness(options: { cpuMs?: number; waitUntilMs?: number; parentDir?: string; assetContent?: WorkersRuntimeOptions['assetContent'] } = {}): Promise<Harness> {
  const dataDir = mkdtempSync(path.join(options.parentDir ?? tmpdir(), 'runtime-test-'));
  const catalogue = new BucketCatalogue(dataDir);
  const logs: Harness['logs'] = [];
  const reports: string[] = [];
  const runtime = await WorkersRuntime.start({
    catalogue,
    cpuMs: options.cpuMs ?? 30_000,
    waitUntilMs: options.waitUntilMs ?? 200,
    log: (entry) => logs.push(entry),
    report: (line) => reports.push(line),
    ...(options.assetContent ? { assetContent: options.assetContent } : {}),
  });
  const server: Server = createServer(async (request, response) => {
    const [, account = '', script = '', ...rest] = (request.url ?? '/').split('/');
    request.url = `/${rest.join('/')}`;
    const result = await runtime.run(account, script, { request, response, cf: { country: 'NL' }, clientAddress: '203.0.113.7', scheme: 'http' });
    if (result === undefined) {
      response.writeHead(404, { 'x-run-result': 'not-deployed' }).end();
      return;
    }
    if (result.result !== 'ok' && !result.written) {
      response.writeHead(result.result === 'exception' ? 500 : 503, { 'x-run-result': result.result, 'x-run-error': encodeURIComponent(result.error ?? ''), 'x-run-version': result.version });
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    runtime,
    catalogue,
    dataDir,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logs,
    reports,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await runtime.close();
      await catalogue.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let versionCount = 0;

/** A version of one ES module. */
export function moduleVersion(source: string, bindings: DeployedVersion['bindings'] = [], flags: string[] = []): DeployedVersion {
  return {
    id: `version-${++versionCount}`,
    main_module: 'index.js',
    compatibility_date: '2026-07-01',
    compatibility_flags: flags,
    modules: [{ name: 'index.js', type: 'esm', bytes: new TextEncoder().encode(source) }],
    bindings,
  };
}

/** What is deployed: scripts of the home account, one version each (or shares of several). */
export function deployed(scripts: Record<string, DeployedVersion | { percentage: number; version: DeployedVersion }[]>, account = ACCOUNT): DeployedWorkers {
  return {
    subdomains: {},
    zones: [],
    scripts: Object.entries(scripts).map(([name, versions]) => ({
      account_id: account,
      name,
      workers_dev: true,
      versions: Array.isArray(versions) ? versions : [{ percentage: 100, version: versions }],
    })),
  };
}
