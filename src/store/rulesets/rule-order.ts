import { InvalidInputError } from '../errors';
import type { RulePosition } from '../types';

/**
 * The order of a ruleset's rules once `ruleId` is placed at `position` among `others` (the
 * other rules, in order). `before: ""` puts it first and `after: ""` last, as the real
 * service documents; an index is 1-based and may be one past the last rule (the end).
 */
export function placeRule(others: readonly string[], ruleId: string, position: RulePosition, rulesetId: string): string[] {
  const at = insertionIndex(others, ruleId, position, rulesetId);
  return [...others.slice(0, at), ruleId, ...others.slice(at)];
}

function insertionIndex(others: readonly string[], ruleId: string, position: RulePosition, rulesetId: string): number {
  if ('index' in position) {
    const last = others.length + 1;
    if (!Number.isSafeInteger(position.index) || position.index < 1 || position.index > last) {
      throw new InvalidInputError(`position.index: ${position.index} is outside the ruleset (1 to ${last})`);
    }
    return position.index - 1;
  }
  const [side, anchor] = 'before' in position ? (['before', position.before] as const) : (['after', position.after] as const);
  if (anchor === '') return side === 'before' ? 0 : others.length;
  if (anchor === ruleId) throw new InvalidInputError(`position.${side}: a rule cannot be placed relative to itself`);
  const found = others.indexOf(anchor);
  if (found < 0) throw new InvalidInputError(`position.${side}: rule ${anchor} is not a rule of ruleset ${rulesetId}`);
  return side === 'before' ? found : found + 1;
}
