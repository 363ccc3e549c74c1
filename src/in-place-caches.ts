// Caches for the hot paths, shaped so that what they drop dies in V8's young generation: a Map
// changed in place (LruMap) and a ring of fixed arrays (RecentMemo). Used by the store and by the
// server's ground floor (src/server/http), so they depend on nothing.

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

/**
 * Values computed from objects, kept for the last few objects only (by identity), in arrays of a
 * fixed size that are written in place: the encodings of frozen results (see frozenJson and the
 * server's envelopes).
 *
 * Why not a WeakMap: every write makes a new frozen ruleset version, encoded once, and a WeakMap
 * given a new key per write rebuilds its table every so often. Until a full collection, a table it
 * discarded still holds the encodings it held, and V8's young collections count them as alive, so
 * they all moved to the old generation (2.4 KB a write of the 2.5 KB the server bench's PATCH
 * load moved there): under a burst of writes, that was what grew the process's memory. Here an
 * encoding is dropped when its slot is taken, a few writes later, while it is still young.
 *
 * Which slot: the next one round the ring, skipping (once) the slots read since the hand last
 * passed them, so an object asked for again and again (a hot ruleset) keeps its value.
 */
export class RecentMemo<V> {
  readonly #keys: (object | undefined)[];
  readonly #values: (V | undefined)[];
  readonly #read: Uint8Array;
  #hand = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a whole number of at least 1, got ${capacity}`);
    this.#keys = new Array<object | undefined>(capacity).fill(undefined);
    this.#values = new Array<V | undefined>(capacity).fill(undefined);
    this.#read = new Uint8Array(capacity);
  }

  get(key: object): V | undefined {
    const index = this.#keys.indexOf(key);
    if (index < 0) return undefined;
    this.#read[index] = 1;
    return this.#values[index];
  }

  set(key: object, value: V): void {
    const known = this.#keys.indexOf(key);
    if (known >= 0) {
      this.#values[known] = value;
      return;
    }
    // At most one full turn: every mark passed is cleared.
    while (this.#read[this.#hand] === 1) {
      this.#read[this.#hand] = 0;
      this.#hand = (this.#hand + 1) % this.capacity;
    }
    this.#keys[this.#hand] = key;
    this.#values[this.#hand] = value;
    this.#hand = (this.#hand + 1) % this.capacity;
  }
}
