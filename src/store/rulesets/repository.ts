import { fromJson } from '../codecs';
import { LatestVersionError, NotFoundError } from '../errors';
import { fetchPage } from '../query/paged-query';
import { resolvePage } from '../query/paging';
import type { RulesetRepository } from '../store';
import type { Executor } from '../transaction/executor';
import type { PageRequest, Ruleset, RulesetScope } from '../types';
import { entryPointLock } from '../write-locks';
import { toSummary } from './rows';
import { entryPoint, lockedRow, platformRulesetInMemory, readRulesetBy, visibleRuleset, writableRulesetLookup } from './reads';
import { entryPointKind, entryPointRow, visibleRow, type Queryable } from './statements';
import type { RulesetCaches } from './version-cache';
import { addRule, createRuleset, deleteRule, deleteRuleset, updateRule, updateRuleset, writableRuleset } from './writes';

const RULESET_ORDERS = ['name', 'last_updated', 'version', 'kind', 'phase', 'id'] as const;
const VERSION_PATTERN = /^[1-9][0-9]*$/;
/** Name given to an entry point created by a PUT that names none. */
const DEFAULT_ENTRY_POINT_NAME = 'default';

/*
 * Rulesets and their versions: this repository (reads.ts, writes.ts), the per-transaction claims
 * that move a ruleset to its next version once and keep its snapshot at commit (versioning.ts),
 * the store's version cache and the platform's managed rulesets read once (version-cache.ts), the
 * statements (statements.ts) and the row codecs every reader and the seed decode through (rows.ts).
 */

/** The rulesets of zones and accounts (and the platform's managed ones) over one executor. */
export function rulesetRepository(executor: Executor, caches: RulesetCaches): RulesetRepository {
  return {
    // No write depends on a list, so a list locks nothing (see write-locks.ts).
    list: (scope, page) => executor.read((ctx) => listRulesets(ctx.db, scope, page)),

    get: async (scope, id) => {
      // A platform-managed ruleset (visible from every account) never changes once seeded.
      if (!('zone_id' in scope)) {
        const platform = executor.readNow(platformRulesetInMemory, caches, id);
        if (platform !== undefined) return platform;
      }
      return readRulesetBy(executor, caches, visibleRuleset(scope, id));
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

    getEntryPoint: (scope, phase) => readRulesetBy(executor, caches, entryPoint(scope, phase)),

    getWritable: async (scope, id) => {
      const ruleset = await readRulesetBy(executor, caches, writableRulesetLookup(scope, id));
      if (ruleset === null) throw new NotFoundError('ruleset', id);
      return ruleset;
    },

    create: (scope, input) =>
      executor.write(async (ctx) => {
        if (input.kind === entryPointKind(scope)) await ctx.lock(entryPointLock(scope, input.phase));
        return createRuleset(ctx, caches, scope, input);
      }),

    update: (scope, id, update, options) =>
      executor.write(async (ctx) => {
        const { row } = await writableRuleset(ctx, caches, scope, id);
        return updateRuleset(ctx, caches, row, update, options);
      }),

    putEntryPoint: (scope, phase, update, options) =>
      executor.write(async (ctx) => {
        await ctx.lock(entryPointLock(scope, phase));
        const row = await lockedRow(ctx, scope, (db) => entryPointRow(db, scope, phase));
        if (row !== undefined) {
          return { ruleset: await updateRuleset(ctx, caches, row, update, options), created: false };
        }
        if (options?.expected_version !== undefined) {
          throw new NotFoundError('ruleset', `entry point of phase ${phase}`);
        }
        const ruleset = await createRuleset(ctx, caches, scope, {
          name: update.name ?? DEFAULT_ENTRY_POINT_NAME,
          description: update.description ?? '',
          kind: entryPointKind(scope),
          phase,
          rules: update.rules,
        });
        return { ruleset, created: true };
      }),

    updateRule: (scope, rulesetId, ruleId, patch, options) =>
      executor.write((ctx) => updateRule(ctx, caches, scope, rulesetId, ruleId, patch, options)),

    addRule: (scope, rulesetId, input, options) => executor.write((ctx) => addRule(ctx, caches, scope, rulesetId, input, options)),

    deleteRule: (scope, rulesetId, ruleId, options) =>
      executor.write((ctx) => deleteRule(ctx, caches, scope, rulesetId, ruleId, options)),

    delete: (scope, id) => executor.write((ctx) => deleteRuleset(ctx, caches, scope, id)),

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
        const { row } = await writableRuleset(ctx, caches, scope, id);
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

async function listRulesets(db: Queryable, scope: RulesetScope, request: PageRequest<string> | undefined) {
  const window = resolvePage(request, RULESET_ORDERS);
  const visible = db.selectFrom('rulesets').where((eb) =>
    'zone_id' in scope
      ? eb('zone_id', '=', scope.zone_id)
      : eb.or([eb('account_id', '=', scope.account_id), eb.and([eb('account_id', 'is', null), eb('zone_id', 'is', null)])]),
  );
  return fetchPage(visible, (q) => q.selectAll(), window, 'rulesets', (rows) => rows.map(toSummary));
}
