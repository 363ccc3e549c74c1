import { noEntrypoint, notFound } from '../http/errors';
import { noContent, type Handlers } from '../http/operations';
import { checkRules } from '../rules/check-rules';
import { requireAccount, requireZone } from './access';
import { addRule, checkRuleList, patchRule, removeRule, replaceRules, toApiRuleset, toRuleInputs, accountOwner, zoneOwner } from './ruleset-writes';


/** Rulesets read, created and deleted, and single rules added, changed and removed, in zones and accounts. */
export const rulesetEditHandlers: Pick<
  Handlers,
  | 'getZoneRuleset'
  | 'deleteZoneRuleset'
  | 'createZoneRulesetRule'
  | 'deleteZoneRulesetRule'
  | 'createAccountRuleset'
  | 'updateAccountRuleset'
  | 'deleteAccountRuleset'
  | 'createAccountRulesetRule'
  | 'updateAccountRulesetRule'
  | 'deleteAccountRulesetRule'
  | 'getAccountEntrypointRuleset'
  | 'updateAccountEntrypointRuleset'
> = {
  async getZoneRuleset(context) {
    const { zone_id, ruleset_id } = context.params;
    await requireZone(context, zone_id);
    const ruleset = await context.store.rulesets.get({ zone_id }, ruleset_id);
    if (!ruleset) throw notFound(context.path);
    return { result: toApiRuleset(ruleset) };
  },

  async deleteZoneRuleset(context) {
    const { zone_id, ruleset_id } = context.params;
    await requireZone(context, zone_id);
    await context.store.rulesets.delete({ zone_id }, ruleset_id);
    return noContent;
  },

  async createZoneRulesetRule(context) {
    const zone = await requireZone(context, context.params.zone_id);
    return { result: toApiRuleset(await addRule(context, zoneOwner(zone), context.params.ruleset_id, context.body)) };
  },

  async deleteZoneRulesetRule(context) {
    const { zone_id, ruleset_id, rule_id } = context.params;
    const zone = await requireZone(context, zone_id);
    return { result: toApiRuleset(await removeRule(context, zoneOwner(zone), ruleset_id, rule_id)) };
  },

  async createAccountRuleset(context) {
    const { account_id } = context.params;
    await requireAccount(context, account_id);
    const body = context.body;
    const rules = body.rules ?? [];
    checkRuleList(rules);
    const ruleset = await context.store.transaction(async (tx) => {
      await checkRules(rules, { phase: body.phase, kind: body.kind, accountId: account_id, repositories: tx });
      return tx.rulesets.create({ account_id }, { ...body, rules: toRuleInputs(rules) });
    });
    return { result: toApiRuleset(ruleset) };
  },

  async updateAccountRuleset(context) {
    const { account_id, ruleset_id } = context.params;
    await requireAccount(context, account_id);
    return { result: toApiRuleset(await replaceRules(context, accountOwner(account_id), ruleset_id, context.body)) };
  },

  async deleteAccountRuleset(context) {
    const { account_id, ruleset_id } = context.params;
    await requireAccount(context, account_id);
    await context.store.rulesets.delete({ account_id }, ruleset_id);
    return noContent;
  },

  async createAccountRulesetRule(context) {
    const { account_id, ruleset_id } = context.params;
    await requireAccount(context, account_id);
    return { result: toApiRuleset(await addRule(context, accountOwner(account_id), ruleset_id, context.body)) };
  },

  async updateAccountRulesetRule(context) {
    const { account_id, ruleset_id, rule_id } = context.params;
    await requireAccount(context, account_id);
    return { result: toApiRuleset(await patchRule(context, accountOwner(account_id), ruleset_id, rule_id, context.body)) };
  },

  async deleteAccountRulesetRule(context) {
    const { account_id, ruleset_id, rule_id } = context.params;
    await requireAccount(context, account_id);
    return { result: toApiRuleset(await removeRule(context, accountOwner(account_id), ruleset_id, rule_id)) };
  },

  async getAccountEntrypointRuleset(context) {
    const { account_id, phase } = context.params;
    await requireAccount(context, account_id);
    const ruleset = await context.store.rulesets.getEntryPoint({ account_id }, phase);
    if (!ruleset) throw noEntrypoint(phase);
    return { result: toApiRuleset(ruleset) };
  },

  async updateAccountEntrypointRuleset(context) {
    const { account_id, phase } = context.params;
    await requireAccount(context, account_id);
    const { rules, ...rest } = context.body;
    checkRuleList(rules);
    const ruleset = await context.store.transaction(async (tx) => {
      await checkRules(rules, { phase, kind: 'root', accountId: account_id, repositories: tx });
      return (await tx.rulesets.putEntryPoint({ account_id }, phase, { ...rest, rules: toRuleInputs(rules) })).ruleset;
    });
    return { result: toApiRuleset(ruleset) };
  },
};
