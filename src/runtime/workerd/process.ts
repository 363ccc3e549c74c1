/**
 * One workerd process: spawned with an environment holding nothing but the version's secrets
 * (never the platform's variables, tokens or keys), in a directory of its own, its readiness
 * read from its control descriptor, its log lines (the worker's console, uncaught exceptions)
 * handed on, its exit noticed.
 *
 * workerd is started by a small shell that also waits on a pipe from the platform: when the
 * platform's process ends, however it ends (even killed outright), the pipe closes and the shell
 * kills workerd, so no version outlives the platform that started it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface WorkerdOptions {
  binary: string;
  /** The configuration file (it holds no secret). */
  configFile: string;
  /** The process's working directory. */
  cwd: string;
  /** The whole environment of the process: the secrets' variables. */
  env: Record<string, string>;
  /** How many sockets the configuration listens on (ready once all do). */
  sockets: number;
  /**
   * One line of the worker's log: its console output, or workerd's report of an uncaught
   * exception. Lines of workerd's own (its `source` set) come too, the informational ones among
   * them (`--verbose`: the only place workerd tells a `scheduled` handler's exception).
   */
  onLog: (entry: LogEntry) => void;
  /** The process ended (a crash, a kill). */
  onExit: (code: number | null, signal: NodeJS.Signals | null) => void;
}

export interface LogEntry {
  level: string;
  message: string;
  /** Where in workerd the line comes from; absent for the worker's own console output. */
  source?: string;
}

export interface WorkerdProcess {
  /** workerd's own process id (-1 until it is known). */
  readonly pid: number;
  /** Resolves once every socket listens; rejects with workerd's own words when it cannot start. */
  readonly ready: Promise<void>;
  kill(signal?: NodeJS.Signals): void;
  /** Whether the process has ended. */
  readonly ended: boolean;
  /** Resolves when the process has ended. */
  readonly exited: Promise<void>;
}

/** How long a start may take before it is given up. */
const START_TIMEOUT_MS = 30_000;

/**
 * Runs workerd (its path and arguments follow), says its pid on the control descriptor, kills it
 * when standard input (a pipe the platform holds) closes, and exits with its status.
 */
const GUARD = [
  'exec 4<&0',
  '"$0" "$@" </dev/null & w=$!',
  `printf '{"event":"pid","pid":%s}\n' "$w" >&3`,
  '{ read -r _ <&4; kill -KILL "$w" 2>/dev/null; } &',
  'g=$!',
  'wait "$w"; s=$?',
  'kill "$g" 2>/dev/null',
  'exit "$s"',
].join('\n');

export function startWorkerd(options: WorkerdOptions): WorkerdProcess {
  const child: ChildProcess = spawn('/bin/sh', ['-c', GUARD, options.binary, 'serve', options.configFile, '--experimental', '--verbose', '--control-fd=3'], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
  });
  let pid = -1;
  const errors: string[] = [];
  const remember = (line: string) => {
    errors.push(line);
    if (errors.length > 20) errors.shift();
  };
  readLines(child.stdout!, (line) => {
    const entry = parseLogLine(line);
    if (entry.level === 'error' || entry.level === 'fatal') remember(entry.message);
    options.onLog(entry);
  });
  readLines(child.stderr!, (line) => {
    remember(line);
    options.onLog(parseLogLine(line));
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      options.onExit(code, signal);
      resolve();
    });
  });
  let listening = 0;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the runtime did not start within ${START_TIMEOUT_MS / 1000} s`));
      child.kill('SIGKILL');
    }, START_TIMEOUT_MS);
    timer.unref();
    readLines(child.stdio[3] as Readable, (line) => {
      try {
        const event = JSON.parse(line) as { event?: string; pid?: number };
        if (event.event === 'pid' && typeof event.pid === 'number') pid = event.pid;
        if (event.event === 'listen' && ++listening === options.sockets) {
          clearTimeout(timer);
          resolve();
        }
      } catch {
        // Not an event of ours.
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // Give the last lines a moment to be read: they say why.
      setImmediate(() => reject(new Error(errors.length > 0 ? errors.join('\n') : `the runtime ended (${signal ?? `exit ${code}`}) before it listened`)));
    });
  });
  ready.catch(() => {});
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  return {
    get pid() {
      return pid;
    },
    ready,
    exited,
    get ended() {
      return ended();
    },
    kill: (signal = 'SIGTERM') => {
      if (ended()) return;
      if (pid > 0) {
        try {
          process.kill(pid, signal);
        } catch {
          // Already gone.
        }
      } else child.kill('SIGKILL');
    },
  };
}

function readLines(stream: Readable, each: (line: string) => void): void {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    if (line.trim() !== '') each(line);
  });
}

/** workerd's structured log lines (`{"level":..,"message":..}`); anything else is taken as is. */
function parseLogLine(line: string): LogEntry {
  if (line.startsWith('{')) {
    try {
      const entry = JSON.parse(line) as { level?: unknown; message?: unknown; source?: unknown };
      if (typeof entry.message === 'string') {
        return { level: typeof entry.level === 'string' ? entry.level : 'info', message: entry.message, ...(typeof entry.source === 'string' ? { source: entry.source } : {}) };
      }
    } catch {
      // Not JSON after all.
    }
  }
  return { level: 'info', message: line };
}
