import { ReadOnlyRulesetError, type Repositories, type Rule, type RuleInput, type RulePatch, type Ruleset, type Zone } from '../../store';
import type { components } from '../../../generated/api';
import { ApiError, Codes, badRequest, notFound } from '../http/errors';
import type { Context, Handlers, OperationId } from '../http/operations';
import { checkRules } from '../rules/check-rules';
import { ruleSchemaErrors } from '../rules/rule-schema';
import { MANAGED_PHASE } from '../waf/managed-rulesets';
import { migrationBlockers, migrationMode, migrationRequired, plannedTransition } from '../waf/migration';
import { readPreviousWaf } from '../waf/previous-waf';
import { placement } from './ruleset-edits';
import { cursorListReply, pageRequest, requireAccount, requireZone } from './access';
import { decodeCursor } from '../http/cursor';

type ApiRule = components['schemas']['Rule'];
type RulesetList = { result: components['schemas']['Ruleset'][]; result_info: components['schemas']['ResultInfo'] };

const rulesetOrders = ['id', 'name', 'kind', 'phase', 'version', 'last_updated'] as const;

/** A cursor, when sent, names the page; otherwise page, per_page, order and direction do. */
function rulesetPageRequest(query: Parameters<typeof pageRequest<(typeof rulesetOrders)[number]>>[0] & { cursor?: string }) {
  return query?.cursor ? decodeCursor(query.cursor, rulesetOrders) : pageRequest(query, 'id');
}
type ApiRuleset = components['schemas']['Ruleset'];

/** Rules as the store takes them: empty ids and versions (migration payloads) mean "new". */
export function toRuleInputs(rules: readonly ApiRule[]): RuleInput[] {
  return rules.map(({ id, version: _version, last_updated: _updated, position: _position, ...rest }) => ({
    ...(id ? { id } : {}),
    ...(rest as Omit<RuleInput, 'id'>),
    ...(rest.ref === '' ? { ref: undefined } : {}),
  }));
}

/** The store's rules answer the API's Rule schema (the document checks it on every response in tests). */
export function toApiRuleset(ruleset: Ruleset): ApiRuleset {
  return ruleset as unknown as ApiRuleset;
}

/** Rules sent as a whole list: ids at most once, and no `position` (the list's order is the order). */
function checkDuplicateIds(rules: readonly ApiRule[]): void {
  const seen = new Set<string>();
  for (const [i, rule] of rules.entries()) {
    if (rule.position !== undefined) throw badRequest(`rules[${i}].position: a position applies only to one rule added or changed on its own`);
    if (!rule.id) continue;
    if (seen.has(rule.id)) throw badRequest(`rules[${i}].id: rule ${rule.id} is sent twice`);
    seen.add(rule.id);
  }
}

/**
 * A ruleset of the zone, to write. A platform-managed ruleset named under a zone is refused as
 * such (400, 20200) rather than hidden behind a 404, so the caller learns why.
 */
export async function zoneRuleset<O extends OperationId>(context: Context<O>, tx: Repositories, zone: Zone, rulesetId: string): Promise<Ruleset> {
  const ruleset = await tx.rulesets.get({ zone_id: zone.id }, rulesetId);
  if (ruleset) return ruleset;
  const managed = await tx.rulesets.get({ account_id: zone.account.id }, rulesetId);
  if (managed?.kind === 'managed') throw new ReadOnlyRulesetError(rulesetId);
  throw notFound(context.path);
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
    checkDuplicateIds(rules);
    const ruleset = await context.store.transaction(async (tx) => {
      if (body.kind === 'zone') await requireMigrated(tx, zone, body.phase);
      await checkRules(rules, { phase: body.phase, kind: body.kind, accountId: zone.account.id, repositories: tx });
      return tx.rulesets.create({ zone_id }, { ...body, rules: toRuleInputs(rules) });
    });
    return { result: toApiRuleset(ruleset) };
  },

  async updateZoneRuleset(context) {
    const { zone_id, ruleset_id } = context.params;
    const zone = await requireZone(context, zone_id);
    const { rules, ...rest } = context.body;
    checkDuplicateIds(rules);
    const ruleset = await context.store.transaction(async (tx) => {
      const current = await zoneRuleset(context, tx, zone, ruleset_id);
      await checkRules(rules, { phase: current.phase, kind: current.kind, accountId: zone.account.id, repositories: tx });
      return tx.rulesets.update({ zone_id }, ruleset_id, { ...rest, rules: toRuleInputs(rules) });
    });
    return { result: toApiRuleset(ruleset) };
  },

  async getZoneEntrypointRuleset(context) {
    const { zone_id, phase } = context.params;
    await requireZone(context, zone_id);
    const ruleset = await context.store.rulesets.getEntryPoint({ zone_id }, phase);
    if (!ruleset) throw ApiError.of(404, Codes.noEntrypoint, `could not find entrypoint ruleset in the ${phase} phase`);
    return { result: toApiRuleset(ruleset) };
  },

  async updateZoneEntrypointRuleset(context) {
    const { zone_id, phase } = context.params;
    const { waf_migration, phase_two } = context.query;
    const zone = await requireZone(context, zone_id);
    const { rules, ...rest } = context.body;
    checkDuplicateIds(rules);
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
    const { position, ...patch } = context.body;
    const ruleset = await context.store.transaction(async (tx) => {
      const current = await zoneRuleset(context, tx, zone, ruleset_id);
      const existing = current.rules.find((rule) => rule.id === rule_id);
      if (!existing) throw notFound(context.path);
      const merged = mergeRule(existing, patch);
      const schemaErrors = ruleSchemaErrors(merged);
      if (schemaErrors.length > 0) {
        throw new ApiError(400, schemaErrors.map((message) => ({ code: Codes.invalidRequest, message: `merged ${message}` })));
      }
      await checkRules([merged], { phase: current.phase, kind: current.kind, accountId: zone.account.id, repositories: tx }, () => 'rule');
      return tx.rulesets.updateRule({ zone_id }, ruleset_id, rule_id, storePatch(existing, patch), placement(position));
    });
    return { result: toApiRuleset(ruleset) };
  },
};

type ApiRulePatch = Omit<components['schemas']['RulePatch'], 'position'>;

/** A changed action drops the old action's parameters unless new ones are sent. */
function actionChanged(existing: Rule, patch: ApiRulePatch): boolean {
  return patch.action !== undefined && patch.action !== existing.action && patch.action_parameters === undefined;
}

type MergedRule = Pick<RuleInput, 'action' | 'action_parameters' | 'expression'> & Record<string, unknown>;

/** The stored rule with the patch applied, as the client would have sent it whole. */
function mergeRule(existing: Rule, patch: ApiRulePatch): MergedRule {
  const { categories: _c, score: _s, score_threshold: _t, logging: _l, ...rule } = existing;
  const merged: MergedRule = { ...rule, ...patch } as MergedRule;
  if (actionChanged(existing, patch)) delete merged.action_parameters;
  return merged;
}

function storePatch(existing: Rule, patch: ApiRulePatch): RulePatch {
  return { ...patch, ...(actionChanged(existing, patch) ? { action_parameters: null } : {}) } as RulePatch;
}
