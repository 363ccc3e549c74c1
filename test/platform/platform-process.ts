// `npm start` as users run it (node scripts/start.mjs, the bundle), in a directory of its own,
// with the lines it prints read back: the generated secrets, each component's URL, the pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const START = path.join(ROOT, 'scripts', 'start.mjs');

const running = new Set<ChildProcess>();
const directories: string[] = [];
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

export function temporaryDirectory(): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'platform-test-'));
  directories.push(directory);
  return directory;
}

/** Writes files (name to text) into a directory and answers the directory. */
export function withFiles(files: Record<string, string>, directory = temporaryDirectory()): string {
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(directory, name), text);
  return directory;
}

export interface Platform {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Each component's URL as the start-up lines print it (`api`, `s3`, `edge`, `worker:<name>`). */
  urls: Record<string, string>;
  /** The generated token and S3 key, when they were. */
  token: string | undefined;
  s3Key: { accessKeyId: string; secretAccessKey: string } | undefined;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnPlatform(cwd: string, args: string[], env: Record<string, string>, start = START) {
  const child = spawn(process.execPath, [start, ...args], {
    cwd,
    // Nothing of the parent's own settings leaks in (a developer's PORT or S3 keys).
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (output.stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (output.stderr += text));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, output, exited };
}

/** Runs the platform until it ends by itself (a refused configuration). */
export async function runPlatform(cwd: string, args: string[] = [], env: Record<string, string> = {}, start = START): Promise<Finished> {
  const { output, exited } = spawnPlatform(cwd, args, env, start);
  const code = await exited;
  return { code, ...output };
}

const READY = /^Ready on (http:\/\/\S+) \(pid (\d+)\)$/m;

/**
 * Starts the platform and resolves once it prints that it is ready; `start` is the start script
 * (the project's own unless given).
 */
export async function startPlatform(cwd: string, args: string[] = [], env: Record<string, string> = {}, start = START): Promise<Platform> {
  const { child, output, exited } = spawnPlatform(cwd, args, env, start);
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (READY.test(output.stdout)) resolve();
    };
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`the platform ended (exit ${code}) before it was ready:\n${output.stdout}\n${output.stderr}`)));
  });
  const urls = Object.fromEntries([...output.stdout.matchAll(/^ {2}(api|s3|edge|worker:\S+) +(http:\/\/\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const token = /^API token \(generated, shown once\): (\S+)$/m.exec(output.stdout)?.[1];
  const key = /^S3 access key \(generated, shown once\): (\S+) (\S+)$/m.exec(output.stdout);
  return {
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    urls,
    token,
    s3Key: key ? { accessKeyId: key[1]!, secretAccessKey: key[2]! } : undefined,
    exited,
    stop: (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
  };
}
