import { deepFreeze } from '../codecs';
import { SeededRows } from '../seeded-rows';
import type { Ruleset } from '../types';

/** How many rulesets to keep a version of; a ruleset of a few hundred rules is tens of kilobytes. */
const CAPACITY = 256;

/** A ruleset's kept version, and when it was last used (by the cache's own count). */
interface Entry {
  ruleset: Ruleset;
  used: number;
}

/**
 * Committed ruleset versions, one per ruleset: the newest seen. A version's content never changes
 * once committed (every write claims a new version), so a read that found the current version in
 * the database may answer from here: nothing stale can be served, from any process. It is filled
 * by reads of committed data (including a write transaction's reads of rulesets it has not
 * written), and by a write transaction's own versions once it has committed; never before, since
 * an uncommitted version may still change or roll back. Entries are frozen: callers copy before
 * they change anything.
 *
 * Why it is shaped so, for memory: reads look a ruleset up by the version its row has now, so a
 * version another has superseded is never asked for again (a read that saw it just before the
 * write reads it from the database). Kept by version, every write's ruleset (and the encodings
 * made of it, see frozenJson) stayed until 256 later writes pushed it out, long enough for V8 to
 * move it to the old generation, where only a full collection frees it. For the same reason an
 * entry is changed in place, and recency is a count rather than the Map's order: moving an entry
 * to the end (delete, then set) made the Map rebuild its table every few writes, and a discarded
 * table, until a full collection, still holds the rulesets it held, so they moved too. Under a
 * burst of writes that was most of what grew the old generation, and the process's memory.
 */
export class VersionCache {
  readonly #entries = new Map<string, Entry>();
  #uses = 0;

  get(id: string, version: number | string): Ruleset | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined || String(entry.ruleset.version) !== String(version)) return undefined;
    entry.used = ++this.#uses;
    return entry.ruleset;
  }

  /** Freezes the version and keeps it, unless a newer version of the ruleset is kept already. */
  set(ruleset: Ruleset): Ruleset {
    const frozen = deepFreeze(ruleset);
    const entry = this.#entries.get(ruleset.id);
    if (entry !== undefined) {
      if (Number(entry.ruleset.version) <= Number(ruleset.version)) {
        entry.ruleset = frozen;
        entry.used = ++this.#uses;
      }
      return frozen;
    }
    if (this.#entries.size >= CAPACITY) this.#evictLeastRecentlyUsed();
    this.#entries.set(ruleset.id, { ruleset: frozen, used: ++this.#uses });
    return frozen;
  }

  /** Drops the entry used longest ago: a scan, made only when a new ruleset comes into a full cache. */
  #evictLeastRecentlyUsed(): void {
    let oldest: string | undefined;
    let oldestUse = Infinity;
    for (const [id, { used }] of this.#entries) {
      if (used < oldestUse) {
        oldest = id;
        oldestUse = used;
      }
    }
    if (oldest !== undefined) this.#entries.delete(oldest);
  }
}

/** What one store keeps in memory of rulesets, shared by all its reads and transactions. */
export class RulesetCaches {
  readonly versions = new VersionCache();
  /** Platform-managed rulesets (no account, no zone) at their only version: only seeding writes them. */
  readonly platform = new SeededRows<Ruleset>();
}
