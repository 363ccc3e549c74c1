import type { Repositories, Zone } from '../../store';
import type { components } from '../../../generated/api';
import { badRequest, noEntrypoint, notFound } from '../http/errors';
import type { Handlers } from '../http/operations';
import { checkRules } from '../rules/check-rules';
import { MANAGED_PHASE } from '../waf/managed-rulesets';
import { migrationBlockers, migrationMode, migrationRequired, plannedTransition } from '../waf/migration';
import { readPreviousWaf } from '../waf/previous-waf';
import { checkRuleList, patchRule, replaceRules, toApiRuleset, toRuleInputs, zoneOwner } from './ruleset-writes';
import { cursorListReply, pageRequest, requireAccount, requireZone } from './access';
import { decodeCursor } from '../http/cursor';

type RulesetList = { result: components['schemas']['Ruleset'][]; result_info: components['schemas']['ResultInfo'] };

const rulesetOrders = ['id', 'name', 'kind', 'phase', 'version', 'last_updated'] as const;

/** A cursor, when sent, names the page; otherwise page, per_page, order and direction do. */
function rulesetPageRequest(query: Parameters<typeof pageRequest<(typeof rulesetOrders)[number]>>[0] & { cursor?: string }) {
  return query?.cursor ? decodeCursor(query.cursor, rulesetOrders) : pageRequest(query, 'id');
}

/** Zones still on the previous WAF reach their managed entry point only through the migration. */
async function requireMigrated(tx: Repositories, zone: Zone, phase: string): Promise<void> {
  if (phase !== MANAGED_PHASE) return;
  const state = await tx.waf.getState(zone.id);
  if (state && state.migration_state === 'start') throw migrationRequired(zone, state.migration_state);
}

export const rulesetHandlers: Pick<
  Handlers,
  | 'listAccountRulesets'
  | 'getAccountRuleset'
  | 'listZoneRulesets'
  | 'createZoneRuleset'
  | 'updateZoneRuleset'
  | 'getZoneEntrypointRuleset'
  | 'updateZoneEntrypointRuleset'
  | 'updateZoneRulesetRule'
> = {
  async listAccountRulesets(context) {
    const { account_id } = context.params;
    await requireAccount(context, account_id);
    const request = rulesetPageRequest(context.query);
    return cursorListReply(await context.store.rulesets.list({ account_id }, request), request) as RulesetList;
  },

  async getAccountRuleset(context) {
    const { account_id, ruleset_id } = context.params;
    await requireAccount(context, account_id);
    const ruleset = await context.store.rulesets.get({ account_id }, ruleset_id);
    if (!ruleset) throw notFound(context.path);
    return { result: toApiRuleset(ruleset) };
  },

  async listZoneRulesets(context) {
    const { zone_id } = context.params;
    await requireZone(context, zone_id);
    const request = rulesetPageRequest(context.query);
    return cursorListReply(await context.store.rulesets.list({ zone_id }, request), request) as RulesetList;
  },

  async createZoneRuleset(context) {
    const { zone_id } = context.params;
    const zone = await requireZone(context, zone_id);
    const body = context.body;
    const rules = body.rules ?? [];
    checkRuleList(rules);
    const ruleset = await context.store.transaction(async (tx) => {
      if (body.kind === 'zone') await requireMigrated(tx, zone, body.phase);
      await checkRules(rules, { phase: body.phase, kind: body.kind, accountId: zone.account.id, repositories: tx });
      return tx.rulesets.create({ zone_id }, { ...body, rules: toRuleInputs(rules) });
    });
    return { result: toApiRuleset(ruleset) };
  },

  async updateZoneRuleset(context) {
    const zone = await requireZone(context, context.params.zone_id);
    return { result: toApiRuleset(await replaceRules(context, zoneOwner(zone), context.params.ruleset_id, context.body)) };
  },

  async getZoneEntrypointRuleset(context) {
    const { zone_id, phase } = context.params;
    await requireZone(context, zone_id);
    const ruleset = await context.store.rulesets.getEntryPoint({ zone_id }, phase);
    if (!ruleset) throw noEntrypoint(phase);
    return { result: toApiRuleset(ruleset) };
  },

  async updateZoneEntrypointRuleset(context) {
    const { zone_id, phase } = context.params;
    const { waf_migration, phase_two } = context.query;
    const zone = await requireZone(context, zone_id);
    const { rules, ...rest } = context.body;
    checkRuleList(rules);
    if (waf_migration !== undefined && phase !== MANAGED_PHASE) {
      throw badRequest(`waf_migration applies only to the ${MANAGED_PHASE} entry point, not ${phase}`);
    }
    if (waf_migration !== undefined && phase_two !== '1') {
      throw badRequest('phase_two=1 must accompany waf_migration (the second migration phase)');
    }
    const ruleset = await context.store.transaction(async (tx) => {
      if (phase === MANAGED_PHASE) {
        const state = (await tx.waf.getState(zone.id))?.migration_state ?? 'finished';
        if (waf_migration === undefined) {
          if (state !== 'finished') throw migrationRequired(zone, state);
        } else {
          const transition = plannedTransition(zone, state, migrationMode(waf_migration));
          // Checked from validation mode too: the previous API still runs there and may have added overrides.
          const previous = await readPreviousWaf(tx, zone.id);
          const blocker = previous && migrationBlockers(zone, previous);
          if (blocker) throw blocker;
          await checkRules(rules, { phase, kind: 'zone', accountId: zone.account.id, repositories: tx });
          const { ruleset } = await tx.rulesets.putEntryPoint({ zone_id }, phase, { ...rest, rules: toRuleInputs(rules) });
          // Compare-and-set on the state: a migration raced from two places happens once.
          await tx.waf.transition(zone.id, transition);
          return ruleset;
        }
      }
      await checkRules(rules, { phase, kind: 'zone', accountId: zone.account.id, repositories: tx });
      return (await tx.rulesets.putEntryPoint({ zone_id }, phase, { ...rest, rules: toRuleInputs(rules) })).ruleset;
    });
    return { result: toApiRuleset(ruleset) };
  },

  async updateZoneRulesetRule(context) {
    const { zone_id, ruleset_id, rule_id } = context.params;
    const zone = await requireZone(context, zone_id);
    return { result: toApiRuleset(await patchRule(context, zoneOwner(zone), ruleset_id, rule_id, context.body)) };
  },
};
