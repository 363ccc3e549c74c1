/**
 * The CPU limit. workerd runs a version's JavaScript on one thread, so a worker spinning in a
 * loop blocks its process: the watchdog probes each process with requests in flight (a tiny
 * worker of the runtime's own, answering on that same thread) and, while the probe goes
 * unanswered, counts the process's CPU time (from /proc). A process blocked for the whole CPU
 * limit of one request's computing is cut off, as the platform cuts a worker off at its CPU
 * limit. A request that waits (on a fetch, a timer, the client) blocks nothing and is never cut
 * off, however long it takes; CPU time is counted only while it runs without yielding.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { Generation, VersionInstance } from './instance';

const SAMPLE_MS = 50;
/** Clock ticks per second of /proc's times (USER_HZ, 100 on every Linux Node runs on). */
const TICKS = 100;

function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return undefined;
  }
}

export class CpuWatchdog {
  readonly #limitMs: number;
  readonly #instances: () => Iterable<VersionInstance>;
  #timer: NodeJS.Timeout | undefined;

  constructor(limitMs: number, instances: () => Iterable<VersionInstance>) {
    this.#limitMs = limitMs;
    this.#instances = instances;
  }

  /** Samples while some request is in flight; called when one starts. */
  wake(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#sample(), SAMPLE_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sample(): void {
    let busy = false;
    for (const instance of this.#instances()) {
      for (const generation of instance.busyGenerations()) {
        busy = true;
        this.#check(instance, generation);
      }
    }
    if (!busy) this.stop();
  }

  #check(instance: VersionInstance, generation: Generation): void {
    if (generation.exceeded) return;
    if (generation.blockedSince !== undefined) {
      const cpu = cpuMs(generation.process.pid);
      if (cpu !== undefined && cpu - generation.cpuWhenBlocked! >= this.#limitMs) instance.cutOff(generation);
      return;
    }
    if (generation.probing) return;
    generation.probing = true;
    const cpuAtProbe = cpuMs(generation.process.pid);
    // A probe unanswered after one sample: the thread is taken; counting starts from the probe.
    const late = setTimeout(() => {
      if (generation.probing && cpuAtProbe !== undefined) {
        generation.blockedSince = Date.now();
        generation.cpuWhenBlocked = cpuAtProbe;
      }
    }, SAMPLE_MS);
    const done = () => {
      clearTimeout(late);
      generation.probing = false;
      generation.blockedSince = undefined;
      generation.cpuWhenBlocked = undefined;
    };
    http
      .get({ socketPath: generation.probeSocketPath, path: '/', agent: false }, (answer) => {
        answer.resume();
        answer.on('end', done);
      })
      .on('error', done);
  }
}
