import type { Ruleset } from './types';

/** How many ruleset versions to keep; a ruleset of a few hundred rules is tens of kilobytes. */
const CAPACITY = 256;

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Committed ruleset versions, by id and version. A version's content never changes once
 * committed (every write claims a new version), so a read that found the current version in the
 * database may answer from here: nothing stale can be served, from any process. It is filled by
 * reads of committed data (including a write transaction's reads of rulesets it has not written),
 * and by a write transaction's own versions once it has committed; never before, since an
 * uncommitted version may still change or roll back. Entries are frozen: callers copy before they
 * change anything.
 */
export class RulesetSnapshots {
  readonly #entries = new Map<string, Ruleset>();

  get(id: string, version: number | string): Ruleset | undefined {
    const key = `${id}@${version}`;
    const found = this.#entries.get(key);
    if (found) {
      // Most recently used last, so the oldest entry is the first to go.
      this.#entries.delete(key);
      this.#entries.set(key, found);
    }
    return found;
  }

  set(ruleset: Ruleset): Ruleset {
    if (this.#entries.size >= CAPACITY) this.#entries.delete(this.#entries.keys().next().value!);
    const frozen = deepFreeze(ruleset);
    this.#entries.set(`${ruleset.id}@${ruleset.version}`, frozen);
    return frozen;
  }
}
