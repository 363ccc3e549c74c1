// The server as `npm start` runs it (bundled): a child process configured by the environment, its
// generated token printed once, state kept across a clean stop and across a kill.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiClient, unwrap } from '../../src/client';
import { readyOrigin } from '../support/server-ready';
import { ids } from './harness';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'api-lifecycle-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
  exited: Promise<number | null>;
}

async function start(env: Record<string, string>): Promise<Running> {
  // What `npm start` runs: the bundled server, on a port it picks and reports.
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  let origin: string | null;
  while (!(origin = readyOrigin(output)) || !output.includes('"msg":"ready"')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => output, baseUrl: `${origin}/client/v4`, exited };
}

const phase = 'http_request_firewall_managed';

describe('the server process', () => {
  it('prints a generated token once, keeps only its hash, and stops cleanly on SIGTERM', async () => {
    const server = await start({ API_TOKEN: '' });
    const match = /API token \(generated, shown once\): (\S+)/.exec(server.output());
    expect(match).not.toBeNull();
    const api = createApiClient({ baseUrl: server.baseUrl, credentials: { token: match![1]! } });
    const zone = await unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: ids.proZone } } }));
    expect(zone.id).toBe(ids.proZone);
    // The token appears once in the output, never in the request logs.
    expect(server.output().split(match![1]!).length - 1).toBe(1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/"msg":"stopping"/);
  });

  it('keeps state across a restart and across a kill, with no half-written change', async () => {
    const first = await start({ API_TOKEN: 'lifecycle-token' });
    const api = createApiClient({ baseUrl: first.baseUrl, credentials: { token: 'lifecycle-token' } });
    const entry = await unwrap(api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.proZone, phase } } }));
    const rule = entry.rules!.find((r) => r.action === 'execute')!;
    const patched = await unwrap(
      api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
        params: { path: { zone_id: ids.proZone, ruleset_id: entry.id, rule_id: rule.id! } },
        body: { description: 'survives a restart' },
      }),
    );
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await start({ API_TOKEN: 'lifecycle-token' });
    const api2 = createApiClient({ baseUrl: second.baseUrl, credentials: { token: 'lifecycle-token' } });
    const reread = await unwrap(api2.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.proZone, phase } } }));
    expect(reread.version).toBe(patched.version);
    expect(reread.rules!.find((r) => r.id === rule.id)!.description).toBe('survives a restart');
    // Acknowledged writes, then a kill without warning.
    const writes = [];
    for (let i = 0; i < 5; i++) {
      writes.push(
        await unwrap(
          api2.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
            params: { path: { zone_id: ids.proZone, ruleset_id: entry.id, rule_id: rule.id! } },
            body: { description: `write ${i}` },
          }),
        ),
      );
    }
    second.child.kill('SIGKILL');
    await second.exited;

    const third = await start({ API_TOKEN: 'lifecycle-token' });
    const api3 = createApiClient({ baseUrl: third.baseUrl, credentials: { token: 'lifecycle-token' } });
    const after = await unwrap(api3.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.proZone, phase } } }));
    expect(after.version).toBe(writes.at(-1)!.version);
    expect(after.rules!.find((r) => r.id === rule.id)!.description).toBe('write 4');
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);
  });

  it('refuses bad configuration with a readable message', async () => {
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: root,
      env: { ...process.env, PORT: 'eighty', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('cannot start the server: PORT must be an integer from 0 to 65535, not "eighty"');
  });
});
