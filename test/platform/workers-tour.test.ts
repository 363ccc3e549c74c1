// docs/workers.md's tour, run as it is written against a fresh `npm start` (its generated token,
// a new data directory): the shell block of "Deploying with wrangler", each line as a user types
// it, with `npx wrangler` the project's wrangler and the ports the platform printed. A line that
// shows its answer (`# → ...`) must give it within 2 s: what a deployment changed is served by then.
import { spawn } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMAND_TEST_TIMEOUT_MS, ROOT } from '../worker/commands';
import { startPlatform, temporaryDirectory, type Platform } from './platform-process';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS * 3, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

/** The tour's block, its continued lines joined. */
function tourLines(): string[] {
  const page = readFileSync(path.join(ROOT, 'docs/workers.md'), 'utf8');
  const section = page.slice(page.indexOf('## Deploying with wrangler'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block.replace(/\\\n\s*/g, '').split('\n').filter((line) => line.trim() !== '');
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * The block as one bash script: a line with `# → answer` runs until its output holds the answer
 * (every 100 ms, for 2 s), and prints what it answered either way.
 */
function script(lines: string[], ports: { api: string; edge: string }): string {
  const prelude = [
    'set -euo pipefail',
    `npx() { if [ "$1" = wrangler ]; then shift; node ${quote(path.join(ROOT, 'node_modules/wrangler/bin/wrangler.js'))} "$@"; else command npx "$@"; fi; }`,
    'expect_answer() { local expected="$1"; shift; local answer; for _ in $(seq 20); do answer="$("$@" 2>&1 || true)"; if [[ "$answer" == *"$expected"* ]]; then echo "$answer"; return 0; fi; sleep 0.1; done; echo "$answer"; echo "TOUR: expected \\"$expected\\" from: $*" >&2; return 1; }',
  ];
  const body = lines.map((line) => {
    const withPorts = line.replaceAll('127.0.0.1:8787', ports.api).replaceAll('127.0.0.1:8789', ports.edge);
    const shown = /^(.*?)\s+# → (.+)$/.exec(withPorts);
    if (!shown) return withPorts;
    const command = shown[1]!.replace(/^curl /, 'curl -s ');
    return `expect_answer ${quote(shown[2]!)} ${command}`;
  });
  return [...prelude, ...body].join('\n');
}

const work = temporaryDirectory();
let platform: Platform;

beforeAll(async () => {
  // The repository's example worker, as the tour reaches it from the root.
  cpSync(path.join(ROOT, 'examples/reference-worker'), path.join(work, 'examples/reference-worker'), { recursive: true });
  cpSync(path.join(ROOT, 'src/worker/reference'), path.join(work, 'src/worker/reference'), { recursive: true });
  // A fresh start, as a new user makes it: no token given (it prints one), a new data directory.
  platform = await startPlatform(work, [], { PORT: '0', DATA_DIR: path.join(work, 'data') });
});

afterAll(() => platform?.stop());

describe("docs/workers.md's tour", () => {
  it('runs as written from a fresh npm start, each answer as shown', async () => {
    const lines = tourLines();
    expect(lines.filter((line) => line.includes('# → ')).length).toBeGreaterThanOrEqual(5);
    const ports = { api: new URL(platform.urls.api!).host, edge: new URL(platform.urls.edge!).host };
    expect(platform.token).toBeDefined();
    const child = spawn('bash', ['-c', script(lines, ports)], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', HOME: work, XDG_CONFIG_HOME: path.join(work, '.config'), CI: 'true', WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', API_TOKEN: platform.token! },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, output).toBe(0);
    expect(output).toContain('Uploaded reference-worker');
    expect(output).toContain('Successfully deleted reference-worker');
  });
});
