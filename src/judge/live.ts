/**
 * The deployments the edge judges live traffic against, kept in memory and refreshed when the
 * store says something changed. The store's change marker (a digest of every ruleset version, WAF
 * state and log push job setting) is polled every `pollIntervalMs`; when it moves, every zone
 * already read is read again and swapped in whole, so a change made through the API (by this
 * process or any other sharing the database) applies from the next request, within a poll and a
 * read, without a restart. A zone is read on its first request; meanwhile requests wait for it.
 */
import type { Store } from '../store';
import { RulesetCompiler } from './compiled';
import { type ZoneDeployment, readDeployment } from './deployment';

/** How often the change marker is read: a change applies within this and the time to read a zone. */
export const DEFAULT_POLL_INTERVAL_MS = 250;

export interface LiveDeploymentsOptions {
  pollIntervalMs?: number;
  /** Told when a refresh failed (the store was out of reach); the deployments read before stay. */
  onRefreshError?: (error: unknown) => void;
}

export class LiveDeployments {
  readonly #store: Store;
  readonly #compiler = new RulesetCompiler();
  /** Zones read so far (null: the store holds no such zone), or being read. */
  readonly #zones = new Map<string, ZoneDeployment | null | Promise<ZoneDeployment | null>>();
  readonly #pollIntervalMs: number;
  readonly #onRefreshError: (error: unknown) => void;
  #marker: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;
  #closed = false;

  constructor(store: Store, options: LiveDeploymentsOptions = {}) {
    this.#store = store;
    this.#pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.#onRefreshError = options.onRefreshError ?? (() => {});
  }

  /** Reads the change marker once, then polls it; resolves once the first read is done. */
  async start(): Promise<void> {
    this.#marker = await this.#store.changeMarker();
    this.#schedule();
  }

  /**
   * The zone's deployment: at once when read already (the common case, no promise), else a
   * promise of it; null when the store holds no such zone.
   */
  get(zoneId: string): ZoneDeployment | null | Promise<ZoneDeployment | null> {
    const known = this.#zones.get(zoneId);
    if (known !== undefined) return known;
    const reading = this.#read(zoneId);
    this.#zones.set(zoneId, reading);
    return reading;
  }

  /** Checks the marker now (as the poll does) and waits for the refresh it leads to. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#check().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#refreshing;
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.refresh().then(
        () => this.#schedule(),
        (error: unknown) => {
          this.#onRefreshError(error);
          this.#schedule();
        },
      );
    }, this.#pollIntervalMs);
    // Polling never keeps a process alive on its own.
    this.#timer.unref();
  }

  async #check(): Promise<void> {
    const marker = await this.#store.changeMarker();
    if (marker === this.#marker) return;
    const zones = [...this.#zones.keys()];
    // Read under the new marker: a change committed after it was read moves it again, and is read on the next poll.
    const fresh = await Promise.all(zones.map((zoneId) => this.#read(zoneId)));
    zones.forEach((zoneId, i) => this.#zones.set(zoneId, fresh[i]!));
    this.#marker = marker;
  }

  async #read(zoneId: string): Promise<ZoneDeployment | null> {
    try {
      const deployment = await readDeployment(this.#store, zoneId, this.#compiler);
      // A refresh may have replaced the promise meanwhile: only settle an entry still waiting for this read.
      if (this.#zones.get(zoneId) instanceof Promise) this.#zones.set(zoneId, deployment);
      return deployment;
    } catch (error) {
      this.#zones.delete(zoneId);
      throw error;
    }
  }
}
