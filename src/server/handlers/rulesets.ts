import type { components } from '../../../generated/api';
import type { Repositories, Ruleset, RulesetUpdate, Zone } from '../../store';
import { decodeCursor } from './cursor';
import { badRequest, noEntrypoint, notFound } from '../http/errors';
import { noContent, type Handlers } from '../operations';
import { checkRules } from '../rules/check-rules';
import { checkRuleList, toApiRuleset, toRuleInputs } from '../rules/rule-inputs';
import { MANAGED_PHASE } from '../waf/managed-rulesets';
import { migrationBlockers, migrationMode, migrationRequired, plannedTransition } from '../waf/migration';
import { readPreviousWaf } from '../waf/previous-waf';
import { cursorListReply, pageRequest } from './access';
import { accountOwners, zoneOwners, type Owner, type OwnerKind, type TwinContext } from './owners';

/*
 * Rulesets and the entry points of phases, in zones and accounts. (Single rules: rules.ts; kept
 * versions: ruleset-versions.ts.)
 */

type RulesetList = { result: components['schemas']['Ruleset'][]; result_info: components['schemas']['ResultInfo'] };

const rulesetOrders = ['id', 'name', 'kind', 'phase', 'version', 'last_updated'] as const;

/** A cursor, when sent, names the page; otherwise page, per_page, order and direction do. */
function rulesetPageRequest(query: Parameters<typeof pageRequest<(typeof rulesetOrders)[number]>>[0] & { cursor?: string }) {
  return query?.cursor ? decodeCursor(query.cursor, rulesetOrders) : pageRequest(query, 'id');
}

/** Kind of the entry point of a phase: `zone` in a zone, `root` in an account. */
function entryPointKind(owner: Owner): 'zone' | 'root' {
  return owner.zone === null ? 'root' : 'zone';
}

/** Zones still on the previous WAF reach their managed entry point only through the migration. */
async function requireMigrated(tx: Repositories, zone: Zone, phase: string): Promise<void> {
  if (phase !== MANAGED_PHASE) return;
  const state = await tx.waf.getState(zone.id);
  if (state && state.migration_state === 'start') throw migrationRequired(zone, state.migration_state);
}

/**
 * The managed phase's entry point of a zone that has not finished its WAF migration: written only
 * by the migration (`waf_migration`), which checks the previous WAF, writes the entry point and
 * moves the zone's migration state in one transaction. Answers the ruleset written, or undefined
 * when the zone has migrated and the write is an ordinary one.
 */
async function migrateThroughEntryPoint(
  tx: Repositories,
  zone: Zone,
  wafMigration: string | undefined,
  update: RulesetUpdate,
  rules: components['schemas']['Rule'][],
): Promise<Ruleset | undefined> {
  const state = (await tx.waf.getState(zone.id))?.migration_state ?? 'finished';
  if (wafMigration === undefined) {
    if (state !== 'finished') throw migrationRequired(zone, state);
    return undefined;
  }
  const transition = plannedTransition(zone, state, migrationMode(wafMigration));
  // Checked from validation mode too: the previous API still runs there and may have added overrides.
  const previous = await readPreviousWaf(tx, zone.id);
  const blocker = previous && migrationBlockers(zone, previous);
  if (blocker) throw blocker;
  await checkRules(rules, { phase: MANAGED_PHASE, kind: 'zone', accountId: zone.account.id, repositories: tx });
  const { ruleset } = await tx.rulesets.putEntryPoint({ zone_id: zone.id }, MANAGED_PHASE, update);
  // Compare-and-set on the state: a migration raced from two places happens once.
  await tx.waf.transition(zone.id, transition);
  return ruleset;
}

/** The rulesets of a zone or an account (`owners`). */
function rulesetOperations(owners: OwnerKind) {
  return {
    async list(context: TwinContext<'listZoneRulesets', 'listAccountRulesets'>) {
      const { scope } = await owners.of(context);
      const request = rulesetPageRequest(context.query);
      return cursorListReply(await context.store.rulesets.list(scope, request), request) as RulesetList;
    },

    async get(context: TwinContext<'getZoneRuleset', 'getAccountRuleset'>) {
      const { scope } = await owners.of(context);
      const ruleset = await context.store.rulesets.get(scope, context.params.ruleset_id);
      if (!ruleset) throw notFound(context.path);
      return { result: toApiRuleset(ruleset) };
    },

    async create(context: TwinContext<'createZoneRuleset', 'createAccountRuleset'>) {
      const owner = await owners.of(context);
      const body = context.body;
      const rules = body.rules ?? [];
      checkRuleList(rules);
      const ruleset = await context.store.transaction(async (tx) => {
        if (owner.zone !== null && body.kind === 'zone') await requireMigrated(tx, owner.zone, body.phase);
        await checkRules(rules, { phase: body.phase, kind: body.kind, accountId: owner.accountId, repositories: tx });
        return tx.rulesets.create(owner.scope, { ...body, rules: toRuleInputs(rules) });
      });
      return { result: toApiRuleset(ruleset) };
    },

    /** PUT of a ruleset: every rule replaced, each checked against the ruleset's phase and kind. */
    async update(context: TwinContext<'updateZoneRuleset', 'updateAccountRuleset'>) {
      const owner = await owners.of(context);
      const { rules, ...rest } = context.body;
      checkRuleList(rules);
      // Checked before the write: a ruleset's phase and kind, all the check reads of it, never change.
      const current = await context.store.rulesets.getWritable(owner.scope, context.params.ruleset_id);
      await checkRules(rules, { phase: current.phase, kind: current.kind, accountId: owner.accountId, repositories: context.store });
      const ruleset = await context.store.rulesets.update(owner.scope, context.params.ruleset_id, { ...rest, rules: toRuleInputs(rules) });
      return { result: toApiRuleset(ruleset) };
    },

    async delete(context: TwinContext<'deleteZoneRuleset', 'deleteAccountRuleset'>) {
      const { scope } = await owners.of(context);
      await context.store.rulesets.delete(scope, context.params.ruleset_id);
      return noContent;
    },

    async getEntryPoint(context: TwinContext<'getZoneEntrypointRuleset', 'getAccountEntrypointRuleset'>) {
      const { phase } = context.params;
      const { scope } = await owners.of(context);
      const ruleset = await context.store.rulesets.getEntryPoint(scope, phase);
      if (!ruleset) throw noEntrypoint(phase);
      return { result: toApiRuleset(ruleset) };
    },

    /** Creates or replaces a phase's entry point; in a zone, also the way the WAF migration is made. */
    async putEntryPoint(context: TwinContext<'updateZoneEntrypointRuleset', 'updateAccountEntrypointRuleset'>) {
      const { phase } = context.params;
      // Only a zone's entry point takes these (an account's refuses any query parameter).
      const { waf_migration, phase_two } = context.query ?? {};
      const owner = await owners.of(context);
      const { rules, ...rest } = context.body;
      checkRuleList(rules);
      if (waf_migration !== undefined && phase !== MANAGED_PHASE) {
        throw badRequest(`waf_migration applies only to the ${MANAGED_PHASE} entry point, not ${phase}`);
      }
      if (waf_migration !== undefined && phase_two !== '1') {
        throw badRequest('phase_two=1 must accompany waf_migration (the second migration phase)');
      }
      const update = { ...rest, rules: toRuleInputs(rules) };
      const ruleset = await context.store.transaction(async (tx) => {
        if (owner.zone !== null && phase === MANAGED_PHASE) {
          const migrated = await migrateThroughEntryPoint(tx, owner.zone, waf_migration, update, rules);
          if (migrated) return migrated;
        }
        await checkRules(rules, { phase, kind: entryPointKind(owner), accountId: owner.accountId, repositories: tx });
        return (await tx.rulesets.putEntryPoint(owner.scope, phase, update)).ruleset;
      });
      return { result: toApiRuleset(ruleset) };
    },
  };
}

const zone = rulesetOperations(zoneOwners);
const account = rulesetOperations(accountOwners);

export const rulesetHandlers: Pick<
  Handlers,
  | 'listZoneRulesets'
  | 'getZoneRuleset'
  | 'createZoneRuleset'
  | 'updateZoneRuleset'
  | 'deleteZoneRuleset'
  | 'getZoneEntrypointRuleset'
  | 'updateZoneEntrypointRuleset'
  | 'listAccountRulesets'
  | 'getAccountRuleset'
  | 'createAccountRuleset'
  | 'updateAccountRuleset'
  | 'deleteAccountRuleset'
  | 'getAccountEntrypointRuleset'
  | 'updateAccountEntrypointRuleset'
> = {
  listZoneRulesets: zone.list,
  getZoneRuleset: zone.get,
  createZoneRuleset: zone.create,
  updateZoneRuleset: zone.update,
  deleteZoneRuleset: zone.delete,
  getZoneEntrypointRuleset: zone.getEntryPoint,
  updateZoneEntrypointRuleset: zone.putEntryPoint,
  listAccountRulesets: account.list,
  getAccountRuleset: account.get,
  createAccountRuleset: account.create,
  updateAccountRuleset: account.update,
  deleteAccountRuleset: account.delete,
  getAccountEntrypointRuleset: account.getEntryPoint,
  updateAccountEntrypointRuleset: account.putEntryPoint,
};
