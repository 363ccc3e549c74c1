// The health of the places a process keeps its state in (a PostgreSQL database, a SQLite file, a
// data directory), as the parts that use them observe it: a place lost (its database out of
// reach) until found again, a place full (no room for a write) until a write fits again. Shared
// by the store, the bucket runtime and every front door of one process, so that an outage is
// told once per place, not once per pool or per request, and /readyz can name what is wrong.
import { statSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs';

/** A change in a place's health, told once per change. */
export type HealthEvent =
  | { place: string; state: 'lost'; reason: string }
  | { place: string; state: 'back'; downMs: number; reason: string }
  | { place: string; state: 'full'; reason: string }
  | { place: string; state: 'room'; fullMs: number };

/** What is wrong now, for readiness answers. */
export interface HealthProblem {
  place: string;
  /** `unavailable`: requests that need it answer 503; `full`: writes answer 507, reads go on. */
  kind: 'unavailable' | 'full';
  reason: string;
  since: Date;
}

/** How often a lost place is tried while nothing else tries it. */
const PROBE_INTERVAL_MS = 250;

/** A place full with no measure of its free space counts as full this long after its last refusal. */
const FULL_MEMORY_MS = 60_000;
/** How often a full place is looked at again. */
const ROOM_CHECK_INTERVAL_MS = 5_000;
/**
 * Bytes a data directory keeps in a file of its own (`reserved-space`) while its file system has
 * room, and gives back the moment a write finds it full: what deletes need to run then (SQLite
 * appends a few pages to its log to delete a row), so that space can be freed.
 */
export const RESERVE_BYTES = 1024 * 1024;
/** The reserve's file name in a data directory. */
export const RESERVE_FILE = 'reserved-space';
/** A full file system takes writes again once this much is free (the reserve, made again, and as much). */
const ROOM_BYTES = 2 * RESERVE_BYTES;

type Listener = (event: HealthEvent) => void;

function measure(freeBytes: (() => number) | undefined): number | undefined {
  try {
    return freeBytes?.();
  } catch {
    return undefined;
  }
}

/** The bytes an unprivileged writer may still write on the file system of `directory`. */
export function freeBytesOf(directory: string): () => number {
  return () => {
    const stats = statfsSync(directory);
    return stats.bavail * stats.bsize;
  };
}

const listeners = new Set<Listener>();
const places = new Map<string, PlaceHealth>();

/** The health of `place` (a database URL without its password, a file), made on first ask. */
export function healthOf(place: string): PlaceHealth {
  let health = places.get(place);
  if (!health) {
    health = new PlaceHealth(place);
    places.set(place, health);
  }
  return health;
}

/**
 * The health of the file system `directory` is on: one for every directory on it (the store's
 * file and every bucket of a data directory fill the same disk), named by the first directory
 * that asked. Full until `ROOM_BYTES` are free again.
 */
export function fileSystemHealth(directory: string): PlaceHealth {
  const key = `file system ${statSync(directory).dev}`;
  let health = places.get(key);
  if (!health) {
    health = new PlaceHealth(key, directory, freeBytesOf(directory));
    places.set(key, health);
  }
  return health;
}

/** Every place that is unavailable or full now. */
export function healthProblems(): HealthProblem[] {
  const problems: HealthProblem[] = [];
  for (const health of places.values()) problems.push(...health.problems());
  return problems;
}

/**
 * Hears every change of health (the process's log). Until someone listens, each change is one
 * line on standard error, so that no outage goes untold.
 */
export function onHealthChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Something with pino's two levels (the logger of a process), or a logger of the same shape. */
interface Logger {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

/** Tells every change to `logger`: losses and full places as warnings, their ends as information. */
export function logHealthChanges(logger: Logger): () => void {
  return onHealthChange((event) => {
    const line = describeHealthEvent(event);
    if (event.state === 'lost' || event.state === 'full') logger.warn({ health: event }, line);
    else logger.info({ health: event }, line);
  });
}

/** One line saying what changed, for logs that take text. */
export function describeHealthEvent(event: HealthEvent): string {
  switch (event.state) {
    case 'lost':
      return `${event.place} is unavailable (${event.reason}); requests that need it wait for it, then answer 503`;
    case 'back':
      return `${event.place} is available again after ${(event.downMs / 1000).toFixed(1)} s`;
    case 'full':
      return `${event.place} is full (${event.reason}); writes answer 507 until space is freed, reads and deletes go on`;
    case 'room':
      return `${event.place} takes writes again after ${(event.fullMs / 1000).toFixed(1)} s full`;
  }
}

function tell(event: HealthEvent): void {
  if (listeners.size === 0) {
    process.stderr.write(`${describeHealthEvent(event)}\n`);
    return;
  }
  for (const listener of listeners) listener(event);
}

export class PlaceHealth {
  #lost: { since: number; reason: string } | null = null;
  #full: { since: number; last: number; reason: string } | null = null;
  #roomCheck: NodeJS.Timeout | null = null;
  #reserve: string | null = null;
  readonly #waiters = new Set<() => void>();
  readonly #probes = new Set<() => Promise<void>>();
  #probing: NodeJS.Timeout | null = null;

  constructor(
    readonly key: string,
    /** What logs and /readyz call it. */
    readonly place: string = key,
    private readonly freeBytes?: () => number,
  ) {}

  get isLost(): boolean {
    return this.#lost !== null;
  }

  /** The place could not be reached: told once, then tried every 250 ms until it answers. */
  lost(reason: string): void {
    if (this.#lost) return;
    this.#lost = { since: Date.now(), reason };
    tell({ place: this.place, state: 'lost', reason });
    this.#scheduleProbe();
  }

  /** The place answered: if it was lost, that is told, and whoever waits for it goes on. */
  found(): void {
    const lost = this.#lost;
    if (!lost) return;
    this.#lost = null;
    this.#stopProbing();
    tell({ place: this.place, state: 'back', downMs: Date.now() - lost.since, reason: lost.reason });
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  /**
   * Resolves true once the place is found again (at once when it is not lost), false when
   * `timeoutMs` passes first.
   */
  whenFound(timeoutMs: number): Promise<boolean> {
    if (!this.#lost) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        resolve(false);
      }, timeoutMs);
      this.#waiters.add(wake);
    });
  }

  /**
   * A way to try the place while it is lost (open a connection and close it): resolving means it
   * answers. The returned function takes it back (the pool it uses is closing).
   */
  addProbe(probe: () => Promise<void>): () => void {
    this.#probes.add(probe);
    if (this.#lost) this.#scheduleProbe();
    return () => {
      this.#probes.delete(probe);
      // A place no longer used and with nothing to tell is forgotten (buckets come and go).
      if (this.#probes.size === 0 && !this.#lost && !this.#full && !this.#reserve && places.get(this.key) === this) places.delete(this.key);
    };
  }

  /**
   * Keeps `RESERVE_BYTES` in `file` on this file system while it has room, given back when a
   * write finds it full (see RESERVE_BYTES). Made now when missing (not while full).
   */
  keepReserve(file: string): void {
    this.#reserve = file;
    if (!this.#full) makeReserve(file);
  }

  /**
   * A write found no room: told once; the reserve is given back, and the place counts as full
   * until `ROOM_BYTES` are free on a file system (something was deleted), or, for a database
   * server's disk, until a minute passes with no write refused. Writes that would only fill it
   * again are refused meanwhile (`isFull`), deletes are not.
   */
  full(reason: string): void {
    const now = Date.now();
    if (this.#full) {
      this.#full.last = now;
      return;
    }
    this.#full = { since: now, last: now, reason };
    if (this.#reserve) giveBack(this.#reserve);
    tell({ place: this.place, state: 'full', reason });
    this.#roomCheck = setInterval(() => void this.isFull, ROOM_CHECK_INTERVAL_MS);
    this.#roomCheck.unref();
  }

  /** Whether the place is full now (looked at again on each ask while it is). */
  get isFull(): boolean {
    if (this.#full && !this.#stillFull()) this.#room();
    return this.#full !== null;
  }

  /** Why the place is full, while it is. */
  get fullReason(): string | undefined {
    return this.#full?.reason;
  }

  problems(): HealthProblem[] {
    const problems: HealthProblem[] = [];
    if (this.#lost) problems.push({ place: this.place, kind: 'unavailable', reason: this.#lost.reason, since: new Date(this.#lost.since) });
    if (this.isFull) problems.push({ place: this.place, kind: 'full', reason: this.#full!.reason, since: new Date(this.#full!.since) });
    return problems;
  }

  #stillFull(): boolean {
    const free = measure(this.freeBytes);
    if (free !== undefined) return free < ROOM_BYTES;
    return Date.now() - this.#full!.last < FULL_MEMORY_MS;
  }

  #room(): void {
    const full = this.#full!;
    this.#full = null;
    if (this.#roomCheck) clearInterval(this.#roomCheck);
    this.#roomCheck = null;
    if (this.#reserve) makeReserve(this.#reserve);
    tell({ place: this.place, state: 'room', fullMs: Date.now() - full.since });
  }

  #scheduleProbe(): void {
    if (this.#probing || this.#probes.size === 0) return;
    this.#probing = setTimeout(() => void this.#probe(), PROBE_INTERVAL_MS);
    // A probe never keeps a process alive that has nothing else to do.
    this.#probing.unref();
  }

  async #probe(): Promise<void> {
    this.#probing = null;
    const [probe] = this.#probes;
    if (!probe || !this.#lost) return;
    try {
      await probe();
    } catch {
      if (this.#lost) this.#scheduleProbe();
      return;
    }
    this.found();
  }

  #stopProbing(): void {
    if (this.#probing) clearTimeout(this.#probing);
    this.#probing = null;
  }
}

/** Writes the reserve file when it is missing or short; a file system too full for it is left as it is. */
function makeReserve(file: string): void {
  try {
    if (statSync(file, { throwIfNoEntry: false })?.size === RESERVE_BYTES) return;
    writeFileSync(file, Buffer.alloc(RESERVE_BYTES), { flush: true });
  } catch {
    giveBack(file);
  }
}

function giveBack(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already (another process of the same data directory gave it back first).
  }
}
