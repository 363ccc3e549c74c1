import { fromFlag, fromJson, fromJsonOrNull, toFlag, toJson } from '../codecs';
import { InvalidInputError, MigrationStateConflictError, NotFoundError, PreviousWafRetiredError } from '../errors';
import { newId } from '../ids';
import type { ReadContext, WriteContext } from '../transaction/context';
import { lockingExecutor, type Executor } from '../transaction/executor';
import type { WafRepository } from '../store';
import {
  MIGRATION_STATES,
  type PreviousWafConfig,
  type PreviousWafOverride,
  type PreviousWafPackage,
  type MigrationState,
  type PageRule,
  type UriWafOverride,
  type UriWafOverrideInput,
  type ZoneWafState,
} from '../types';
import { wafLock } from '../write-locks';

export function wafRepository(executor: Executor): WafRepository {
  /** Everything here is one zone's previous WAF: a write transaction locks it first. */
  const ofZone = (zoneId: string) => lockingExecutor(executor, wafLock(zoneId));
  return {
    getState: (zoneId) => ofZone(zoneId).readStatement(({ db }) => findState(db, zoneId)),

    transition: (zoneId, step) =>
      ofZone(zoneId).write(async (ctx) => {
        if (!MIGRATION_STATES.includes(step.to) || step.from.some((state) => !MIGRATION_STATES.includes(state))) {
          throw new InvalidInputError(`migration states are ${MIGRATION_STATES.join(', ')}`);
        }
        const current = await findState(ctx.db, zoneId);
        if (current === null) {
          throw new NotFoundError('zone', zoneId);
        }
        if (!step.from.includes(current.migration_state)) {
          throw new MigrationStateConflictError(zoneId, step.from, current.migration_state);
        }
        // The state read above is the compare-and-set basis: a racing migration loses here.
        const result = await ctx.db
          .updateTable('zone_waf')
          .set({
            migration_state: step.to,
            old_managed_rules_enabled: toFlag(step.old_managed_rules_enabled),
            new_managed_rules_enabled: toFlag(step.new_managed_rules_enabled),
            modified_on: ctx.now,
          })
          .where('zone_id', '=', zoneId)
          .where('migration_state', '=', current.migration_state)
          .executeTakeFirst();
        if (result.numUpdatedRows !== 1n) {
          const now = await findState(ctx.db, zoneId);
          throw new MigrationStateConflictError(zoneId, step.from, now?.migration_state ?? 'unknown');
        }
        return {
          zone_id: zoneId,
          migration_state: step.to,
          old_managed_rules_enabled: step.old_managed_rules_enabled,
          new_managed_rules_enabled: step.new_managed_rules_enabled,
          modified_on: ctx.now,
        };
      }),

    getPreviousConfig: (zoneId) =>
      ofZone(zoneId).read(async ({ db }) => {
        const zone = await db.selectFrom('zones').select('id').where('id', '=', zoneId).executeTakeFirst();
        return zone === undefined ? null : loadPreviousConfig(db, zoneId);
      }),

    deleteUriOverride: (zoneId, overrideId) =>
      ofZone(zoneId).write(async (ctx) => {
        await requirePreviousWaf(ctx, zoneId);
        const result = await ctx.db
          .deleteFrom('uri_waf_overrides')
          .where('zone_id', '=', zoneId)
          .where('id', '=', overrideId)
          .executeTakeFirst();
        if (result.numDeletedRows !== 1n) {
          throw new NotFoundError('uri_waf_override', overrideId);
        }
      }),

    createUriOverride: (zoneId, input) =>
      ofZone(zoneId).write(async (ctx) => {
        await requirePreviousWaf(ctx, zoneId);
        const zone = await ctx.db.selectFrom('zones').select('id').where('id', '=', zoneId).executeTakeFirst();
        if (zone === undefined) {
          throw new NotFoundError('zone', zoneId);
        }
        const override: UriWafOverride = { id: newId(), ...input };
        await ctx.db
          .insertInto('uri_waf_overrides')
          .values({ zone_id: zoneId, ...uriOverrideColumns(override), id: override.id })
          .execute();
        return override;
      }),

    updateUriOverride: (zoneId, overrideId, input) =>
      ofZone(zoneId).write(async (ctx) => {
        await requirePreviousWaf(ctx, zoneId);
        const result = await ctx.db
          .updateTable('uri_waf_overrides')
          .set(uriOverrideColumns(input))
          .where('zone_id', '=', zoneId)
          .where('id', '=', overrideId)
          .executeTakeFirst();
        if (result.numUpdatedRows !== 1n) {
          throw new NotFoundError('uri_waf_override', overrideId);
        }
        return { id: overrideId, ...input };
      }),

    updatePackage: (zoneId, packageId, patch) =>
      ofZone(zoneId).write(async (ctx) => {
        await requirePreviousWaf(ctx, zoneId);
        const row = await ctx.db
          .selectFrom('legacy_waf_packages')
          .selectAll()
          .where('zone_id', '=', zoneId)
          .where('id', '=', packageId)
          .executeTakeFirst();
        if (row === undefined) {
          throw new NotFoundError('waf_package', packageId);
        }
        const changes = {
          ...(patch.sensitivity !== undefined ? { sensitivity: patch.sensitivity } : {}),
          ...(patch.action_mode !== undefined ? { action_mode: patch.action_mode } : {}),
        };
        if (Object.keys(changes).length > 0) {
          await ctx.db.updateTable('legacy_waf_packages').set(changes).where('id', '=', packageId).execute();
        }
        return toPackage({ ...row, ...changes });
      }),

    setMode: (zoneId, setting) =>
      ofZone(zoneId).write(async (ctx) => {
        await requirePreviousWaf(ctx, zoneId);
        const pkg = await ctx.db
          .selectFrom('legacy_waf_packages')
          .select('id')
          .where('zone_id', '=', zoneId)
          .where('id', '=', setting.package_id)
          .executeTakeFirst();
        if (pkg === undefined) {
          throw new NotFoundError('waf_package', setting.package_id);
        }
        // Delete then insert: one portable statement pair instead of two dialects of upsert.
        await ctx.db
          .deleteFrom('legacy_waf_overrides')
          .where('package_id', '=', setting.package_id)
          .where('level', '=', setting.level)
          .where('target_id', '=', setting.target_id)
          .execute();
        if (setting.mode !== null) {
          await ctx.db
            .insertInto('legacy_waf_overrides')
            .values({ zone_id: zoneId, ...setting, mode: setting.mode })
            .execute();
        }
      }),
  };
}

/**
 * Every previous-WAF write checks, in its own transaction and under the zone's WAF lock (which a
 * migration takes too), that the zone has not finished its migration: a check made before the
 * write, outside it, could be overtaken by the migration.
 */
async function requirePreviousWaf(ctx: WriteContext, zoneId: string): Promise<void> {
  if ((await findState(ctx.db, zoneId))?.migration_state === 'finished') throw new PreviousWafRetiredError(zoneId);
}

async function findState(db: ReadContext['db'], zoneId: string): Promise<ZoneWafState | null> {
  const row = await db.selectFrom('zone_waf').selectAll().where('zone_id', '=', zoneId).executeTakeFirst();
  if (row === undefined) {
    return null;
  }
  return {
    zone_id: row.zone_id,
    migration_state: row.migration_state as MigrationState,
    old_managed_rules_enabled: fromFlag(row.old_managed_rules_enabled),
    new_managed_rules_enabled: fromFlag(row.new_managed_rules_enabled),
    modified_on: row.modified_on,
  };
}

function toPackage(row: {
  id: string;
  name: string;
  description: string;
  detection_mode: string;
  sensitivity: string | null;
  action_mode: string | null;
}): PreviousWafPackage {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    detection_mode: row.detection_mode as PreviousWafPackage['detection_mode'],
    sensitivity: row.sensitivity as PreviousWafPackage['sensitivity'],
    action_mode: row.action_mode as PreviousWafPackage['action_mode'],
  };
}

function uriOverrideColumns(input: UriWafOverrideInput) {
  return {
    urls: toJson(input.urls),
    paused: toFlag(input.paused),
    description: input.description,
    priority: input.priority,
    rules: toJson(input.rules),
    groups: toJson(input.groups),
    rewrite_action: input.rewrite_action === null ? null : toJson(input.rewrite_action),
  };
}

async function loadPreviousConfig(db: ReadContext['db'], zoneId: string): Promise<PreviousWafConfig> {
  const packages = await db
    .selectFrom('legacy_waf_packages')
    .selectAll()
    .where('zone_id', '=', zoneId)
    .orderBy('position')
    .execute();
  const overrides = await db
    .selectFrom('legacy_waf_overrides')
    .selectAll()
    .where('zone_id', '=', zoneId)
    .orderBy('package_id')
    .orderBy('level')
    .orderBy('target_id')
    .execute();
  const uriOverrides = await db
    .selectFrom('uri_waf_overrides')
    .selectAll()
    .where('zone_id', '=', zoneId)
    .orderBy('priority')
    .orderBy('id')
    .execute();
  const firewallRules = await db
    .selectFrom('legacy_firewall_rules')
    .selectAll()
    .where('zone_id', '=', zoneId)
    .orderBy('position')
    .execute();
  const pageRules = await db
    .selectFrom('page_rules')
    .selectAll()
    .where('zone_id', '=', zoneId)
    .orderBy('priority')
    .orderBy('id')
    .execute();
  return {
    packages: packages.map(toPackage),
    overrides: overrides.map(
      (row): PreviousWafOverride => ({
        package_id: row.package_id,
        level: row.level as PreviousWafOverride['level'],
        target_id: row.target_id,
        description: row.description,
        mode: row.mode,
      }),
    ),
    uri_overrides: uriOverrides.map((row) => ({
      id: row.id,
      urls: fromJson<string[]>(row.urls),
      paused: fromFlag(row.paused),
      description: row.description,
      priority: row.priority,
      rules: fromJson<Record<string, string>>(row.rules),
      groups: fromJson<Record<string, string>>(row.groups),
      rewrite_action: fromJsonOrNull<Record<string, string>>(row.rewrite_action),
    })),
    firewall_rules: firewallRules.map((row) => ({
      id: row.id,
      expression: row.expression,
      action: row.action,
      products: fromJson<string[]>(row.products),
      paused: fromFlag(row.paused),
      description: row.description,
      priority: row.priority,
    })),
    page_rules: pageRules.map(
      (row): PageRule => ({
        id: row.id,
        targets: fromJson(row.targets),
        actions: fromJson(row.actions),
        priority: row.priority,
        status: row.status as PageRule['status'],
        created_on: row.created_on,
        modified_on: row.modified_on,
      }),
    ),
  };
}
