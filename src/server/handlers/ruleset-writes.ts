import type { components } from '../../../generated/api';
import { type Repositories, type Rule, type RuleInput, type RulePatch, type Ruleset, type RulesetScope, type RuleWriteOptions, type Zone } from '../../store';
import { ApiError, Codes, badRequest, notFound } from '../http/errors';
import type { Context, OperationId } from '../http/operations';
import { checkRules } from '../rules/check-rules';
import { ruleSchemaErrors } from '../rules/rule-schema';

/*
 * The writes of a ruleset and of its rules, the same from a zone and from an account: the owner
 * names where the ruleset lives and whose managed rulesets `execute` rules may reference.
 */

type ApiRule = components['schemas']['Rule'];
type ApiRuleset = components['schemas']['Ruleset'];
type ApiRulePatch = Omit<components['schemas']['RulePatch'], 'position'>;

export interface RulesetOwner {
  scope: RulesetScope;
  /** The account of the zone, or the account itself. */
  accountId: string;
}

export const zoneOwner = (zone: Zone): RulesetOwner => ({ scope: { zone_id: zone.id }, accountId: zone.account.id });
export const accountOwner = (accountId: string): RulesetOwner => ({ scope: { account_id: accountId }, accountId });

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
export function checkRuleList(rules: readonly ApiRule[]): void {
  const seen = new Set<string>();
  for (const [i, rule] of rules.entries()) {
    if (rule.position !== undefined) throw badRequest(`rules[${i}].position: a position applies only to one rule added or changed on its own`);
    if (!rule.id) continue;
    if (seen.has(rule.id)) throw badRequest(`rules[${i}].id: rule ${rule.id} is sent twice`);
    seen.add(rule.id);
  }
}

/** `position` as the store takes it (the document lets exactly one member through); absent means the default place. */
export function placement(position: components['schemas']['RulePosition'] | undefined): RuleWriteOptions {
  if (position === undefined) return {};
  if (position.index !== undefined) return { position: { index: position.index } };
  if (position.before !== undefined) return { position: { before: position.before } };
  return { position: { after: position.after ?? '' } };
}

function checkScope(current: Ruleset, owner: RulesetOwner, tx: Repositories) {
  return { phase: current.phase, kind: current.kind, accountId: owner.accountId, repositories: tx };
}

/*
 * Each write below is checked once: the store finds the ruleset writable from the owner (a
 * platform-managed one is refused as such, 400 20200, rather than hidden behind a 404) and hands
 * the ruleset as it stands to the write's `check`, in the write's transaction.
 */

/** PUT of a ruleset: every rule replaced, each checked. */
export async function replaceRules<O extends OperationId>(
  context: Context<O>,
  owner: RulesetOwner,
  rulesetId: string,
  body: components['schemas']['RulesetUpdate'],
): Promise<Ruleset> {
  const { rules, ...rest } = body;
  checkRuleList(rules);
  return context.store.transaction((tx) =>
    tx.rulesets.update(owner.scope, rulesetId, { ...rest, rules: toRuleInputs(rules) }, { check: (current) => checkRules(rules, checkScope(current, owner, tx)) }),
  );
}

/** One rule added: the ruleset as it will be is checked as a PUT of it would be (constraints across rules included). */
export async function addRule<O extends OperationId>(context: Context<O>, owner: RulesetOwner, rulesetId: string, body: ApiRule): Promise<Ruleset> {
  const { position, ...rule } = body;
  const [input] = toRuleInputs([{ ...rule, id: '' } as ApiRule]);
  return context.store.transaction((tx) =>
    tx.rulesets.addRule(owner.scope, rulesetId, input!, {
      ...placement(position),
      check: (current) => {
        const added = current.rules.length;
        return checkRules([...current.rules, input!], checkScope(current, owner, tx), (i) => (i === added ? 'rule' : `rules[${i}]`));
      },
    }),
  );
}

/** PATCH of one rule: the merged rule is checked whole; `position` moves it. */
export async function patchRule<O extends OperationId>(
  context: Context<O>,
  owner: RulesetOwner,
  rulesetId: string,
  ruleId: string,
  body: components['schemas']['RulePatch'],
): Promise<Ruleset> {
  const { position, ...patch } = body;
  return context.store.transaction((tx) =>
    tx.rulesets.updateRule(owner.scope, rulesetId, ruleId, patch as RulePatch, {
      ...placement(position),
      check: async (current) => {
        const existing = current.rules.find((rule) => rule.id === ruleId);
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
}

export async function removeRule<O extends OperationId>(context: Context<O>, owner: RulesetOwner, rulesetId: string, ruleId: string): Promise<Ruleset> {
  return context.store.rulesets.deleteRule(owner.scope, rulesetId, ruleId);
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
