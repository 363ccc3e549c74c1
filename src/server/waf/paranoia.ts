import type { Rule } from '../../store';
import { OWASP_RULESET_ID } from './managed-rulesets';

const levelTag = (level: number) => `paranoia-level-${level}`;

/** Category overrides that set the OWASP paranoia level: the tags of every higher level disabled. */
export function paranoiaOverrides(level: 1 | 2 | 3 | 4): { category: string; enabled: boolean }[] {
  const overrides = [];
  for (let higher = level + 1; higher <= 4; higher++) overrides.push({ category: levelTag(higher), enabled: false });
  return overrides;
}

/**
 * The paranoia level an OWASP execute rule deploys: the highest level whose tag and every lower
 * level's tag stay enabled (PL4 with no overrides), or null when the rules do not deploy OWASP.
 */
export function deployedParanoiaLevel(rules: readonly Rule[]): number | null {
  const owasp = rules.find((rule) => rule.action === 'execute' && rule.enabled && rule.action_parameters?.id === OWASP_RULESET_ID);
  if (!owasp) return null;
  const categories = ((owasp.action_parameters?.overrides as { categories?: { category: string; enabled?: boolean }[] } | undefined)?.categories ?? []);
  const disabled = new Set(categories.filter((c) => c.enabled === false).map((c) => c.category));
  let level = 0;
  while (level < 4 && !disabled.has(levelTag(level + 1))) level++;
  return level === 0 ? 1 : level;
}
