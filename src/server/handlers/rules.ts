import type { components } from '../../../generated/api';
import { RuleChangedError, type Repositories, type Rule, type RuleInput, type RulePatch, type Ruleset, type RuleWriteOptions } from '../../store';
import { ApiError, Codes, notFound } from '../http/errors';
import type { Handlers } from '../operations';
import { checkRules, maxRules, type RuleCheckScope } from '../rules/check-rules';
import { toApiRuleset, toRuleInputs } from '../rules/rule-inputs';
import { ruleSchemaErrors } from '../rules/rule-schema';
import { accountOwners, zoneOwners, type Owner, type OwnerKind, type TwinContext } from './owners';

/*
 * Single rules of a ruleset, added, changed and removed, in zones and accounts. Each write reads
 * the ruleset as a write finds it (a platform-managed one is refused as such, 400 20200, rather
 * than hidden behind a 404), checks the request against it, then makes one store call, whose
 * transaction does only the store's work. What was checked holds at the write: a ruleset's phase
 * and kind never change, the rules others add meanwhile were checked by their own writes (the
 * phase's rule limit the store holds at the write), and a patch is applied only to the rule
 * version it was checked against.
 */

type ApiRule = components['schemas']['Rule'];
type ApiRulePatch = Omit<components['schemas']['RulePatch'], 'position'>;

/** How often a PATCH reads and checks again when another PATCH of the same rule came between its check and its write. */
const PATCH_ATTEMPTS = 16;

/** `position` as the store takes it (the document lets exactly one member through); absent means the default place. */
function placement(position: components['schemas']['RulePosition'] | undefined): RuleWriteOptions {
  if (position === undefined) return {};
  if (position.index !== undefined) return { position: { index: position.index } };
  if (position.before !== undefined) return { position: { before: position.before } };
  return { position: { after: position.after ?? '' } };
}

/** What rules going into `current` are checked against. */
function checkScope(current: Ruleset, owner: Owner, repositories: Repositories): RuleCheckScope {
  return { phase: current.phase, kind: current.kind, accountId: owner.accountId, repositories };
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

/** The merged rule checked whole: against the rule's schema, then as a rule of the ruleset. */
async function checkMerged(merged: MergedRule, scope: RuleCheckScope): Promise<void> {
  const schemaErrors = ruleSchemaErrors(merged);
  if (schemaErrors.length > 0) {
    throw new ApiError(400, schemaErrors.map((message) => ({ code: Codes.invalidRequest, message: `merged ${message}` })));
  }
  await checkRules([merged], scope, () => 'rule');
}

/** The rules of the rulesets of a zone or an account (`owners`). */
function ruleOperations(owners: OwnerKind) {
  return {
    /** One rule added: the ruleset as it will be is checked as a PUT of it would be (constraints across rules included). */
    async create(context: TwinContext<'createZoneRulesetRule', 'createAccountRulesetRule'>) {
      const { ruleset_id } = context.params;
      const owner = await owners.of(context);
      const { position, ...rule } = context.body as ApiRule;
      const [input] = toRuleInputs([{ ...rule, id: '' } as ApiRule]);
      const current = await context.store.rulesets.getWritable(owner.scope, ruleset_id);
      const added = current.rules.length;
      await checkRules([...current.rules, input!], checkScope(current, owner, context.store), (i) => (i === added ? 'rule' : `rules[${i}]`));
      const ruleset = await context.store.rulesets.addRule(owner.scope, ruleset_id, input!, { ...placement(position), max_rules: maxRules(current.phase) });
      return { result: toApiRuleset(ruleset) };
    },

    /** PATCH of one rule: the merged rule is checked whole; `position` moves it. */
    async update(context: TwinContext<'updateZoneRulesetRule', 'updateAccountRulesetRule'>) {
      const { ruleset_id, rule_id } = context.params;
      const owner = await owners.of(context);
      const { position, ...patch } = context.body;
      for (let attempt = 1; ; attempt += 1) {
        const current = await context.store.rulesets.getWritable(owner.scope, ruleset_id);
        const existing = current.rules.find((rule) => rule.id === rule_id);
        if (!existing) throw notFound(context.path);
        await checkMerged(mergeRule(existing, patch), checkScope(current, owner, context.store));
        try {
          const options = { ...placement(position), expected_rule_version: existing.version };
          return { result: toApiRuleset(await context.store.rulesets.updateRule(owner.scope, ruleset_id, rule_id, patch as RulePatch, options)) };
        } catch (error) {
          // Another PATCH of this rule came first: the patch would now apply to a rule not checked.
          if (!(error instanceof RuleChangedError) || attempt === PATCH_ATTEMPTS) throw error;
        }
      }
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
