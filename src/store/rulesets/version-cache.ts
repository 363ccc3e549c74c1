import { deepFreeze } from '../codecs';
import { LruMap } from '../../in-place-caches';
import { SeededRows } from '../seeded-rows';
import type { Ruleset } from '../types';

/** How many rulesets to keep a version of; a ruleset of a few hundred rules is tens of kilobytes. */
const CAPACITY = 256;

/**
 * Committed ruleset versions, one per ruleset: the newest seen. A version's content never changes
 * once committed (every write claims a new version), so a read that found the current version in
 * the database may answer from here: nothing stale can be served, from any process. It is filled
 * by reads of committed data (including a write transaction's reads of rulesets it has not
 * written), and by a write transaction's own versions once it has committed; never before, since
 * an uncommitted version may still change or roll back. Entries are frozen: callers copy before
 * they change anything.
 *
 * Why one version per ruleset: reads look a ruleset up by the version its row has now, so a
 * version another has superseded is never asked for again (a read that saw it just before the
 * write reads it from the database). Kept by version, every write's ruleset stayed until 256 later
 * writes pushed it out, long enough for V8 to move it to the old generation, where only a full
 * collection frees it: under a burst of writes, 0.7 KB a write. Replaced, it dies young.
 */
export class VersionCache {
  readonly #entries = new LruMap<string, Ruleset>(CAPACITY);

  get(id: string, version: number | string): Ruleset | undefined {
    const kept = this.#entries.peek(id);
    if (kept === undefined || String(kept.version) !== String(version)) return undefined;
    return this.#entries.get(id);
  }

  /** Freezes the version and keeps it, unless a newer version of the ruleset is kept already. */
  set(ruleset: Ruleset): Ruleset {
    const frozen = deepFreeze(ruleset);
    const kept = this.#entries.peek(ruleset.id);
    if (kept === undefined || Number(kept.version) <= Number(ruleset.version)) this.#entries.set(ruleset.id, frozen);
    return frozen;
  }
}

/** What one store keeps in memory of rulesets, shared by all its reads and transactions. */
export class RulesetCaches {
  readonly versions = new VersionCache();
  /** Platform-managed rulesets (no account, no zone) at their only version: only seeding writes them. */
  readonly platform = new SeededRows<Ruleset>();
}
