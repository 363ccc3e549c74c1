/**
 * A map of at most `capacity` entries that drops the least recently used ones, written so that V8
 * can free what it drops while it is young (the caches on the hot paths: ruleset versions, the
 * validator's verdicts).
 *
 * Why not a Map kept in recency order (delete, then set, on every use): that makes the Map rebuild
 * its table every few uses, and a discarded table, until a full collection, still holds what it
 * held and points to its successor, so V8's young collections count the new tables and their
 * contents as alive and move them to the old generation, where only a full collection frees them.
 * Under the server bench's load that grew the old generation by megabytes a second. Here an entry
 * is created once per key and changed in place, recency is a count, and the least recently used
 * quarter goes at once when the map is full, so the table changes only then.
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, { value: V; used: number }>();
  #uses = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a whole number of at least 1, got ${capacity}`);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.#uses;
    return entry.value;
  }

  /** The value, its recency unchanged. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  set(key: K, value: V): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      entry.value = value;
      entry.used = ++this.#uses;
      return;
    }
    if (this.#entries.size >= this.capacity) this.#dropLeastRecentlyUsed(Math.max(1, Math.floor(this.capacity / 4)));
    this.#entries.set(key, { value, used: ++this.#uses });
  }

  #dropLeastRecentlyUsed(count: number): void {
    const oldest = [...this.#entries].sort(([, a], [, b]) => a.used - b.used).slice(0, count);
    for (const [key] of oldest) this.#entries.delete(key);
  }
}
