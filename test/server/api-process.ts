// The management API as `npm start` runs it (node scripts/start.mjs), in its own process over a
// data directory, and wrangler (pinned devDependency) run as a user runs it, pointed at it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from '../worker/commands';

export interface ApiProcess {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

const READY = /^Ready on (http:\/\/\S+) \(pid (\d+)\)$/m;

export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const found = READY.exec(stdout);
      if (found) resolve(found);
    });
    void ended.then(() => reject(new Error(`the API server ended before it was ready:\n${stdout}\n${stderr}`)));
  });
  return {
    baseUrl: match[1]!,
    pid: Number(match[2]),
    stop: async () => {
      child.kill('SIGTERM');
      await ended;
      running.delete(child);
    },
  };
}

export interface WranglerResult {
  code: number | null;
  /** stdout and stderr together, colours removed. */
  output: string;
}

/** Runs wrangler against the API, with its own configuration directory and no telemetry. */
export function wrangler(args: string[], env: Record<string, string>, cwd: string): Promise<WranglerResult> {
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), ...args], {
    cwd,
    env: {
      ...withoutCloudflareVariables(process.env),
      XDG_CONFIG_HOME: path.join(cwd, '.config'),
      WRANGLER_SEND_METRICS: 'false',
      CI: 'true',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, output: output.replace(/\u001b\[[0-9;]*m/g, '') })),
  );
}

/** The environment without any CLOUDFLARE_* credentials a developer may have set. */
function withoutCloudflareVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => !name.startsWith('CLOUDFLARE_') && value !== undefined)) as Record<string, string>;
}

export function temporaryDirectory(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}
