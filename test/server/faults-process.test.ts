// Faults and the rate limit as `npm start` takes them, from the environment: FAULTS_FILE (the
// example file of the docs) and RATE_LIMIT; a bad rules file stops the start before it listens.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Cloudflare from 'cloudflare';
import { afterAll, describe, expect, it } from 'vitest';
import { readyOrigin } from '../support/server-ready';
import { ids } from './harness';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'api-faults-process-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const TOKEN = 'faults-process-token';

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', API_TOKEN: TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe('npm start with FAULTS_FILE and RATE_LIMIT', () => {
  it('injects the file rules, logs each one, and sends the rate-limit headers', async () => {
    const server = run({ FAULTS_FILE: 'examples/faults/ci-429s.toml', RATE_LIMIT: 'true' });
    try {
      const deadline = Date.now() + 30_000;
      let origin: string | null;
      while (!(origin = readyOrigin(server.output()))) {
        if (Date.now() > deadline || server.child.exitCode !== null) throw new Error(`the server did not start:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The script under test: the official client with its default retries.
      const cf = new Cloudflare({ baseURL: `${origin}/client/v4`, apiToken: TOKEN, apiEmail: null, apiKey: null, userServiceKey: null });
      const zone = await cf.zones.get({ zone_id: ids.proZone }).withResponse();
      expect(zone.data.id).toBe(ids.proZone);
      expect(zone.response.headers.get('ratelimit-policy')).toBe('"default";q=1200;w=300');
      // Three requests counted (two refused on purpose, one served), in a window that opened with the first.
      expect(zone.response.headers.get('ratelimit')).toMatch(/^"default";r=1197;t=(29\d|300)$/);
      // What a CI job checks after its script ran: the faults did happen.
      const listing = (await (await fetch(`${origin}/__faults`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json()) as {
        result: { api: { name: string; injected: number }[] };
      };
      expect(listing.result.api.map(({ name, injected }) => [name, injected])).toEqual([
        ['first-two-gets-rate-limited', 2],
        ['some-writes-fail', 0],
      ]);
      const injected = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"fault injected"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(injected).toEqual(Array(2).fill(expect.objectContaining({ fault: 'first-two-gets-rate-limited', operation: 'getZone', level: 40 })));
      expect(server.output()).not.toContain(TOKEN);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  it('a rules file with problems stops the start, naming the file, the rules and the fields', async () => {
    const file = path.join(dataDir, 'bad-faults.toml');
    writeFileSync(file, '[[api]]\nmatch = { operationId = "listZone" }\nstatus = 500\n\n[[api]]\nstatus = 503\nprobability = 1.5\n');
    const server = run({ FAULTS_FILE: file });
    expect(await server.exited).toBe(1);
    expect(server.output()).toBe(
      `cannot start the server: faults file ${file}:\n` +
        '  api[0]: match.operationId "listZone" is not an operationId of the API document (did you mean listZones?)\n' +
        '  api[1]: probability must be a number from 0 to 1, not 1.5\n',
    );
  });
});
