// Start-up as an outside observer sees it: from spawning a command to its first answer, polled by
// a separate, warm process (poller.mjs) every 10 ms. What the poll costs is the same for every
// command and baseline measured with it.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** A command line: the program and its arguments. */
export type Command = readonly [string, ...string[]];

export interface FirstAnswer {
  /** The command to start, where, with what environment. */
  command: Command;
  env: NodeJS.ProcessEnv;
  cwd: string;
  url: string;
  headers?: Record<string, string>;
  /** The status that counts as an answer (200 by default). */
  status?: number;
}

export interface Poller {
  /** Milliseconds from spawning the command until its first answer; the command's process group is stopped after. */
  timeToFirstAnswer(start: FirstAnswer): Promise<number>;
  close(): void;
}

export function startPoller(): Poller {
  const poller = spawn(process.execPath, [path.join(import.meta.dirname, 'poller.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<number, (answer: { at?: string; error?: string }) => void>();
  createInterface({ input: poller.stdout! }).on('line', (line) => {
    const answer = JSON.parse(line) as { id: number; at?: string; error?: string };
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  });
  let next = 0;
  return {
    async timeToFirstAnswer({ command, env, cwd, url, headers = {}, status = 200 }) {
      const id = next++;
      const answered = new Promise<{ at?: string; error?: string }>((resolve) => waiting.set(id, resolve));
      const [program, ...args] = command;
      const started = process.hrtime.bigint();
      // A process group of its own: npm runs the command in a shell of its own, and the whole group is stopped.
      const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      poller.stdin!.write(`${JSON.stringify({ id, url, headers, status })}\n`);
      let errors = '';
      child.stderr!.on('data', (chunk: Buffer) => void (errors += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        const answer: { at?: string; error?: string } = await Promise.race([
          answered,
          exited.then(() => ({ error: `exited (code ${child.exitCode}) before answering: ${errors.trim()}` })),
        ]);
        if (answer.at === undefined) throw new Error(`${command.join(' ')}: ${answer.error}`);
        return Number(BigInt(answer.at) - started) / 1e6;
      } finally {
        await stop(child, exited);
      }
    },
    close: () => poller.kill(),
  };
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    // Gone meanwhile.
  }
  await exited;
}
