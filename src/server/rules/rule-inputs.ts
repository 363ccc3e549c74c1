import type { components } from '../../../generated/api';
import type { RuleInput, Ruleset } from '../../store';
import { badRequest } from '../http/errors';

type ApiRule = components['schemas']['Rule'];

/** Rules as the store takes them: empty ids and versions (migration payloads) mean "new". */
export function toRuleInputs(rules: readonly ApiRule[]): RuleInput[] {
  return rules.map(({ id, version: _version, last_updated: _updated, position: _position, ...rest }) => ({
    ...(id ? { id } : {}),
    ...(rest as Omit<RuleInput, 'id'>),
    ...(rest.ref === '' ? { ref: undefined } : {}),
  }));
}

/** The store's rules answer the API's Rule schema (the document checks it on every response in tests). */
export function toApiRuleset(ruleset: Ruleset): components['schemas']['Ruleset'] {
  return ruleset as unknown as components['schemas']['Ruleset'];
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
