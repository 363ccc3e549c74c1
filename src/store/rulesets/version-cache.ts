import { deepFreeze } from '../codecs';
import { SeededRows } from '../seeded-rows';
import type { Ruleset } from '../types';

/** How many ruleset versions to keep; a ruleset of a few hundred rules is tens of kilobytes. */
const CAPACITY = 256;

/**
 * Committed ruleset versions, by id and version. A version's content never changes once
 * committed (every write claims a new version), so a read that found the current version in the
 * database may answer from here: nothing stale can be served, from any process. It is filled by
 * reads of committed data (including a write transaction's reads of rulesets it has not written),
 * and by a write transaction's own versions once it has committed; never before, since an
 * uncommitted version may still change or roll back. Entries are frozen: callers copy before they
 * change anything.
 */
export class VersionCache {
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

/** What one store keeps in memory of rulesets, shared by all its reads and transactions. */
export class RulesetCaches {
  readonly versions = new VersionCache();
  /** Platform-managed rulesets (no account, no zone) at their only version: only seeding writes them. */
  readonly platform = new SeededRows<Ruleset>();
}
