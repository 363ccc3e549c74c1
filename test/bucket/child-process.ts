// Runs test/bucket/fixtures/bucket-child.ts (or catalogue-child.ts) in another Node process.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./fixtures/bucket-child.ts', import.meta.url));
const CATALOGUE_CHILD = fileURLToPath(new URL('./fixtures/catalogue-child.ts', import.meta.url));

export interface Child {
  process: ChildProcess;
  /** Resolves with the first stdout line for which `accept` holds. */
  line(accept?: (line: string) => boolean): Promise<string>;
  /** Resolves when the process has exited, with its stdout lines. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: string[]; stderr: string }>;
}

export function startChild(command: string, directory: string, ...args: string[]): Child {
  return spawnFixture(CHILD, [command, directory, ...args], 'ignore');
}

/** A child serving requests on a catalogue of `dataDir`: one line in, one line out (see catalogue-child.ts). */
export interface CatalogueChild extends Child {
  /** Sends a request and resolves with the child's answer to it. */
  ask(request: string): Promise<string>;
}

export function startCatalogueChild(dataDir: string): CatalogueChild {
  const child = spawnFixture(CATALOGUE_CHILD, [dataDir], 'pipe');
  let asked = 0;
  return {
    ...child,
    ask(request) {
      const id = String(++asked);
      child.process.stdin!.write(`${id} ${request}\n`);
      return child.line((line) => line.startsWith(`${id} `)).then((line) => line.slice(id.length + 1));
    },
  };
}

function spawnFixture(file: string, args: string[], stdin: 'ignore' | 'pipe'): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    stdio: [stdin, 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiting: { accept: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let stderr = '';
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    buffered += text;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      lines.push(line);
      for (const waiter of waiting.filter((w) => w.accept(line))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    process: child,
    line: (accept = () => true) => {
      const seen = lines.find(accept);
      if (seen !== undefined) return Promise.resolve(seen);
      return Promise.race([
        new Promise<string>((resolve) => waiting.push({ accept, resolve })),
        exit.then(({ code }) => {
          throw new Error(`child exited (${code}) before the expected line; stderr: ${stderr}`);
        }),
      ]);
    },
    exited: async () => ({ ...(await exit), lines, stderr }),
  };
}

/** Runs a child to completion and answers its stdout lines; fails on a non-zero exit. */
export async function runChild(command: string, directory: string, ...args: string[]): Promise<string[]> {
  const { code, lines, stderr } = await startChild(command, directory, ...args).exited();
  if (code !== 0) throw new Error(`child ${command} exited with ${code}: ${stderr}`);
  return lines;
}
