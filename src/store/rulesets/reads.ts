import { ReadOnlyRulesetError } from '../errors';
import { firstRow, type CompiledOnce } from '../query/compile-once';
import type { ReadContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';
import type { Ruleset, RulesetScope } from '../types';
import { rulesetLock } from '../write-locks';
import type { RulesetRow } from './rows';
import { entryPointRow, entryPointVersionOf, isPlatformOwned, isVisible, loadRuleset, rulesetById, versionById, visibleRow, type Queryable } from './statements';
import type { RulesetCaches } from './version-cache';
import { claimsOf } from './versioning';

/** A ruleset's identity and version (and owner where needed), by one compiled statement. */
type VersionRow = Pick<RulesetRow, 'id' | 'version'>;

/**
 * What readRulesetBy reads: the row `findRow` selects in `scope` (the ruleset `id`, when it names
 * one), whose identity and version `query` selects on its own in one statement.
 */
class RulesetLookup<Args extends unknown[], Row extends VersionRow> {
  constructor(
    readonly scope: RulesetScope,
    readonly findRow: (db: Queryable) => Promise<RulesetRow | undefined>,
    readonly query: CompiledOnce<Args, Row>,
    readonly args: Args,
    /** Whether the row found is the scope's to see. */
    readonly visible: (row: Row) => boolean = everyRow,
    readonly id?: string,
  ) {}

  /** The row's cached version, null when there is no such (visible) ruleset, undefined when not cached. */
  cachedIn(caches: RulesetCaches, row: Row | undefined): Ruleset | null | undefined {
    return row === undefined || !this.visible(row) ? null : caches.versions.get(row.id, row.version);
  }
}

const everyRow = () => true;

/** The ruleset `id` if the scope may read it (see isVisible). */
export function visibleRuleset(scope: RulesetScope, id: string) {
  return new RulesetLookup(scope, (db) => visibleRow(db, scope, id), versionById, [id], (row) => isVisible(row, scope), id);
}

/**
 * The ruleset `id` as a write from the scope finds it: a platform-managed one refused as such from
 * any scope (ReadOnlyRulesetError), one the scope cannot see not found.
 */
export function writableRulesetLookup(scope: RulesetScope, id: string) {
  const writable = (row: Pick<RulesetRow, 'zone_id' | 'account_id'>) => {
    if (isPlatformOwned(row)) throw new ReadOnlyRulesetError(id);
    return isVisible(row, scope);
  };
  const findRow = async (db: Queryable) => {
    const row = await firstRow(rulesetById(db, id));
    return row !== undefined && writable(row) ? row : undefined;
  };
  return new RulesetLookup(scope, findRow, versionById, [id], writable, id);
}

/** The scope's entry point of a phase. */
export function entryPoint(scope: RulesetScope, phase: string) {
  return 'zone_id' in scope
    ? new RulesetLookup(scope, (db) => entryPointRow(db, scope, phase), entryPointVersionOf.zone, [scope.zone_id, phase])
    : new RulesetLookup(scope, (db) => entryPointRow(db, scope, phase), entryPointVersionOf.root, [scope.account_id, phase]);
}

/**
 * The ruleset `lookup` names. Outside a transaction only its id and version are read first, in
 * one statement: when that version is in the version cache (the common case) it is the answer,
 * with no transaction at all and no other column decoded. Otherwise row and rules are read
 * together in one transaction.
 */
export async function readRulesetBy<Args extends unknown[], Row extends VersionRow>(
  executor: Executor,
  caches: RulesetCaches,
  lookup: RulesetLookup<Args, Row>,
): Promise<Ruleset | null> {
  const cached = await executor.readStatement(async (ctx) =>
    ctx.writing === null ? lookup.cachedIn(caches, (await lookup.query(ctx.db, ...lookup.args)).rows[0]) : undefined,
  );
  if (cached !== undefined) return cached;
  return executor.read(async (ctx) => readRuleset(ctx, caches, await lockedRow(ctx, lookup.scope, lookup.findRow, lookup.id)));
}

/**
 * The row `find` selects (the ruleset `id` when it names one). In a write transaction the row is
 * read under its ruleset's lock, so a write based on it is not stale. A zone-scoped read never
 * finds a platform-managed ruleset, so the id it names is locked before the read. Otherwise the
 * row found is locked and read again when the lock may have been waited for; if `find` then
 * selects another ruleset (the one found was deleted, another took its place as entry point),
 * that one is locked in turn. A platform-managed ruleset never changes and is never locked, so
 * every zone's rules may reference it at once. Outside a write transaction no lock is taken.
 */
export async function lockedRow(
  ctx: ReadContext,
  scope: RulesetScope,
  find: (db: Queryable) => Promise<RulesetRow | undefined>,
  id?: string,
): Promise<RulesetRow | undefined> {
  if (id !== undefined && 'zone_id' in scope) await ctx.lock(rulesetLock(id));
  let row = await find(ctx.db);
  while (row !== undefined && !isPlatformOwned(row) && (await ctx.lock(rulesetLock(row.id)))) {
    const again = await find(ctx.db);
    if (again?.id === row.id) return again;
    row = again;
  }
  return row;
}

/** A read inside a transaction remembers the version it saw: a later write there compares against it. */
async function readRuleset(ctx: ReadContext, caches: RulesetCaches, row: RulesetRow | undefined): Promise<Ruleset | null> {
  if (row === undefined) {
    return null;
  }
  const claims = ctx.writing === null ? undefined : claimsOf(ctx.writing, caches);
  claims?.noteRow(row);
  // A write transaction that has not written this ruleset reads its committed state (it holds
  // the ruleset's lock, see lockedRow), so the cache serves it too; platform-managed rulesets never
  // change at all.
  const cacheable = claims === undefined || isPlatformOwned(row) || !claims.wrote(row.id);
  const cached = cacheable ? caches.versions.get(row.id, row.version) : undefined;
  if (cached) return cached;
  const ruleset = await loadRuleset(ctx.db, row);
  if (isPlatformOwned(row)) return caches.platform.remember(ruleset);
  return cacheable ? caches.versions.set(ruleset) : ruleset;
}

/** A platform-managed ruleset from memory (the seed wrote its only version), for readNow. */
export function platformRulesetInMemory(_ctx: ReadContext, caches: RulesetCaches, id: string): Ruleset | undefined {
  return caches.platform.get(id);
}
