import { sql, type Kysely } from 'kysely';
import { compileOnce, firstRow, type Param, type Params } from '../query/compile-once';
import { NotFoundError } from '../errors';
import type { Database } from '../schema/tables';
import type { Ruleset, RulesetScope } from '../types';
import { toRule, toSummary, type RuleRow, type RulesetRow, type StoredRule } from './rows';

export type Queryable = Kysely<Database>;

/*
 * The statements every ruleset read or rule write runs, compiled once (see query/compile-once.ts), and
 * the row finders built on them. The entry point's kind is a literal, not a parameter: only then
 * can the planner use the partial unique index on entry points (WHERE kind = 'zone' / 'root'), a
 * third of the cost of that read.
 */

export const rulesetById = compileOnce((db, id: Param<string>) => db.selectFrom('rulesets').selectAll().where('id', '=', id));

/** The entry point of a phase at either level (a zone's kind `zone`, an account's kind `root`). */
function entryPointQuery(db: Queryable, kind: 'zone' | 'root', ownerId: Param<string>, phase: Param<string>) {
  return db
    .selectFrom('rulesets')
    .where('kind', '=', sql.lit(kind))
    .where('phase', '=', phase)
    .where(kind === 'zone' ? 'zone_id' : 'account_id', '=', ownerId);
}
const entryPointOf = {
  zone: compileOnce((db, zoneId: Param<string>, phase: Param<string>) => entryPointQuery(db, 'zone', zoneId, phase).selectAll()),
  root: compileOnce((db, accountId: Param<string>, phase: Param<string>) => entryPointQuery(db, 'root', accountId, phase).selectAll()),
};

/** What a committed read needs to find a cached version: the row's identity, owner and version only. */
export const versionById = compileOnce((db, id: Param<string>) => db.selectFrom('rulesets').select(['id', 'version', 'zone_id', 'account_id']).where('id', '=', id));
export const entryPointVersionOf = {
  zone: compileOnce((db, zoneId: Param<string>, phase: Param<string>) => entryPointQuery(db, 'zone', zoneId, phase).select(['id', 'version'])),
  root: compileOnce((db, accountId: Param<string>, phase: Param<string>) => entryPointQuery(db, 'root', accountId, phase).select(['id', 'version'])),
};

const rulesOf = compileOnce((db, rulesetId: Param<string>) => db.selectFrom('rules').selectAll().where('ruleset_id', '=', rulesetId).orderBy('position'));
export const ruleById = compileOnce((db, rulesetId: Param<string>, ruleId: Param<string>) =>
  db.selectFrom('rules').selectAll().where('ruleset_id', '=', rulesetId).where('id', '=', ruleId),
);
export const updateRuleRow = compileOnce((db, rule: Params<StoredRule>) =>
  db
    .updateTable('rules')
    .set({
      action: rule.action,
      action_parameters: rule.action_parameters,
      expression: rule.expression,
      description: rule.description,
      ref: rule.ref,
      enabled: rule.enabled,
      categories: rule.categories,
      score: rule.score,
      score_threshold: rule.score_threshold,
      logging: rule.logging,
      version: rule.version,
      last_updated: rule.last_updated,
    })
    .where('ruleset_id', '=', rule.ruleset_id)
    .where('id', '=', rule.id),
);
export const insertVersion = compileOnce((db, rulesetId: Param<string>, version: Param<number>, lastUpdated: Param<string>, snapshot: Param<string>) =>
  db.insertInto('ruleset_versions').values({ ruleset_id: rulesetId, version, last_updated: lastUpdated, snapshot }),
);
/** The version compare-and-set of a claim. */
export const bumpVersion = compileOnce((db, id: Param<string>, current: Param<number>, next: Param<number>, now: Param<string>) =>
  db.updateTable('rulesets').set({ version: next, last_updated: now }).where('id', '=', id).where('version', '=', current),
);

export async function ruleRows(db: Queryable, rulesetId: string): Promise<RuleRow[]> {
  return (await rulesOf(db, rulesetId)).rows;
}

/** The ruleset of a row, with its rules as they are now. */
export async function loadRuleset(db: Queryable, row: RulesetRow): Promise<Ruleset> {
  const rules = await ruleRows(db, row.id);
  return { ...toSummary(row), rules: rules.map(toRule) };
}

/** Kind of the per-phase entry point ruleset at each level. */
export function entryPointKind(scope: RulesetScope): 'zone' | 'root' {
  return 'zone_id' in scope ? 'zone' : 'root';
}

export function isPlatformOwned(row: Pick<RulesetRow, 'zone_id' | 'account_id'>): boolean {
  return row.account_id === null && row.zone_id === null;
}

/** Whether the scope may read the ruleset: its own, or (from an account) a platform-managed one. */
export function isVisible(row: Pick<RulesetRow, 'zone_id' | 'account_id'>, scope: RulesetScope): boolean {
  if ('zone_id' in scope) {
    return row.zone_id === scope.zone_id;
  }
  return row.account_id === scope.account_id || isPlatformOwned(row);
}

/** A ruleset the scope may read (see isVisible). */
export async function visibleRow(db: Queryable, scope: RulesetScope, id: string): Promise<RulesetRow | undefined> {
  const row = await firstRow(rulesetById(db, id));
  return row !== undefined && isVisible(row, scope) ? row : undefined;
}

export async function entryPointRow(db: Queryable, scope: RulesetScope, phase: string): Promise<RulesetRow | undefined> {
  return firstRow('zone_id' in scope ? entryPointOf.zone(db, scope.zone_id, phase) : entryPointOf.root(db, scope.account_id, phase));
}

/** The ruleset's row as it is now, which this transaction knows exists. */
export async function currentRow(db: Queryable, id: string): Promise<RulesetRow> {
  const row = await firstRow(rulesetById(db, id));
  if (row === undefined) throw new NotFoundError('ruleset', id);
  return row;
}
