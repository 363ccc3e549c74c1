// Server processes as `npm start` runs them, configured by the environment, for tests and
// benchmarks that run several instances side by side.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createApiClient, type ApiClient } from '../../src/client';
import { readyOrigin } from '../support/server-ready';

const root = path.resolve(import.meta.dirname, '../..');
export const instanceToken = 'scale-test-token';
const START_TIMEOUT_MS = 60_000;

export interface Instance {
  readonly baseUrl: string;
  readonly origin: string;
  readonly api: ApiClient;
  readonly child: ChildProcess;
  /** Everything the process wrote so far. */
  output(): string;
  /** Plain fetch against the API with the instance's token. */
  fetch(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no chance to finish anything. */
  kill(): Promise<void>;
}

/** How the server is started: from its sources under tsx, or from the bundle as `npm start` does. */
const ENTRIES = {
  sources: ['--import', 'tsx', 'src/server/main.ts'],
  bundle: ['scripts/start.mjs'],
} as const;

/**
 * Starts the server in a child process on a port it picks and reports, and waits until
 * GET /readyz answers 200. `env` adds to (or, with '', blanks) the parent's environment.
 */
export async function startInstance(env: Record<string, string>, entry: keyof typeof ENTRIES = 'sources'): Promise<Instance> {
  const child = spawn(process.execPath, ENTRIES[entry], {
    cwd: root,
    env: { ...process.env, API_TOKEN: instanceToken, LOG_LEVEL: 'warn', ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + START_TIMEOUT_MS;
  let origin: string | null;
  while (!(origin = readyOrigin(output)) || !(await isReady(origin))) {
    if (Date.now() > deadline || child.exitCode !== null || child.signalCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`the server did not become ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const baseUrl = `${origin}/client/v4`;
  const headers = { Authorization: `Bearer ${instanceToken}`, 'Content-Type': 'application/json' };
  return {
    baseUrl,
    origin,
    api: createApiClient({ baseUrl, credentials: { token: instanceToken } }),
    child,
    output: () => output,
    fetch: (pathAndQuery, init = {}) => fetch(`${baseUrl}${pathAndQuery}`, { ...init, headers: { ...headers, ...init.headers } }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

async function isReady(origin: string): Promise<boolean> {
  try {
    return (await fetch(`${origin}/readyz`)).status === 200;
  } catch {
    return false;
  }
}
