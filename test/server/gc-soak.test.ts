// The abort seen on Node 24.19+ with better-sqlite3 before 13: a garbage collection that
// finalizes a prepared statement ran an environment cleanup hook that no longer existed, and the
// process died on an assertion. Its trigger, reproduced: the server as `npm start` runs it, with
// full collections forced every few milliseconds while sustained reads and writes create and drop
// statements and results, for a bounded time. It must keep answering and stop cleanly (exit 0).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiClient, unwrap } from '../../src/client';
import { readyOrigin } from '../support/server-ready';
import { waitUntil } from '../support/wait';
import { ids } from './harness';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'api-gc-soak-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const SOAK_MS = 6_000;
const CONNECTIONS = 4;
const phase = 'http_request_firewall_managed';

describe('the server under forced garbage collection', () => {
  it('keeps answering reads and writes, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', './test/support/gc-pressure.mjs', 'scripts/start.mjs'], {
      cwd: root,
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, API_TOKEN: 'gc-soak-token', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      await waitUntil('the server to report where it listens', () => readyOrigin(output) !== null || child.exitCode !== null, 30_000);
      expect(child.exitCode, output).toBeNull();
      const api = createApiClient({ baseUrl: `${readyOrigin(output)}/client/v4`, credentials: { token: 'gc-soak-token' } });
      const entry = await unwrap(api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.proZone, phase } } }));
      const rule = entry.rules!.find((r) => r.action === 'execute')!;

      const counts = { reads: 0, writes: 0 };
      const deadline = Date.now() + SOAK_MS;
      const worker = async (n: number) => {
        for (let i = 0; Date.now() < deadline; i += 1) {
          if (i % 3 === 0) {
            const ruleset = await unwrap(
              api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
                params: { path: { zone_id: ids.proZone, ruleset_id: entry.id, rule_id: rule.id! } },
                body: { description: `soak ${n}.${i}` },
              }),
            );
            expect(ruleset.rules!.find((r) => r.id === rule.id)!.description).toBe(`soak ${n}.${i}`);
            counts.writes += 1;
          } else {
            const [zone, packs] = await Promise.all([
              unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: ids.proZone } } })),
              unwrap(api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: ids.account } } })),
            ]);
            expect(zone.id).toBe(ids.proZone);
            expect(packs.length).toBeGreaterThan(0);
            counts.reads += 2;
          }
        }
      };
      await Promise.all(Array.from({ length: CONNECTIONS }, (_, n) => worker(n)));

      // Every write was one version, in order: the last one read back is the one the store holds.
      const after = await unwrap(api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.proZone, phase } } }));
      expect(Number(after.version)).toBe(Number(entry.version) + counts.writes);
      expect(counts.writes).toBeGreaterThan(10);
      expect(counts.reads).toBeGreaterThan(20);
      child.kill('SIGTERM');
      expect(await exited, output).toEqual({ code: 0, signal: null });
      // The pressure was real: collections ran throughout.
      expect(Number(/forced garbage collections: (\d+)/.exec(output)?.[1])).toBeGreaterThan(20);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
