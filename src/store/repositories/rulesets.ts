import { sql, type Insertable, type Selectable } from 'kysely';
import { canonicalJson, frozenJson, fromFlag, fromJson, inBatches, toFlag, toJson } from '../codecs';
import {
  ConcurrentWriteError,
  EntryPointExistsError,
  InvalidInputError,
  LatestVersionError,
  NotFoundError,
  ReadOnlyRulesetError,
  VersionMismatchError,
} from '../errors';
import { newId } from '../ids';
import { firstRow, preparedQuery, type PreparedQuery } from '../prepared-query';
import { fetchPage } from '../paged-query';
import { resolvePage, type PageRequest } from '../paging';
import type { RulesTable, RulesetsTable } from '../schema/tables';
import type { Executor, ReadContext, WriteContext } from '../session';
import type { RulesetRepository, RulesetWriteOptions } from '../store';
import { entryPointLock, rulesetLock } from '../write-locks';
import { placeRule } from './rule-order';
import type {
  Rule,
  RuleFields,
  RuleInput,
  RulePatch,
  RulePosition,
  Ruleset,
  RulesetInput,
  RulesetScope,
  RulesetSummary,
  RulesetUpdate,
} from '../types';

type RulesetRow = Selectable<RulesetsTable>;
type RuleRow = Selectable<RulesTable>;
/** A rule's row without its position, which only orders the rules of a ruleset. */
type StoredRule = Omit<RuleRow, 'position'>;
type Queryable = ReadContext['db'];

const RULESET_ORDERS = ['name', 'last_updated', 'version', 'kind', 'phase', 'id'] as const;
const VERSION_PATTERN = /^[1-9][0-9]*$/;
/** Name given to an entry point created by a PUT that names none. */
const DEFAULT_ENTRY_POINT_NAME = 'default';

/*
 * The statements every ruleset read or rule write runs, prepared once (see prepared-query.ts).
 * The entry point's kind is a literal, not a parameter: only then can the planner use the
 * partial unique index on entry points (WHERE kind = 'zone' / 'root'), a third of the cost of
 * that read.
 */
const rulesetById = preparedQuery((db, id: string) => db.selectFrom('rulesets').selectAll().where('id', '=', id));
/** The entry point of a phase at either level (a zone's kind `zone`, an account's kind `root`). */
function entryPointQuery(db: Queryable, kind: 'zone' | 'root', ownerId: string, phase: string) {
  return db
    .selectFrom('rulesets')
    .where('kind', '=', sql.lit(kind))
    .where('phase', '=', phase)
    .where(kind === 'zone' ? 'zone_id' : 'account_id', '=', ownerId);
}
const entryPointOf = {
  zone: preparedQuery((db, zoneId: string, phase: string) => entryPointQuery(db, 'zone', zoneId, phase).selectAll()),
  root: preparedQuery((db, accountId: string, phase: string) => entryPointQuery(db, 'root', accountId, phase).selectAll()),
};
/** What a committed read needs to find a cached version: the row's identity, owner and version only. */
const versionById = preparedQuery((db, id: string) => db.selectFrom('rulesets').select(['id', 'version', 'zone_id', 'account_id']).where('id', '=', id));
const entryPointVersionOf = {
  zone: preparedQuery((db, zoneId: string, phase: string) => entryPointQuery(db, 'zone', zoneId, phase).select(['id', 'version'])),
  root: preparedQuery((db, accountId: string, phase: string) => entryPointQuery(db, 'root', accountId, phase).select(['id', 'version'])),
};
const rulesOf = preparedQuery((db, rulesetId: string) => db.selectFrom('rules').selectAll().where('ruleset_id', '=', rulesetId).orderBy('position'));
const ruleById = preparedQuery((db, rulesetId: string, ruleId: string) =>
  db.selectFrom('rules').selectAll().where('ruleset_id', '=', rulesetId).where('id', '=', ruleId),
);
const updateRuleRow = preparedQuery((db, rule: StoredRule) =>
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
const insertVersion = preparedQuery((db, rulesetId: string, version: number, lastUpdated: string, snapshot: string) =>
  db.insertInto('ruleset_versions').values({ ruleset_id: rulesetId, version, last_updated: lastUpdated, snapshot }),
);

/** Kind of the per-phase entry point ruleset at each level. */
function entryPointKind(scope: RulesetScope): 'zone' | 'root' {
  return 'zone_id' in scope ? 'zone' : 'root';
}

export function rulesetRepository(executor: Executor): RulesetRepository {
  return {
    // No write depends on a list, so a list locks nothing (see write-locks.ts).
    list: (scope, page) => executor.read((ctx) => listRulesets(ctx.db, scope, page)),

    get: async (scope, id) => {
      // A platform-managed ruleset (visible from every account) never changes once seeded.
      if (!('zone_id' in scope)) {
        const platform = executor.readNow(seededPlatformRuleset, id) ?? (await executor.readStatement(async (ctx) => seededPlatformRuleset(ctx, id)));
        if (platform !== undefined) return platform;
      }
      return readRulesetBy(executor, visibleRuleset(scope, id));
    },

    getVersion: (scope, id, version) =>
      executor.read(async (ctx) => {
        if (!isVersionString(version)) {
          return null;
        }
        const row = await lockedRow(ctx, scope, (db) => visibleRow(db, scope, id), id);
        if (row === undefined) {
          return null;
        }
        const snapshot = await ctx.db
          .selectFrom('ruleset_versions')
          .select('snapshot')
          .where('ruleset_id', '=', id)
          .where('version', '=', Number(version))
          .executeTakeFirst();
        return snapshot === undefined ? null : fromJson<Ruleset>(snapshot.snapshot);
      }),

    getEntryPoint: (scope, phase) =>
      readRulesetBy(
        executor,
        'zone_id' in scope
          ? new RulesetLookup(scope, (db) => entryPointRow(db, scope, phase), entryPointVersionOf.zone, [scope.zone_id, phase])
          : new RulesetLookup(scope, (db) => entryPointRow(db, scope, phase), entryPointVersionOf.root, [scope.account_id, phase]),
      ),

    create: (scope, input) =>
      executor.write(async (ctx) => {
        if (input.kind === entryPointKind(scope)) await ctx.lock(entryPointLock(scope, input.phase));
        return createRuleset(ctx, scope, input);
      }),

    update: (scope, id, update, options) =>
      executor.write(async (ctx) => {
        const row = await writableRow(ctx, scope, id);
        return updateRuleset(ctx, row, update, options);
      }),

    putEntryPoint: (scope, phase, update, options) =>
      executor.write(async (ctx) => {
        await ctx.lock(entryPointLock(scope, phase));
        const row = await lockedRow(ctx, scope, (db) => entryPointRow(db, scope, phase));
        if (row !== undefined) {
          return { ruleset: await updateRuleset(ctx, row, update, options), created: false };
        }
        if (options?.expected_version !== undefined) {
          throw new NotFoundError('ruleset', `entry point of phase ${phase}`);
        }
        const ruleset = await createRuleset(ctx, scope, {
          name: update.name ?? DEFAULT_ENTRY_POINT_NAME,
          description: update.description ?? '',
          kind: entryPointKind(scope),
          phase,
          rules: update.rules,
        });
        return { ruleset, created: true };
      }),

    updateRule: (scope, rulesetId, ruleId, patch, options) =>
      executor.write(async (ctx) => {
        const row = await writableRow(ctx, scope, rulesetId);
        const base = rulesetAsRead(ctx, row);
        const ruleRow = base !== undefined ? storedRuleIn(base, ruleId) : await firstRow(ruleById(ctx.db, rulesetId, ruleId));
        if (ruleRow === undefined) {
          throw new NotFoundError('rule', ruleId);
        }
        ctx.forgetRuleset(rulesetId);
        await claim(ctx, row, options);
        const before = fieldsOf(ruleRow);
        const after = applyPatch(before, patch);
        let stored: StoredRule = ruleRow;
        if (!sameFields(before, after)) {
          stored = { ...ruleRow, ...fieldColumns(after), version: ruleRow.version + 1, last_updated: ctx.now };
          await updateRuleRow(ctx.db, stored);
        }
        if (options?.position !== undefined || base === undefined) {
          if (options?.position !== undefined) await moveRule(ctx, rulesetId, ruleId, options.position);
          return ctx.rememberRuleset(await loadRuleset(ctx.db, await currentRow(ctx.db, rulesetId)));
        }
        // Nothing else of the ruleset changed: the answer is the version read plus this rule, as a
        // read back would give it (same row decoding), without reading every rule again.
        const summary = toSummary({ ...row, version: ctx.claimedVersion(rulesetId)!, last_updated: ctx.now });
        const changed = toRule(stored);
        return ctx.rememberRuleset({ ...summary, rules: base.rules.map((rule) => (rule.id === ruleId ? changed : rule)) });
      }),

    addRule: (scope, rulesetId, input, options) =>
      executor.write(async (ctx) => {
        const row = await writableRow(ctx, scope, rulesetId);
        ctx.forgetRuleset(rulesetId);
        await claim(ctx, row, options);
        const id = newId();
        const { id: _ignored, ...rule } = input;
        const added = { ruleset_id: rulesetId, id, position: 0, version: 1, last_updated: ctx.now, ...fieldColumns(fieldsFromInput(rule, id)) };
        const rules = await ruleRows(ctx.db, rulesetId);
        const order = placeRule(
          rules.map((r) => r.id),
          id,
          options?.position ?? { after: '' },
          rulesetId,
        );
        await rewriteRules(ctx, rulesetId, [...rules, added], order);
        return ctx.rememberRuleset(await loadRuleset(ctx.db, await currentRow(ctx.db, rulesetId)));
      }),

    deleteRule: (scope, rulesetId, ruleId, options) =>
      executor.write(async (ctx) => {
        const row = await writableRow(ctx, scope, rulesetId);
        ctx.forgetRuleset(rulesetId);
        const deleted = await ctx.db.deleteFrom('rules').where('ruleset_id', '=', rulesetId).where('id', '=', ruleId).executeTakeFirst();
        if (deleted.numDeletedRows === 0n) {
          throw new NotFoundError('rule', ruleId);
        }
        await claim(ctx, row, options);
        return ctx.rememberRuleset(await loadRuleset(ctx.db, await currentRow(ctx.db, rulesetId)));
      }),

    delete: (scope, id) =>
      executor.write(async (ctx) => {
        await writableRow(ctx, scope, id);
        ctx.forgetRuleset(id);
        await ctx.db.deleteFrom('ruleset_versions').where('ruleset_id', '=', id).execute();
        await ctx.db.deleteFrom('rules').where('ruleset_id', '=', id).execute();
        await ctx.db.deleteFrom('rulesets').where('id', '=', id).execute();
      }),

    listVersions: (scope, id) =>
      executor.read(async (ctx) => {
        if ((await lockedRow(ctx, scope, (db) => visibleRow(db, scope, id), id)) === undefined) {
          return null;
        }
        const rows = await ctx.db
          .selectFrom('ruleset_versions')
          .select('snapshot')
          .where('ruleset_id', '=', id)
          .orderBy('version')
          .execute();
        return rows.map((row) => {
          const { rules: _rules, ...summary } = fromJson<Ruleset>(row.snapshot);
          return summary;
        });
      }),

    deleteVersion: (scope, id, version) =>
      executor.write(async (ctx) => {
        const row = await writableRow(ctx, scope, id);
        if (!isVersionString(version)) {
          throw new NotFoundError('ruleset_version', `${id}@${version}`);
        }
        if (Number(version) === row.version) {
          throw new LatestVersionError(id, version);
        }
        const deleted = await ctx.db
          .deleteFrom('ruleset_versions')
          .where('ruleset_id', '=', id)
          .where('version', '=', Number(version))
          .executeTakeFirst();
        if (deleted.numDeletedRows === 0n) {
          throw new NotFoundError('ruleset_version', `${id}@${version}`);
        }
      }),
  };
}

function isVersionString(version: string): boolean {
  return VERSION_PATTERN.test(version) && Number.isSafeInteger(Number(version));
}

async function ruleRows(db: Queryable, rulesetId: string): Promise<RuleRow[]> {
  return (await rulesOf(db, rulesetId)).rows;
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

/** A ruleset's identity and version (and owner where needed), by one prepared statement. */
type VersionRow = Pick<RulesetRow, 'id' | 'version'>;

/**
 * What readRulesetBy reads: the row `findRow` selects in `scope` (the ruleset `id`, when it names
 * one), whose identity and version `query` selects on its own in one prepared statement.
 */
class RulesetLookup<Args extends unknown[], Row extends VersionRow> {
  constructor(
    readonly scope: RulesetScope,
    readonly findRow: (db: Queryable) => Promise<RulesetRow | undefined>,
    readonly query: PreparedQuery<Args, Row>,
    readonly args: Args,
    /** Whether the row found is the scope's to see. */
    readonly visible: (row: Row) => boolean = everyRow,
    readonly id?: string,
  ) {}

  /** The row's cached version, null when there is no such (visible) ruleset, undefined when not cached. */
  cachedIn(ctx: ReadContext, row: Row | undefined): Ruleset | null | undefined {
    return row === undefined || !this.visible(row) ? null : ctx.snapshots.get(row.id, row.version);
  }
}

const everyRow = () => true;

/** readRulesetBy's answer at once, where the statement can run now and finds a cached version. */
function cachedNow<Args extends unknown[], Row extends VersionRow>(ctx: ReadContext, lookup: RulesetLookup<Args, Row>): Ruleset | null | undefined {
  const found = ctx.committedOnly ? lookup.query.now(ctx.db, ...lookup.args) : undefined;
  return found === undefined ? undefined : lookup.cachedIn(ctx, found.rows[0]);
}

/**
 * The ruleset `lookup` names. Outside a transaction only its id and version are read first, in
 * one statement, run at once where the engine allows: when that version is in the snapshot cache
 * (the common case) it is the answer, with no transaction at all and no other column decoded.
 * Otherwise row and rules are read together in one transaction.
 */
async function readRulesetBy<Args extends unknown[], Row extends VersionRow>(executor: Executor, lookup: RulesetLookup<Args, Row>): Promise<Ruleset | null> {
  const now = executor.readNow(cachedNow<Args, Row>, lookup);
  return now !== undefined ? now : readRulesetLater(executor, lookup);
}

async function readRulesetLater<Args extends unknown[], Row extends VersionRow>(executor: Executor, lookup: RulesetLookup<Args, Row>): Promise<Ruleset | null> {
  const cached = await executor.readStatement(async (ctx) =>
    ctx.committedOnly ? lookup.cachedIn(ctx, (await lookup.query(ctx.db, ...lookup.args)).rows[0]) : undefined,
  );
  if (cached !== undefined) return cached;
  return executor.read(async (ctx) => readRuleset(ctx, await lockedRow(ctx, lookup.scope, lookup.findRow, lookup.id)));
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
async function lockedRow(
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

/**
 * The ruleset at the row's version as this transaction knows it without a read: as it last
 * wrote it, or (not written yet) the committed version from the snapshot cache, which the row
 * read under the ruleset's lock names. Undefined when neither is at hand.
 */
function rulesetAsRead(ctx: WriteContext, row: RulesetRow): Ruleset | undefined {
  return ctx.wroteRuleset(row.id) ? ctx.writtenRuleset(row.id) : ctx.snapshots.get(row.id, row.version);
}

/** A rule's stored columns (its position aside) as ruleById would read them, from a ruleset version at hand. */
function storedRuleIn(ruleset: Ruleset, ruleId: string): StoredRule | undefined {
  const rule = ruleset.rules.find((candidate) => candidate.id === ruleId);
  if (rule === undefined) return undefined;
  const { id, version, last_updated, ...fields } = rule;
  return { ruleset_id: ruleset.id, id, version: Number(version), last_updated, ...fieldColumns(normalizeFields(fields)) };
}

/** A read inside a transaction remembers the version it saw: a later write there compares against it. */
async function readRuleset(ctx: ReadContext, row: RulesetRow | undefined): Promise<Ruleset | null> {
  if (row === undefined) {
    return null;
  }
  ctx.noteRulesetRow(row);
  // A write transaction that has not written this ruleset reads its committed state (it holds
  // the ruleset's lock, see lockedRow), so the cache serves it too; platform-managed rulesets never
  // change at all.
  const cacheable = ctx.committedOnly || isPlatformOwned(row) || !ctx.wroteRuleset(row.id);
  const cached = cacheable ? ctx.snapshots.get(row.id, row.version) : undefined;
  if (cached) return cached;
  const ruleset = await loadRuleset(ctx.db, row);
  if (isPlatformOwned(row)) return ctx.seeded.platformRulesets.remember(ruleset);
  return cacheable ? ctx.snapshots.set(ruleset) : ruleset;
}

async function listRulesets(db: Queryable, scope: RulesetScope, request: PageRequest<string> | undefined) {
  const window = resolvePage(request, RULESET_ORDERS);
  const visible = db.selectFrom('rulesets').where((eb) =>
    'zone_id' in scope
      ? eb('zone_id', '=', scope.zone_id)
      : eb.or([eb('account_id', '=', scope.account_id), eb.and([eb('account_id', 'is', null), eb('zone_id', 'is', null)])]),
  );
  return fetchPage(visible, (q) => q.selectAll(), window, 'rulesets', (rows) => rows.map(toSummary));
}

/** A ruleset the scope may read: its own, or (from an account) a platform-managed one. */
async function visibleRow(db: Queryable, scope: RulesetScope, id: string): Promise<RulesetRow | undefined> {
  const row = await firstRow(rulesetById(db, id));
  return row !== undefined && isVisible(row, scope) ? row : undefined;
}

/** The ruleset `id` if the scope may read it (see visibleRow), for readRulesetBy. */
function visibleRuleset(scope: RulesetScope, id: string) {
  return new RulesetLookup(scope, (db) => visibleRow(db, scope, id), versionById, [id], (row) => isVisible(row, scope), id);
}

function seededPlatformRuleset(ctx: ReadContext, id: string): Ruleset | undefined {
  return ctx.seeded.platformRulesets.get(id);
}

function isVisible(row: Pick<RulesetRow, 'zone_id' | 'account_id'>, scope: RulesetScope): boolean {
  if ('zone_id' in scope) {
    return row.zone_id === scope.zone_id;
  }
  return row.account_id === scope.account_id || isPlatformOwned(row);
}

/** A ruleset the scope may write. A platform-managed one is refused as such from any scope, not hidden. */
async function writableRow(ctx: WriteContext, scope: RulesetScope, id: string): Promise<RulesetRow> {
  await ctx.lock(rulesetLock(id));
  const row = ctx.rulesetRow(id) ?? (await firstRow(rulesetById(ctx.db, id)));
  if (row !== undefined && isPlatformOwned(row)) {
    throw new ReadOnlyRulesetError(id);
  }
  if (row === undefined || !isVisible(row, scope)) {
    throw new NotFoundError('ruleset', id);
  }
  return row;
}

function isPlatformOwned(row: Pick<RulesetRow, 'zone_id' | 'account_id'>): boolean {
  return row.account_id === null && row.zone_id === null;
}

async function entryPointRow(db: Queryable, scope: RulesetScope, phase: string): Promise<RulesetRow | undefined> {
  return firstRow('zone_id' in scope ? entryPointOf.zone(db, scope.zone_id, phase) : entryPointOf.root(db, scope.account_id, phase));
}

async function currentRow(db: Queryable, id: string): Promise<RulesetRow> {
  const row = await firstRow(rulesetById(db, id));
  if (row === undefined) throw new NotFoundError('ruleset', id);
  return row;
}

async function createRuleset(ctx: WriteContext, scope: RulesetScope, input: RulesetInput): Promise<Ruleset> {
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
    if (isEntryPoint && ctx.dialect.isUniqueViolation(error)) {
      throw new ConcurrentWriteError(`entry point for phase ${input.phase} created concurrently`, { cause: error });
    }
    throw error;
  }
  ctx.claimCreatedRuleset(id);
  snapshotAtCommit(ctx, id);
  await writeRules(ctx, id, input.rules ?? [], new Map());
  return ctx.rememberRuleset(await loadRuleset(ctx.db, await currentRow(ctx.db, id)));
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

async function updateRuleset(
  ctx: WriteContext,
  row: RulesetRow,
  update: RulesetUpdate,
  options: RulesetWriteOptions | undefined,
): Promise<Ruleset> {
  ctx.forgetRuleset(row.id);
  await claim(ctx, row, options);
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
  return ctx.rememberRuleset(await loadRuleset(ctx.db, await currentRow(ctx.db, row.id)));
}

/** Checks the caller's expected version, then moves the ruleset to its next version once. */
async function claim(ctx: WriteContext, row: RulesetRow, options: RulesetWriteOptions | undefined): Promise<void> {
  const expected = options?.expected_version;
  if (expected !== undefined && expected !== String(row.version)) {
    throw new VersionMismatchError(row.id, expected, String(row.version));
  }
  if (await ctx.claimRuleset(row.id, row.version)) {
    snapshotAtCommit(ctx, row.id);
  }
}

/**
 * Keeps every version: the ruleset as it stands when the transaction commits (as the last write
 * read it back, when nothing wrote to it since).
 */
function snapshotAtCommit(ctx: WriteContext, id: string): void {
  ctx.beforeCommit(async () => {
    let ruleset = ctx.writtenRuleset(id);
    if (ruleset === undefined) {
      const row = await firstRow(rulesetById(ctx.db, id));
      // Deleted later in the same transaction: there is no version to keep.
      if (row === undefined) return;
      ruleset = await loadRuleset(ctx.db, row);
    }
    await insertVersion(ctx.db, id, Number(ruleset.version), ruleset.last_updated, frozenJson(ruleset));
  });
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

export async function loadRuleset(db: Queryable, row: RulesetRow): Promise<Ruleset> {
  const rules = await ruleRows(db, row.id);
  return { ...toSummary(row), rules: rules.map(toRule) };
}

export function toSummary(row: RulesetRow): RulesetSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    ...(row.source === null ? {} : { source: row.source }),
    kind: row.kind,
    version: String(row.version),
    last_updated: row.last_updated,
    phase: row.phase,
  };
}

export function toRule(row: StoredRule): Rule {
  return { id: row.id, version: String(row.version), ...fieldsOf(row), last_updated: row.last_updated };
}

/** The writer-chosen fields of a stored rule, optional ones only when set. */
function fieldsOf(row: StoredRule): RuleFields {
  return normalizeFields({
    action: row.action,
    action_parameters: row.action_parameters === null ? undefined : fromJson(row.action_parameters),
    expression: row.expression,
    description: row.description,
    ref: row.ref,
    enabled: fromFlag(row.enabled),
    categories: row.categories === null ? undefined : fromJson<string[]>(row.categories),
    score: row.score ?? undefined,
    score_threshold: row.score_threshold ?? undefined,
    logging: row.logging === null ? undefined : fromJson<{ enabled: boolean }>(row.logging),
  });
}

function fieldsFromInput(input: RuleInput, id: string): RuleFields {
  return normalizeFields({
    action: input.action,
    action_parameters: input.action_parameters,
    expression: input.expression,
    description: input.description ?? '',
    ref: input.ref === undefined || input.ref === '' ? id : input.ref,
    enabled: input.enabled ?? true,
    categories: input.categories,
    score: input.score,
    score_threshold: input.score_threshold,
    logging: input.logging,
  });
}

function applyPatch(fields: RuleFields, patch: RulePatch): RuleFields {
  const merged: Record<string, unknown> = { ...fields };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete merged[key];
    } else if (value !== undefined) {
      merged[key] = value;
    }
  }
  return normalizeFields(merged as unknown as RuleFields);
}

/** The API's key order, without undefined members. */
function normalizeFields(fields: RuleFields): RuleFields {
  return {
    action: fields.action,
    ...(fields.action_parameters === undefined ? {} : { action_parameters: fields.action_parameters }),
    expression: fields.expression,
    description: fields.description,
    ref: fields.ref,
    enabled: fields.enabled,
    ...(fields.categories === undefined ? {} : { categories: fields.categories }),
    ...(fields.score === undefined ? {} : { score: fields.score }),
    ...(fields.score_threshold === undefined ? {} : { score_threshold: fields.score_threshold }),
    ...(fields.logging === undefined ? {} : { logging: fields.logging }),
  };
}

/** Equal fields, member by member; objects (parameters, categories, logging) whatever their key order. */
function sameFields(a: RuleFields, b: RuleFields): boolean {
  const left = a as unknown as Record<string, unknown>;
  const right = b as unknown as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => {
    const [x, y] = [left[key], right[key]];
    if (x === y) return true;
    return typeof x === 'object' && typeof y === 'object' && x !== null && y !== null && canonicalJson(x) === canonicalJson(y);
  });
}

export function fieldColumns(fields: RuleFields): Omit<RuleRow, 'ruleset_id' | 'id' | 'position' | 'version' | 'last_updated'> {
  return {
    action: fields.action,
    action_parameters: fields.action_parameters === undefined ? null : toJson(fields.action_parameters),
    expression: fields.expression,
    description: fields.description,
    ref: fields.ref,
    enabled: toFlag(fields.enabled),
    categories: fields.categories === undefined ? null : toJson(fields.categories),
    score: fields.score ?? null,
    score_threshold: fields.score_threshold ?? null,
    logging: fields.logging === undefined ? null : toJson(fields.logging),
  };
}

