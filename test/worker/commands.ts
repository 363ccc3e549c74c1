// Runs `npm run bucket` and `npm run worker` as a user would, from the repository root.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

const running = new Set<ChildProcess>();
afterAll(() => {
  // A test that failed half-way may leave a host behind: end its whole process group.
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

function npmRun(script: 'bucket' | 'worker' | 's3', args: string[], env: Record<string, string>) {
  const child = spawn('npm', ['run', script, '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output.stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output.stderr += text));
  const finished = new Promise<Finished>((resolve) =>
    child.on('close', (code) => {
      running.delete(child);
      resolve({ code, ...output });
    }),
  );
  return { child, output, finished };
}

/** Runs `npm run <script> -- <args>` to its end. */
export function runCommand(script: 'bucket' | 'worker' | 's3', args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return npmRun(script, args, env).finished;
}

export interface Host {
  url: string;
  /** The process serving the worker (npm and tsx stand in between). */
  pid: number;
  output: { stdout: string; stderr: string };
  /** Sends `signal` to the host process and waits for `npm run` to end. */
  stop(signal?: NodeJS.Signals): Promise<Finished>;
  /** Sends `signal` to the whole process group, as Ctrl-C in a terminal does. */
  interrupt(signal?: NodeJS.Signals): Promise<Finished>;
}

const READY = /^Ready on (http:\/\/\S+) \(pid (\d+)\)$/m;

/** Starts `npm run worker -- <args>` (or the S3 endpoint) and resolves once it says it is ready. */
export async function startHost(args: string[], env: Record<string, string> = {}, script: 'worker' | 's3' = 'worker'): Promise<Host> {
  const { child, output, finished } = npmRun(script, args, env);
  const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
    const check = () => {
      const match = READY.exec(output.stdout);
      if (match) resolve(match);
    };
    child.stdout!.on('data', check);
    void finished.then(({ code }) =>
      reject(new Error(`the host ended (exit ${code}) before it was ready:\n${output.stdout}\n${output.stderr}`)),
    );
  });
  const pid = Number(ready[2]);
  return {
    url: ready[1]!,
    pid,
    output,
    stop: (signal = 'SIGTERM') => {
      process.kill(pid, signal);
      return finished;
    },
    interrupt: (signal = 'SIGINT') => {
      process.kill(-child.pid!, signal);
      return finished;
    },
  };
}

/** True while a process with this id exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the host with SIGTERM and checks that it stopped cleanly, showing its output if not. */
export async function expectCleanStop(host: Host): Promise<void> {
  const { code, stdout, stderr } = await host.stop();
  expect({ code, stderr }).toMatchObject({ code: 0 });
  expect(stdout).toMatch(/Stopping \(SIGTERM\)\nStopped\n$/);
}

/** Tests that start npm and Node processes one after another take seconds each on a loaded machine. */
export const COMMAND_TEST_TIMEOUT_MS = 120_000;
