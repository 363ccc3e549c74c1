import type { Insertable } from 'kysely';
import { inBatches } from '../codecs';
import { firstRow } from '../query/compile-once';
import { ConcurrentWriteError, EntryPointExistsError, InvalidInputError, NotFoundError, ReadOnlyRulesetError, RuleChangedError, RuleLimitError } from '../errors';
import { newId } from '../ids';
import type { RulesTable } from '../schema/tables';
import type { RuleAddOptions, RuleUpdateOptions, RulesetWriteOptions } from '../store';
import type { WriteContext } from '../transaction/context';
import type { RuleInput, RulePatch, RulePosition, Ruleset, RulesetInput, RulesetScope, RulesetUpdate } from '../types';
import { rulesetLock } from '../write-locks';
import { placeRule } from './rule-order';
import { applyPatch, fieldColumns, fieldsFromInput, fieldsOf, sameFields, storedRuleIn, toRule, toSummary, type RuleRow, type RulesetRow, type StoredRule } from './rows';
import { currentRow, entryPointKind, entryPointRow, isPlatformOwned, isVisible, loadRuleset, ruleById, ruleRows, rulesetById, updateRuleRow, type Queryable } from './statements';
import type { RulesetCaches } from './version-cache';
import { claim, claimsOf, snapshotAtCommit } from './versioning';

/**
 * A ruleset the scope may write, found once per write: its row, read under the ruleset's lock. A
 * platform-managed one is refused as such from any scope, not hidden.
 */
async function writableRow(ctx: WriteContext, scope: RulesetScope, id: string): Promise<RulesetRow> {
  await ctx.lock(rulesetLock(id));
  const row = await firstRow(rulesetById(ctx.db, id));
  if (row !== undefined && isPlatformOwned(row)) {
    throw new ReadOnlyRulesetError(id);
  }
  if (row === undefined || !isVisible(row, scope)) {
    throw new NotFoundError('ruleset', id);
  }
  return row;
}

/**
 * The one writability check of a write: the row of the ruleset the scope may write, and the
 * ruleset as it stands when at hand without a read.
 */
export async function writableRuleset(
  ctx: WriteContext,
  caches: RulesetCaches,
  scope: RulesetScope,
  id: string,
): Promise<{ row: RulesetRow; current: Ruleset | undefined }> {
  const row = await writableRow(ctx, scope, id);
  return { row, current: rulesetAsRead(ctx, caches, row) };
}

/**
 * The ruleset at the row's version as this transaction knows it without a read: as it last
 * wrote it, or (not written yet) the committed version from the version cache, which the row
 * read under the ruleset's lock names. Undefined when neither is at hand.
 */
function rulesetAsRead(ctx: WriteContext, caches: RulesetCaches, row: RulesetRow): Ruleset | undefined {
  const claims = claimsOf(ctx, caches);
  return claims.wrote(row.id) ? claims.written(row.id) : caches.versions.get(row.id, row.version);
}

export async function createRuleset(ctx: WriteContext, caches: RulesetCaches, scope: RulesetScope, input: RulesetInput): Promise<Ruleset> {
  await requireOwner(ctx.db, scope);
  const isEntryPoint = input.kind === entryPointKind(scope);
  if (isEntryPoint && (await entryPointRow(ctx.db, scope, input.phase)) !== undefined) {
    throw new EntryPointExistsError('zone_id' in scope ? scope.zone_id : scope.account_id, input.phase, entryPointKind(scope));
  }
  const id = newId();
  try {
    await ctx.db
      .insertInto('rulesets')
      .values({
        id,
        account_id: 'account_id' in scope ? scope.account_id : null,
        zone_id: 'zone_id' in scope ? scope.zone_id : null,
        name: input.name,
        description: input.description ?? '',
        kind: input.kind,
        phase: input.phase,
        source: null,
        version: 1,
        last_updated: ctx.now,
      })
      .execute();
  } catch (error) {
    // Another process created the same entry point after our check; running again reports it.
    if (isEntryPoint && ctx.engine.isUniqueViolation(error)) {
      throw new ConcurrentWriteError(`entry point for phase ${input.phase} created concurrently`, { cause: error });
    }
    throw error;
  }
  const claims = claimsOf(ctx, caches);
  claims.claimCreated(id);
  snapshotAtCommit(ctx, claims, id);
  await writeRules(ctx, id, input.rules ?? [], new Map());
  return claims.remember(await loadRuleset(ctx.db, await currentRow(ctx.db, id)));
}

async function requireOwner(db: Queryable, scope: RulesetScope): Promise<void> {
  const found =
    'zone_id' in scope
      ? await db.selectFrom('zones').select('id').where('id', '=', scope.zone_id).executeTakeFirst()
      : await db.selectFrom('accounts').select('id').where('id', '=', scope.account_id).executeTakeFirst();
  if (found === undefined) {
    throw 'zone_id' in scope ? new NotFoundError('zone', scope.zone_id) : new NotFoundError('account', scope.account_id);
  }
}

/** Replaces all rules (and the name and description sent) of the ruleset of `row`. */
export async function updateRuleset(
  ctx: WriteContext,
  caches: RulesetCaches,
  row: RulesetRow,
  update: RulesetUpdate,
  options: RulesetWriteOptions | undefined,
): Promise<Ruleset> {
  const claims = claimsOf(ctx, caches);
  claims.forget(row.id);
  await claim(ctx, claims, row, options);
  if (update.name !== undefined || update.description !== undefined) {
    await ctx.db
      .updateTable('rulesets')
      .set({ name: update.name ?? row.name, description: update.description ?? row.description })
      .where('id', '=', row.id)
      .execute();
  }
  const existing = await ctx.db.selectFrom('rules').selectAll().where('ruleset_id', '=', row.id).execute();
  await ctx.db.deleteFrom('rules').where('ruleset_id', '=', row.id).execute();
  await writeRules(ctx, row.id, update.rules, new Map(existing.map((rule) => [rule.id, rule])));
  return claims.remember(await loadRuleset(ctx.db, await currentRow(ctx.db, row.id)));
}

/** Changes the fields patched of one rule (and moves it, with a position); answers the whole ruleset. */
export async function updateRule(
  ctx: WriteContext,
  caches: RulesetCaches,
  scope: RulesetScope,
  rulesetId: string,
  ruleId: string,
  patch: RulePatch,
  options: RuleUpdateOptions | undefined,
): Promise<Ruleset> {
  const { row, current: base } = await writableRuleset(ctx, caches, scope, rulesetId);
  const ruleRow = base !== undefined ? storedRuleIn(base, ruleId) : await firstRow(ruleById(ctx.db, rulesetId, ruleId));
  if (ruleRow === undefined) {
    throw new NotFoundError('rule', ruleId);
  }
  const expected = options?.expected_rule_version;
  if (expected !== undefined && expected !== String(ruleRow.version)) {
    throw new RuleChangedError(rulesetId, ruleId, expected, String(ruleRow.version));
  }
  const claims = claimsOf(ctx, caches);
  claims.forget(rulesetId);
  await claim(ctx, claims, row, options);
  const before = fieldsOf(ruleRow);
  const after = applyPatch(before, patch);
  let stored: StoredRule = ruleRow;
  if (!sameFields(before, after)) {
    stored = { ...ruleRow, ...fieldColumns(after), version: ruleRow.version + 1, last_updated: ctx.now };
    await updateRuleRow(ctx.db, stored);
  }
  if (options?.position !== undefined || base === undefined) {
    if (options?.position !== undefined) await moveRule(ctx, rulesetId, ruleId, options.position);
    return claims.remember(await loadRuleset(ctx.db, await currentRow(ctx.db, rulesetId)));
  }
  // Nothing else of the ruleset changed: the answer is the version read plus this rule, as a
  // read back would give it (same row decoding), without reading every rule again.
  const summary = toSummary({ ...row, version: claims.claimedVersion(rulesetId)!, last_updated: ctx.now });
  const changed = toRule(stored);
  return claims.remember({ ...summary, rules: base.rules.map((rule) => (rule.id === ruleId ? changed : rule)) });
}

/** Adds one rule (a new id, version 1); answers the whole ruleset. */
export async function addRule(
  ctx: WriteContext,
  caches: RulesetCaches,
  scope: RulesetScope,
  rulesetId: string,
  input: RuleInput,
  options: RuleAddOptions | undefined,
): Promise<Ruleset> {
  const { row } = await writableRuleset(ctx, caches, scope, rulesetId);
  const claims = claimsOf(ctx, caches);
  claims.forget(rulesetId);
  await claim(ctx, claims, row, options);
  const id = newId();
  const { id: _ignored, ...rule } = input;
  const added = { ruleset_id: rulesetId, id, position: 0, version: 1, last_updated: ctx.now, ...fieldColumns(fieldsFromInput(rule, id)) };
  const rules = await ruleRows(ctx.db, rulesetId);
  if (options?.max_rules !== undefined && rules.length + 1 > options.max_rules) {
    throw new RuleLimitError(rulesetId, row.phase, options.max_rules, rules.length + 1);
  }
  const order = placeRule(
    rules.map((r) => r.id),
    id,
    options?.position ?? { after: '' },
    rulesetId,
  );
  await rewriteRules(ctx, rulesetId, [...rules, added], order);
  return claims.remember(await loadRuleset(ctx.db, await currentRow(ctx.db, rulesetId)));
}

/** Removes one rule; answers the whole ruleset. */
export async function deleteRule(
  ctx: WriteContext,
  caches: RulesetCaches,
  scope: RulesetScope,
  rulesetId: string,
  ruleId: string,
  options: RulesetWriteOptions | undefined,
): Promise<Ruleset> {
  const { row } = await writableRuleset(ctx, caches, scope, rulesetId);
  const claims = claimsOf(ctx, caches);
  claims.forget(rulesetId);
  const deleted = await ctx.db.deleteFrom('rules').where('ruleset_id', '=', rulesetId).where('id', '=', ruleId).executeTakeFirst();
  if (deleted.numDeletedRows === 0n) {
    throw new NotFoundError('rule', ruleId);
  }
  await claim(ctx, claims, row, options);
  return claims.remember(await loadRuleset(ctx.db, await currentRow(ctx.db, rulesetId)));
}

/** Deletes a ruleset with its rules and versions. */
export async function deleteRuleset(ctx: WriteContext, caches: RulesetCaches, scope: RulesetScope, id: string): Promise<void> {
  await writableRuleset(ctx, caches, scope, id);
  claimsOf(ctx, caches).forget(id);
  await ctx.db.deleteFrom('ruleset_versions').where('ruleset_id', '=', id).execute();
  await ctx.db.deleteFrom('rules').where('ruleset_id', '=', id).execute();
  await ctx.db.deleteFrom('rulesets').where('id', '=', id).execute();
}

/** Moves one rule of a ruleset to `position`; the other rules keep their order. */
async function moveRule(ctx: WriteContext, rulesetId: string, ruleId: string, position: RulePosition): Promise<void> {
  const rules = await ruleRows(ctx.db, rulesetId);
  const others = rules.filter((rule) => rule.id !== ruleId).map((rule) => rule.id);
  await rewriteRules(ctx, rulesetId, rules, placeRule(others, ruleId, position, rulesetId));
}

/** Stores `rules` (unchanged but for their position) in the order of `order`. */
async function rewriteRules(
  ctx: WriteContext,
  rulesetId: string,
  rules: readonly Insertable<RulesTable>[],
  order: readonly string[],
): Promise<void> {
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  const rows = order.map((id, position) => ({ ...byId.get(id)!, position }));
  await ctx.db.deleteFrom('rules').where('ruleset_id', '=', rulesetId).execute();
  for (const batch of inBatches(rows)) {
    await ctx.db.insertInto('rules').values(batch).execute();
  }
}

/**
 * Stores `inputs` as the ruleset's rules, in order. An input naming a rule in `previous`
 * keeps that rule's id, and its version and timestamp when nothing changed.
 */
async function writeRules(
  ctx: WriteContext,
  rulesetId: string,
  inputs: readonly RuleInput[],
  previous: ReadonlyMap<string, RuleRow>,
): Promise<void> {
  const taken = new Set<string>();
  const rows: Insertable<RulesTable>[] = inputs.map((input, position) => {
    const kept = input.id !== undefined ? previous.get(input.id) : undefined;
    if (kept !== undefined && taken.has(kept.id)) {
      throw new InvalidInputError(`rule id ${kept.id} appears more than once in rules`);
    }
    const id = kept?.id ?? newId();
    taken.add(id);
    const fields = fieldsFromInput(input, id);
    const unchanged = kept !== undefined && sameFields(fieldsOf(kept), fields);
    return {
      ruleset_id: rulesetId,
      id,
      position,
      version: kept === undefined ? 1 : unchanged ? kept.version : kept.version + 1,
      last_updated: unchanged ? kept.last_updated : ctx.now,
      ...fieldColumns(fields),
    };
  });
  for (const batch of inBatches(rows)) {
    await ctx.db.insertInto('rules').values(batch).execute();
  }
}
