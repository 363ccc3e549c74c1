/**
 * How an `execute` rule's overrides change the rules of the managed ruleset it runs, with the
 * platform's precedence: rule overrides win over category (tag) overrides, and among category
 * overrides matching one rule, the last in the list wins.
 */
import type { JsonObject, Rule } from '../store';

interface CategoryOverride {
  category: string;
  enabled?: boolean;
  action?: string;
}

interface RuleOverride {
  id: string;
  enabled?: boolean;
  action?: string;
  score_threshold?: number;
}

export interface ExecuteOverrides {
  categories: CategoryOverride[];
  rules: RuleOverride[];
}

export interface EffectiveRule {
  enabled: boolean;
  action: string;
  score_threshold: number | undefined;
  /** The values that overrides put in place (only those that differ from the rule's own or were set). */
  overridden: { enabled?: boolean; action?: string; score_threshold?: number };
}

/** Reads the overrides of execute action parameters; the server checked their shape on write. */
export function readOverrides(parameters: JsonObject | undefined): ExecuteOverrides {
  const overrides = (parameters?.overrides ?? {}) as { categories?: unknown; rules?: unknown };
  const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value.filter((item) => typeof item === 'object' && item !== null) as T[]) : []);
  return { categories: list<CategoryOverride>(overrides.categories), rules: list<RuleOverride>(overrides.rules) };
}

export function effectiveRule(rule: Rule, overrides: ExecuteOverrides): EffectiveRule {
  const overridden: EffectiveRule['overridden'] = {};
  const tags = new Set(rule.categories ?? []);
  for (const category of overrides.categories) {
    if (!tags.has(category.category)) continue;
    if (typeof category.enabled === 'boolean') overridden.enabled = category.enabled;
    if (typeof category.action === 'string') overridden.action = category.action;
  }
  for (const override of overrides.rules) {
    if (override.id !== rule.id) continue;
    if (typeof override.enabled === 'boolean') overridden.enabled = override.enabled;
    if (typeof override.action === 'string') overridden.action = override.action;
    if (typeof override.score_threshold === 'number') overridden.score_threshold = override.score_threshold;
  }
  return {
    enabled: overridden.enabled ?? rule.enabled,
    action: overridden.action ?? rule.action,
    score_threshold: rule.score_threshold === undefined ? undefined : (overridden.score_threshold ?? rule.score_threshold),
    overridden,
  };
}

/** A zone or account rule as it is, without overrides. */
export function ownRule(rule: Rule): EffectiveRule {
  return { enabled: rule.enabled, action: rule.action, score_threshold: rule.score_threshold, overridden: {} };
}

const PARANOIA_TAG = /^paranoia-level-(\d+)$/;

/**
 * The paranoia level the overrides deploy: the highest level N such that the tags of levels 1
 * to N stay enabled; null when the ruleset's rules carry no paranoia tags.
 */
export function paranoiaLevel(rules: readonly Rule[], overrides: ExecuteOverrides): number | null {
  const levels = new Set(rules.flatMap((rule) => (rule.categories ?? []).map((tag) => Number(PARANOIA_TAG.exec(tag)?.[1] ?? NaN))).filter((n) => n > 0));
  if (levels.size === 0) return null;
  const enabledByTag = new Map<string, boolean>();
  for (const category of overrides.categories) if (typeof category.enabled === 'boolean') enabledByTag.set(category.category, category.enabled);
  let level = 0;
  while (levels.has(level + 1) && enabledByTag.get(`paranoia-level-${level + 1}`) !== false) level++;
  return level;
}
