import type { components } from '../../../generated/api';
import type { RuleWriteOptions } from '../../store';
import { notFound } from '../http/errors';
import { noContent, type Handlers } from '../http/operations';
import { checkRules } from '../rules/check-rules';
import { requireAccount, requireZone } from './access';
import { toApiRuleset, toRuleInputs, zoneRuleset } from './rulesets';

type ApiRule = components['schemas']['Rule'];

/** `position` as the store takes it (the document lets exactly one member through); absent means the default place. */
export function placement(position: components['schemas']['RulePosition'] | undefined): RuleWriteOptions {
  if (position === undefined) return {};
  if (position.index !== undefined) return { position: { index: position.index } };
  if (position.before !== undefined) return { position: { before: position.before } };
  return { position: { after: position.after ?? '' } };
}

/** Reading, deleting and adding or removing single rules of rulesets. */
export const rulesetEditHandlers: Pick<
  Handlers,
  'getZoneRuleset' | 'deleteZoneRuleset' | 'deleteAccountRuleset' | 'createZoneRulesetRule' | 'deleteZoneRulesetRule'
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

  async deleteAccountRuleset(context) {
    const { account_id, ruleset_id } = context.params;
    await requireAccount(context, account_id);
    await context.store.rulesets.delete({ account_id }, ruleset_id);
    return noContent;
  },

  async createZoneRulesetRule(context) {
    const { zone_id, ruleset_id } = context.params;
    const zone = await requireZone(context, zone_id);
    const { position, ...rule } = context.body;
    const [input] = toRuleInputs([{ ...rule, id: '' } as ApiRule]);
    const ruleset = await context.store.transaction(async (tx) => {
      const current = await zoneRuleset(context, tx, zone, ruleset_id);
      // The ruleset as it will be, checked as a PUT of it would be (constraints across rules included).
      const added = current.rules.length;
      await checkRules(
        [...current.rules, input!],
        { phase: current.phase, kind: current.kind, accountId: zone.account.id, repositories: tx },
        (i) => (i === added ? 'rule' : `rules[${i}]`),
      );
      return tx.rulesets.addRule({ zone_id }, ruleset_id, input!, placement(position));
    });
    return { result: toApiRuleset(ruleset) };
  },

  async deleteZoneRulesetRule(context) {
    const { zone_id, ruleset_id, rule_id } = context.params;
    const zone = await requireZone(context, zone_id);
    const ruleset = await context.store.transaction(async (tx) => {
      await zoneRuleset(context, tx, zone, ruleset_id);
      return tx.rulesets.deleteRule({ zone_id }, ruleset_id, rule_id);
    });
    return { result: toApiRuleset(ruleset) };
  },
};
