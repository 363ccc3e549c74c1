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
