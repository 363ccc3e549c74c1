import type { components } from '../../../generated/api';
import type { Repositories, Rule, RuleInput, RulePatch, Ruleset, RuleWriteOptions } from '../../store';
import { ApiError, Codes, notFound } from '../http/errors';
import type { Handlers } from '../operations';
import { checkRules, type RuleCheckScope } from '../rules/check-rules';
import { toApiRuleset, toRuleInputs } from '../rules/rule-inputs';
import { ruleSchemaErrors } from '../rules/rule-schema';
import { accountOwners, zoneOwners, type Owner, type OwnerKind, type TwinContext } from './owners';

/*
 * Single rules of a ruleset, added, changed and removed, in zones and accounts. Each write is
 * checked once: the store finds the ruleset writable from the owner (a platform-managed one is
 * refused as such, 400 20200, rather than hidden behind a 404) and hands the ruleset as it stands
 * to the write's `check`, in the write's transaction.
 */

type ApiRule = components['schemas']['Rule'];
type ApiRulePatch = Omit<components['schemas']['RulePatch'], 'position'>;

/** `position` as the store takes it (the document lets exactly one member through); absent means the default place. */
function placement(position: components['schemas']['RulePosition'] | undefined): RuleWriteOptions {
  if (position === undefined) return {};
  if (position.index !== undefined) return { position: { index: position.index } };
  if (position.before !== undefined) return { position: { before: position.before } };
  return { position: { after: position.after ?? '' } };
}

/** What rules going into `current` are checked against. */
function checkScope(current: Ruleset, owner: Owner, tx: Repositories): RuleCheckScope {
  return { phase: current.phase, kind: current.kind, accountId: owner.accountId, repositories: tx };
}

/** A changed action drops the old action's parameters unless new ones are sent (as the store does on a PATCH). */
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

/** The rules of the rulesets of a zone or an account (`owners`). */
function ruleOperations(owners: OwnerKind) {
  return {
    /** One rule added: the ruleset as it will be is checked as a PUT of it would be (constraints across rules included). */
    async create(context: TwinContext<'createZoneRulesetRule', 'createAccountRulesetRule'>) {
      const owner = await owners.of(context);
      const { position, ...rule } = context.body as ApiRule;
      const [input] = toRuleInputs([{ ...rule, id: '' } as ApiRule]);
      const ruleset = await context.store.transaction((tx) =>
        tx.rulesets.addRule(owner.scope, context.params.ruleset_id, input!, {
          ...placement(position),
          check: (current) => {
            const added = current.rules.length;
            return checkRules([...current.rules, input!], checkScope(current, owner, tx), (i) => (i === added ? 'rule' : `rules[${i}]`));
          },
        }),
      );
      return { result: toApiRuleset(ruleset) };
    },

    /** PATCH of one rule: the merged rule is checked whole; `position` moves it. */
    async update(context: TwinContext<'updateZoneRulesetRule', 'updateAccountRulesetRule'>) {
      const { ruleset_id, rule_id } = context.params;
      const owner = await owners.of(context);
      const { position, ...patch } = context.body;
      const ruleset = await context.store.transaction((tx) =>
        tx.rulesets.updateRule(owner.scope, ruleset_id, rule_id, patch as RulePatch, {
          ...placement(position),
          check: async (current) => {
            const existing = current.rules.find((rule) => rule.id === rule_id);
            if (!existing) throw notFound(context.path);
            const merged = mergeRule(existing, patch);
            const schemaErrors = ruleSchemaErrors(merged);
            if (schemaErrors.length > 0) {
              throw new ApiError(400, schemaErrors.map((message) => ({ code: Codes.invalidRequest, message: `merged ${message}` })));
            }
            await checkRules([merged], checkScope(current, owner, tx), () => 'rule');
          },
        }),
      );
      return { result: toApiRuleset(ruleset) };
    },

    async delete(context: TwinContext<'deleteZoneRulesetRule', 'deleteAccountRulesetRule'>) {
      const { scope } = await owners.of(context);
      return { result: toApiRuleset(await context.store.rulesets.deleteRule(scope, context.params.ruleset_id, context.params.rule_id)) };
    },
  };
}

const zone = ruleOperations(zoneOwners);
const account = ruleOperations(accountOwners);

export const ruleHandlers: Pick<
  Handlers,
  | 'createZoneRulesetRule'
  | 'updateZoneRulesetRule'
  | 'deleteZoneRulesetRule'
  | 'createAccountRulesetRule'
  | 'updateAccountRulesetRule'
  | 'deleteAccountRulesetRule'
> = {
  createZoneRulesetRule: zone.create,
  updateZoneRulesetRule: zone.update,
  deleteZoneRulesetRule: zone.delete,
  createAccountRulesetRule: account.create,
  updateAccountRulesetRule: account.update,
  deleteAccountRulesetRule: account.delete,
};
