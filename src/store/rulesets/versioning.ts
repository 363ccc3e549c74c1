import { deepFreeze, frozenJson } from '../codecs';
import { ConcurrentWriteError, VersionMismatchError } from '../errors';
import { firstRow } from '../query/compile-once';
import type { RulesetWriteOptions } from '../store';
import type { WriteContext } from '../transaction/context';
import type { Ruleset } from '../types';
import type { RulesetRow } from './rows';
import { bumpVersion, insertVersion, loadRuleset, rulesetById } from './statements';
import type { RulesetCaches } from './version-cache';

/*
 * Ruleset versioning inside one write transaction. Every write moves a ruleset to its next
 * version exactly once, however many writes of the transaction touch it (the claim, a
 * compare-and-set on the version the transaction read), and keeps that version's snapshot at
 * commit. Once committed, the versions written fill the store's version cache.
 */

/** What one write transaction read, claimed and wrote of rulesets. */
export class RulesetClaims {
  /** Versions read: the compare-and-set basis of a later claim. */
  readonly #seen = new Map<string, number>();
  /** Versions this transaction moved rulesets to. */
  readonly #claimed = new Map<string, number>();
  /** Rulesets as this transaction last wrote and read them back (see remember). */
  readonly #written = new Map<string, Ruleset>();

  /** Records a ruleset row read: its version is a later write's compare-and-set basis. */
  noteRow(row: RulesetRow): void {
    if (!this.#seen.has(row.id)) {
      this.#seen.set(row.id, row.version);
    }
  }

  /** Whether this transaction wrote the ruleset (what it reads of it is then not committed). */
  wrote(id: string): boolean {
    return this.#claimed.has(id);
  }

  /** The version this transaction moved the ruleset to, if it wrote it. */
  claimedVersion(id: string): number | undefined {
    return this.#claimed.get(id);
  }

  /**
   * Moves a ruleset to its next version, once per transaction however many writes touch it.
   * `current` is the version just read inside this transaction. If the transaction read the
   * ruleset earlier at another version, or another writer bumps it first, the transaction is
   * stale and is run again. Returns true the first time.
   */
  async claim(ctx: WriteContext, id: string, current: number): Promise<boolean> {
    if (this.#claimed.has(id)) {
      return false;
    }
    const basis = this.#seen.get(id) ?? current;
    if (basis !== current) {
      throw new ConcurrentWriteError(`ruleset ${id} changed from version ${basis} to ${current} during the write`);
    }
    const result = await bumpVersion(ctx.db, id, current, current + 1, ctx.now);
    if (result.numAffectedRows !== 1n) {
      throw new ConcurrentWriteError(`ruleset ${id} moved past version ${current} during the write`);
    }
    this.#claimed.set(id, current + 1);
    this.#seen.set(id, current + 1);
    return true;
  }

  /** A ruleset this transaction created is at its first version: later writes must not bump it. */
  claimCreated(id: string): void {
    this.#claimed.set(id, 1);
    this.#seen.set(id, 1);
  }

  /**
   * The ruleset as a write just read it back. Valid until the next write to that ruleset, which
   * must call forget first; the version snapshot at commit then needs no second read.
   */
  remember(ruleset: Ruleset): Ruleset {
    // Frozen: the caller gets the very object the snapshot will be written from.
    this.#written.set(ruleset.id, deepFreeze(ruleset));
    return ruleset;
  }

  forget(id: string): void {
    this.#written.delete(id);
  }

  written(id: string): Ruleset | undefined {
    return this.#written.get(id);
  }

  allWritten(): Iterable<Ruleset> {
    return this.#written.values();
  }
}

const claimsByTransaction = new WeakMap<WriteContext, RulesetClaims>();

/** The ruleset claims of a write transaction, made at its first ruleset read or write. */
export function claimsOf(ctx: WriteContext, caches: RulesetCaches): RulesetClaims {
  let claims = claimsByTransaction.get(ctx);
  if (claims === undefined) {
    const made = new RulesetClaims();
    claims = made;
    claimsByTransaction.set(ctx, made);
    // Committed now: the versions this transaction wrote serve the next reads from the cache.
    ctx.afterCommit(() => {
      for (const ruleset of made.allWritten()) caches.versions.set(ruleset);
    });
  }
  return claims;
}

/** Checks the caller's expected version, then moves the ruleset to its next version once. */
export async function claim(ctx: WriteContext, claims: RulesetClaims, row: RulesetRow, options: RulesetWriteOptions | undefined): Promise<void> {
  const expected = options?.expected_version;
  if (expected !== undefined && expected !== String(row.version)) {
    throw new VersionMismatchError(row.id, expected, String(row.version));
  }
  if (await claims.claim(ctx, row.id, row.version)) {
    snapshotAtCommit(ctx, claims, row.id);
  }
}

/**
 * Keeps every version: the ruleset as it stands when the transaction commits (as the last write
 * read it back, when nothing wrote to it since).
 */
export function snapshotAtCommit(ctx: WriteContext, claims: RulesetClaims, id: string): void {
  ctx.beforeCommit(async () => {
    let ruleset = claims.written(id);
    if (ruleset === undefined) {
      const row = await firstRow(rulesetById(ctx.db, id));
      // Deleted later in the same transaction: there is no version to keep.
      if (row === undefined) return;
      ruleset = await loadRuleset(ctx.db, row);
    }
    await insertVersion(ctx.db, id, Number(ruleset.version), ruleset.last_updated, frozenJson(ruleset));
  });
}
