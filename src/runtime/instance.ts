/**
 * One version of one script, running: a workerd process of its own (a version that is cut off or
 * crashes is started again for the next request), the requests in flight counted per process so
 * that a retired version finishes them before it stops.
 */
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { VersionAssets } from './assets/version-assets';
import type { DeployedVersion } from './deployed';
import { CF_BLOB_HEADER, PROTO_HEADER, proxy, type RunRequest } from './proxy';
import { exceededEvent } from './tails/exceeded';
import { TAIL_WORKER_SOURCE } from './tails/tail-worker';
import { TRACE_GRANT_HEADER, type Traces } from './tails/trace-sink';
import { versionConfig } from './workerd/config';
import { startWorkerd, type LogEntry, type WorkerdProcess } from './workerd/process';

/** What running a cron trigger's `scheduled` handler came to. */
export type ScheduledResult =
  | { result: 'ok'; version: string }
  /** The version has no `scheduled` handler: nothing ran. */
  | { result: 'no-handler'; version: string }
  | { result: 'exception' | 'exceeded-resources'; version: string; error?: string };

/** What running one request came to. */
export type RunResult =
  | { result: 'ok'; version: string }
  | { result: 'exception' | 'exceeded-resources'; version: string; error?: string; written: boolean };

export interface InstanceContext {
  binary: string;
  /** The runtime's private directory (sockets, configuration files). */
  directory: string;
  bucketSocketPath: string;
  /** The assets service (the `assets` binding). */
  assetsSocketPath: string;
  grantHeader: string;
  grant(account: string, bucket: string): string;
  /** A grant to one version's assets. */
  grantAssets(assets: VersionAssets): string;
  revoke(tokens: string[]): void;
  /** One line of the worker's log. */
  log(entry: { script: string; version: string; level: string; message: string }): void;
  /** Something the runtime noticed (a start that failed, a process that ended), never a secret. */
  report(line: string): void;
  /** The trace sink of tailed versions: where their tail worker posts, a grant per version, and traces the runtime tells itself. */
  traceSocketPath: string;
  traceGrant(source: { account: string; script: string; version: string }): string;
  traceRevoke(token: string): void;
  trace(traces: Traces): void;
}

/** The platform's memory limit for a worker's isolate. */
const HEAP_MIB = 128;
/** How long a retired version's process lives on after its last request, for its `ctx.waitUntil` work (the platform allows 30 s). */
export const WAIT_UNTIL_MS = 30_000;
/** How long a failed request waits for workerd's log line of its exception. */
const EXCEPTION_WINDOW_MS = 250;
/** The platform's wall-time limit of a cron trigger's run (15 minutes). */
const SCHEDULED_WALL_MS = 15 * 60_000;
/** What workerd says of a worker without a `scheduled` handler. */
const NO_SCHEDULED_HANDLER = /does not export a scheduled\(\) function|lack a handler for ScheduledEvents/;

let counter = 0;

const EXCEEDED_CPU = 'the worker exceeded its CPU time';

/** A version's identity as the runtime runs it: its id, and what its bindings hold. */
export function instanceKey(account: string, script: string, version: DeployedVersion, traced = false): string {
  const bindings = createHash('sha256').update(JSON.stringify(version.bindings)).digest('hex').slice(0, 16);
  return `${account}/${script}/${version.id}/${bindings}${traced ? '/traced' : ''}`;
}

interface Generation {
  process: WorkerdProcess;
  socketPath: string;
  probeSocketPath: string;
  triggerSocketPath: string;
  agent: http.Agent;
  inFlight: number;
  /** Set when the runtime cut the process off for its CPU time. */
  exceeded: boolean;
  /** The watchdog's view: a probe on its way, and since when (and at what CPU time) the process has not answered one. */
  probing?: boolean;
  blockedSince?: number;
  cpuWhenBlocked?: number;
}

export class VersionInstance {
  readonly key: string;
  readonly #context: InstanceContext;
  readonly #account: string;
  readonly #script: string;
  readonly #version: DeployedVersion;
  readonly #grants = new Map<string, string>();
  readonly #secrets: Record<string, string> = {};
  readonly #secretVariables = new Map<string, string>();
  /** The trace sink's grant while the script is tailed (the process then runs the platform's tail worker). */
  readonly #traceGrant: string | undefined;
  #current: Generation | undefined;
  #starting: Promise<Generation> | undefined;
  #startError: string | undefined;
  #retired = false;
  #stopTimer: NodeJS.Timeout | undefined;
  #lastException: { message: string; at: number } | undefined;
  readonly #generations = new Set<Generation>();
  readonly #id = ++counter;
  #restarts = 0;

  constructor(context: InstanceContext, account: string, script: string, version: DeployedVersion, assets?: VersionAssets, traced = false) {
    this.key = instanceKey(account, script, version, traced);
    this.#traceGrant = traced ? context.traceGrant({ account, script, version: version.id }) : undefined;
    this.#context = context;
    this.#account = account;
    this.#script = script;
    this.#version = version;
    let secret = 0;
    for (const binding of version.bindings) {
      if (binding.type === 'r2_bucket') this.#grants.set(binding.name, context.grant(account, binding.bucket_name));
      // An assets binding on a version without assets is refused at upload; none is granted here.
      if (binding.type === 'assets' && assets !== undefined) this.#grants.set(binding.name, context.grantAssets(assets));
      if (binding.type === 'secret_text') {
        const variable = `SECRET_${secret++}`;
        this.#secretVariables.set(binding.name, variable);
        this.#secrets[variable] = binding.text;
      }
    }
  }

  get script(): string {
    return this.#script;
  }

  get versionId(): string {
    return this.#version.id;
  }

  /** Starts the process (once); resolves when it listens, rejects with why it cannot run. */
  start(): Promise<void> {
    return this.#generation().then(() => undefined);
  }

  #generation(): Promise<Generation> {
    if (this.#current) return Promise.resolve(this.#current);
    if (this.#startError !== undefined) return Promise.reject(new Error(this.#startError));
    this.#starting ??= this.#spawn().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  async #spawn(): Promise<Generation> {
    const name = `v${this.#id}-${this.#restarts++}`;
    const socketPath = path.join(this.#context.directory, `${name}.sock`);
    const probeSocketPath = path.join(this.#context.directory, `${name}.probe`);
    rmSync(probeSocketPath, { force: true });
    const triggerSocketPath = path.join(this.#context.directory, `${name}.trigger`);
    rmSync(triggerSocketPath, { force: true });
    const configFile = path.join(this.#context.directory, `${name}.capnp`);
    rmSync(socketPath, { force: true });
    let config: string;
    try {
      config = versionConfig({
        version: this.#version,
        socketPath,
        probeSocketPath,
        triggerSocketPath,
        bucketSocketPath: this.#context.bucketSocketPath,
        assetsSocketPath: this.#context.assetsSocketPath,
        grantHeader: this.#context.grantHeader,
        grants: this.#grants,
        secretVariables: this.#secretVariables,
        cfBlobHeader: CF_BLOB_HEADER,
        protoHeader: PROTO_HEADER,
        heapMiB: HEAP_MIB,
        ...(this.#traceGrant === undefined ? {} : { tail: { source: TAIL_WORKER_SOURCE, sinkSocketPath: this.#context.traceSocketPath, grantHeader: TRACE_GRANT_HEADER, grant: this.#traceGrant } }),
      });
    } catch (error) {
      this.#startError = (error as Error).message;
      throw error;
    }
    writeFileSync(configFile, config, { mode: 0o600 });
    const generation: Generation = {
      socketPath,
      probeSocketPath,
      triggerSocketPath,
      agent: new http.Agent({ keepAlive: true, maxSockets: 256 }),
      inFlight: 0,
      exceeded: false,
      process: startWorkerd({
        binary: this.#context.binary,
        configFile,
        cwd: this.#context.directory,
        env: { ...this.#secrets },
        sockets: 3,
        onLog: (entry) => this.#onLog(entry),
        onExit: (code, signal) => this.#onExit(generation, code, signal),
      }),
    };
    this.#generations.add(generation);
    try {
      await generation.process.ready;
    } catch (error) {
      this.#startError = `the version cannot start: ${(error as Error).message}`;
      this.#context.report(`${this.#script} (version ${this.#version.id}): ${this.#startError}`);
      generation.process.kill('SIGKILL');
      throw new Error(this.#startError);
    } finally {
      // workerd has read its configuration; the file goes.
      rmSync(configFile, { force: true });
    }
    this.#current = generation;
    return generation;
  }

  /**
   * The uncaught exception workerd logged for a request that failed: its log line comes on its
   * own pipe, a moment after the answer, so it is waited for briefly. With several requests
   * failing at once, each gets the latest.
   */
  async #exceptionSince(started: number): Promise<string | undefined> {
    const latest = () => (this.#lastException && this.#lastException.at >= started ? this.#lastException.message : undefined);
    if (latest() !== undefined) return latest();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, EXCEPTION_WINDOW_MS);
      this.#exceptionWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return latest();
  }

  readonly #exceptionWaiters: (() => void)[] = [];

  #onLog(entry: LogEntry): void {
    // workerd's own informational lines (`--verbose`) are read for what they say of exceptions
    // (a `scheduled` handler's are told nowhere else), never passed on to the log.
    if (entry.source !== undefined && (entry.level === 'info' || entry.level === 'debug')) {
      const exception = /^(?:uncaught exception; exception|execution context aborted; e) = .*?failed: (?:remote\.)?(?:jsg\.)?(.*)$/s.exec(entry.message);
      if (exception) this.#noteException(exception[1]!.split('\nstack:')[0]!.trim());
      return;
    }
    // workerd's own plain line for a worker without a `scheduled` handler: the run's outcome says it.
    if (entry.source === undefined && entry.message.startsWith('Received a ScheduledEvent but we lack a handler')) {
      this.#noteException(entry.message);
      return;
    }
    const uncaught = /Uncaught exception: .*?failed: (?:remote\.)?(?:jsg\.)?(.*)$/s.exec(entry.message);
    if (uncaught) this.#noteException(uncaught[1]!.split('\nstack:')[0]!.trim());
    const message = uncaught ? `Uncaught ${this.#lastException!.message}` : entry.message;
    this.#context.log({ script: this.#script, version: this.#version.id, level: entry.level, message });
  }

  #noteException(message: string): void {
    this.#lastException = { message, at: Date.now() };
    for (const wake of this.#exceptionWaiters.splice(0)) wake();
  }

  #onExit(generation: Generation, code: number | null, signal: NodeJS.Signals | null): void {
    generation.agent.destroy();
    rmSync(generation.socketPath, { force: true });
    rmSync(generation.probeSocketPath, { force: true });
    rmSync(generation.triggerSocketPath, { force: true });
    this.#generations.delete(generation);
    if (this.#current === generation) {
      this.#current = undefined;
      if (!this.#retired && !generation.exceeded) this.#context.report(`${this.#script} (version ${this.#version.id}): the runtime ended (${signal ?? `exit ${code}`}); it starts again on the next request`);
    }
    if (this.#retired && this.#generations.size === 0) this.#revokeGrants();
  }

  #revokeGrants(): void {
    this.#context.revoke([...this.#grants.values()]);
    if (this.#traceGrant !== undefined) this.#context.traceRevoke(this.#traceGrant);
  }

  /** Runs one request on the current process (started if need be); a traced request cut off is told to the tails here, its process gone with its tail worker. */
  async run(run: RunRequest): Promise<RunResult> {
    if (this.#traceGrant === undefined) return this.#run(run);
    const started = Date.now();
    const result = await this.#run(run);
    if (result.result === 'exceeded-resources') {
      const outcome = result.error === EXCEEDED_CPU ? 'exceededCpu' : 'exceededMemory';
      const { event, headers } = exceededEvent(run, outcome, started);
      this.#context.trace({ account: this.#account, script: this.#script, version: this.#version.id, events: [event], headers: [headers] });
    }
    return result;
  }

  async #run(run: RunRequest): Promise<RunResult> {
    const version = this.#version.id;
    let generation: Generation;
    try {
      generation = await this.#generation();
    } catch (error) {
      return { result: 'exception', version, error: (error as Error).message, written: false };
    }
    generation.inFlight++;
    const started = Date.now();
    try {
      const outcome = await proxy(run, generation.socketPath, generation.agent);
      if (outcome.result === 'ok') return { result: 'ok', version };
      if (outcome.result === 'exception') {
        const error = await this.#exceptionSince(started);
        return { result: 'exception', version, ...(error === undefined ? {} : { error }), written: false };
      }
      if (generation.exceeded) return { result: 'exceeded-resources', version, error: EXCEEDED_CPU, written: outcome.written };
      // The process ended under the request (its memory, a crash), or the client left: its exit
      // may come a moment after the broken connection.
      await Promise.race([generation.process.exited, new Promise((resolve) => setTimeout(resolve, 250).unref())]);
      if (generation.exceeded) return { result: 'exceeded-resources', version, error: EXCEEDED_CPU, written: outcome.written };
      const ended = generation.process.ended;
      return { result: ended ? 'exceeded-resources' : 'exception', version, error: outcome.error, written: outcome.written };
    } finally {
      generation.inFlight--;
      if (this.#retired) this.#stopWhenIdle();
    }
  }

  /**
   * Runs the version's `scheduled` handler for a cron trigger (`scheduledTime` in ms), through the
   * process's trigger service; counted as a request in flight (the CPU limit, retirement).
   */
  async scheduled(cron: string, scheduledTime: number): Promise<ScheduledResult> {
    const version = this.#version.id;
    let generation: Generation;
    try {
      generation = await this.#generation();
    } catch (error) {
      return { result: 'exception', version, error: (error as Error).message };
    }
    generation.inFlight++;
    const started = Date.now();
    try {
      let answer: { outcome?: unknown };
      try {
        answer = await trigger(generation.triggerSocketPath, cron, scheduledTime);
      } catch (error) {
        // The process ended under the run (cut off, its memory): its exit may come a moment after the broken connection.
        await Promise.race([generation.process.exited, new Promise((resolve) => setTimeout(resolve, 250).unref())]);
        if (generation.exceeded || generation.process.ended) return { result: 'exceeded-resources', version, error: generation.exceeded ? 'the worker exceeded its CPU time' : (error as Error).message };
        return { result: 'exception', version, error: (error as Error).message };
      }
      switch (answer.outcome) {
        case 'ok':
          return { result: 'ok', version };
        case 'exceededCpu':
          return { result: 'exceeded-resources', version, error: 'the worker exceeded its CPU time' };
        case 'exceededMemory':
          return { result: 'exceeded-resources', version, error: 'the worker exceeded its memory' };
        case 'exception': {
          const error = await this.#exceptionSince(started);
          if (error !== undefined && NO_SCHEDULED_HANDLER.test(error)) return { result: 'no-handler', version };
          return { result: 'exception', version, ...(error === undefined ? {} : { error }) };
        }
        default:
          return { result: 'exception', version, error: `the runtime answered ${String(answer.outcome)}` };
      }
    } finally {
      generation.inFlight--;
      if (this.#retired) this.#stopWhenIdle();
    }
  }

  /** The processes with requests in flight, for the CPU watchdog. */
  busyGenerations(): Generation[] {
    return [...this.#generations].filter((generation) => generation.inFlight > 0);
  }

  /** Cuts off a process that spent its CPU time: its requests fail, the next request starts another. */
  cutOff(generation: Generation): void {
    generation.exceeded = true;
    if (this.#current === generation) this.#current = undefined;
    this.#context.report(`${this.#script} (version ${this.#version.id}): a request exceeded its CPU time; the worker was cut off`);
    generation.process.kill('SIGKILL');
  }

  /**
   * No new requests come; the process stops once those in flight are done and their `waitUntil`
   * time is over. Resolves once it has stopped.
   */
  retire(waitUntilMs = WAIT_UNTIL_MS): Promise<void> {
    this.#retired = true;
    this.#lingerMs = waitUntilMs;
    this.#stopWhenIdle();
    return this.#stopped;
  }

  #lingerMs = WAIT_UNTIL_MS;
  #markStopped!: () => void;
  readonly #stopped = new Promise<void>((resolve) => (this.#markStopped = resolve));

  #stopWhenIdle(): void {
    const busy = [...this.#generations].some((generation) => generation.inFlight > 0);
    if (busy || this.#stopTimer) return;
    this.#stopTimer = setTimeout(() => void this.stop(), this.#lingerMs);
    this.#stopTimer.unref();
  }

  /** Stops every process now. */
  async stop(): Promise<void> {
    this.#retired = true;
    if (this.#stopTimer) clearTimeout(this.#stopTimer);
    this.#current = undefined;
    const generations = [...this.#generations];
    for (const generation of generations) generation.process.kill('SIGTERM');
    const killer = setTimeout(() => generations.forEach((generation) => generation.process.kill('SIGKILL')), 2_000);
    await Promise.all(generations.map((generation) => generation.process.exited));
    clearTimeout(killer);
    this.#revokeGrants();
    this.#markStopped();
  }
}

export type { Generation };

/** One call of a process's trigger service: workerd's outcome of the `scheduled` handler. */
function trigger(socketPath: string, cron: string, scheduledTime: number): Promise<{ outcome?: unknown }> {
  const query = new URLSearchParams({ cron, time: String(scheduledTime) });
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath, method: 'POST', path: `/?${query}`, agent: false, timeout: SCHEDULED_WALL_MS }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', reject);
      answer.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { outcome?: unknown });
        } catch {
          reject(new Error(`the runtime answered ${answer.statusCode} without an outcome`));
        }
      });
    });
    request.on('timeout', () => request.destroy(new Error(`the scheduled handler ran past the platform's ${SCHEDULED_WALL_MS / 60_000} minutes`)));
    request.on('error', reject);
    request.end();
  });
}
