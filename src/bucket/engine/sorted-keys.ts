import { compareKeys } from '../shared';

/**
 * Keys in listing order for an in-memory store. New keys wait in a pending list and are merged
 * in when a scan needs order, so a burst of writes costs one sort rather than one insertion each;
 * deleted keys are dropped at the same time.
 */
export class SortedKeys {
  #sorted: string[] = [];
  #pending: string[] = [];

  constructor(private readonly isLive: (key: string) => boolean) {}

  /** Records a key that was not live before. */
  add(key: string): void {
    this.#pending.push(key);
  }

  /** Live keys at or after `from` that start with `prefix` (`from` is never before `prefix`). */
  *scan(from: string, prefix: string): Generator<string> {
    this.#merge();
    const sorted = this.#sorted;
    for (let i = this.#lowerBound(from); i < sorted.length; i++) {
      const key = sorted[i]!;
      if (!key.startsWith(prefix)) return;
      if (this.isLive(key)) yield key;
    }
  }

  #lowerBound(key: string): number {
    let low = 0;
    let high = this.#sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareKeys(this.#sorted[mid]!, key) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  #merge(): void {
    if (this.#pending.length === 0) return;
    const pending = this.#pending.sort(compareKeys);
    const sorted = this.#sorted;
    const merged: string[] = [];
    let i = 0;
    let j = 0;
    while (i < sorted.length || j < pending.length) {
      const takeSorted = j >= pending.length || (i < sorted.length && compareKeys(sorted[i]!, pending[j]!) <= 0);
      const key = takeSorted ? sorted[i++]! : pending[j++]!;
      if (this.isLive(key) && merged[merged.length - 1] !== key) merged.push(key);
    }
    this.#sorted = merged;
    this.#pending = [];
  }
}
