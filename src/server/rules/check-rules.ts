import { type Expression, phaseViolations, validate } from '../../filter';
import type { JsonObject, Repositories, Rule, RuleInput, Ruleset } from '../../store';
import { ApiError, Codes, type ErrorItem } from '../http/errors';

/** At most this many custom log fields per zone, across request headers, response headers and cookies. */
export const MAX_CUSTOM_FIELDS = 40;

const actionsByPhase: Record<string, readonly string[]> = {
  http_log_custom_fields: ['log_custom_field'],
  http_request_firewall_managed: ['execute', 'skip', 'log'],
  http_response_firewall_managed: ['execute', 'skip', 'log'],
  http_request_firewall_custom: ['block', 'managed_challenge', 'js_challenge', 'challenge', 'log', 'skip', 'execute'],
};

export interface RuleCheckScope {
  /** The phase and kind of the ruleset the rules go into. */
  phase: string;
  kind: string;
  /** The account whose managed rulesets `execute` rules may name. */
  accountId: string;
  repositories: Repositories;
}

type CheckedRule = Pick<RuleInput, 'action' | 'action_parameters' | 'expression'>;

/** Phases whose rulesets hold a limited number of rules: the most, as the platform says it. */
const ruleLimits: Record<string, { max: number; held: string }> = { http_log_custom_fields: { max: 1, held: 'one log_custom_field rule' } };

/** The most rules a ruleset of the phase may hold; undefined where the phase has no limit. */
export function maxRules(phase: string): number | undefined {
  return ruleLimits[phase]?.max;
}

/** A ruleset of `phase` given `count` rules, more than its phase allows. */
export function tooManyRules(phase: string, count: number): ErrorItem {
  return { code: Codes.ruleConstraint, message: `the ${phase} ruleset holds ${ruleLimits[phase]?.held ?? `at most ${maxRules(phase)} rules`}, not ${count}` };
}

/** Checks rules for a ruleset; throws one ApiError listing every violation (400). */
export async function checkRules(rules: readonly CheckedRule[], scope: RuleCheckScope, label = (i: number) => `rules[${i}]`): Promise<void> {
  const errors: ErrorItem[] = [];
  const allowed = actionsByPhase[scope.phase] ?? [];
  const max = maxRules(scope.phase);
  if (max !== undefined && rules.length > max) errors.push(tooManyRules(scope.phase, rules.length));
  for (const [i, rule] of rules.entries()) {
    const at = label(i);
    const parsed = validate(rule.expression);
    if (!parsed.ok) errors.push({ code: Codes.invalidExpression, message: `${at}.expression: ${parsed.error.message}` });
    else errors.push(...phaseFunctionErrors(parsed.ast, rule.expression, scope.phase, at));
    if (!allowed.includes(rule.action)) {
      errors.push({
        code: Codes.ruleConstraint,
        message: `${at}.action: '${rule.action}' is not allowed in phase ${scope.phase} (allowed: ${allowed.join(', ')})`,
      });
      continue;
    }
    if (rule.action === 'log_custom_field') errors.push(...checkCustomFields(rule, scope, at));
    if (rule.action === 'execute') errors.push(...(await checkExecute(rule.action_parameters ?? {}, scope, at)));
  }
  if (errors.length > 0) throw new ApiError(400, errors);
}

/** Functions the platform allows only in other phases (validate-expr, which has no phase, accepts them). */
function phaseFunctionErrors(ast: Expression, expression: string, phase: string, at: string): ErrorItem[] {
  return phaseViolations(ast, phase).map(({ name, span, allowed }) => {
    const before = expression.slice(0, span.start);
    const line = before.split('\n').length;
    const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
    return {
      code: Codes.invalidExpression,
      message: `${at}.expression: function ${name} (line ${line}, column ${column}) is not allowed in phase ${phase}; it is allowed only in ${allowed.join(', ')}`,
    };
  });
}

function checkCustomFields(rule: CheckedRule, scope: RuleCheckScope, at: string): ErrorItem[] {
  const errors: string[] = [];
  if (scope.kind !== 'zone') errors.push(`${at}: log_custom_field rules belong to the zone entry point ruleset of phase http_log_custom_fields`);
  if (rule.expression !== 'true') errors.push(`${at}.expression: a log_custom_field rule must have the expression "true", not "${rule.expression}"`);
  const parameters = (rule.action_parameters ?? {}) as Record<string, { name: string }[] | undefined>;
  let total = 0;
  for (const key of ['request_fields', 'response_fields', 'cookie_fields']) {
    const fields = parameters[key] ?? [];
    total += fields.length;
    const seen = new Set<string>();
    for (const [j, field] of fields.entries()) {
      if (key !== 'cookie_fields' && field.name !== field.name.toLowerCase()) {
        errors.push(`${at}.action_parameters.${key}[${j}].name: header names must be lower case ("${field.name.toLowerCase()}", not "${field.name}")`);
      }
      if (seen.has(field.name)) errors.push(`${at}.action_parameters.${key}[${j}].name: "${field.name}" is listed twice`);
      seen.add(field.name);
    }
  }
  if (total === 0) errors.push(`${at}.action_parameters: at least one of request_fields, response_fields and cookie_fields must list a field`);
  if (total > MAX_CUSTOM_FIELDS) errors.push(`${at}.action_parameters: ${total} custom fields, but a zone may log at most ${MAX_CUSTOM_FIELDS}`);
  return errors.map((message) => ({ code: Codes.ruleConstraint, message }));
}

interface RulesetIndex {
  tags: ReadonlySet<string>;
  byId: ReadonlyMap<string, Rule>;
}

/** Tags and rules by id of a managed ruleset; the store's rulesets are frozen, so indexed once. */
const indexes = new WeakMap<Ruleset, RulesetIndex>();

function indexOf(ruleset: Ruleset): RulesetIndex {
  let index = indexes.get(ruleset);
  if (!index) {
    index = { tags: new Set(ruleset.rules.flatMap((rule) => rule.categories ?? [])), byId: new Map(ruleset.rules.map((rule) => [rule.id, rule])) };
    if (Object.isFrozen(ruleset)) indexes.set(ruleset, index);
  }
  return index;
}

async function checkExecute(parameters: JsonObject, scope: RuleCheckScope, at: string): Promise<ErrorItem[]> {
  const errors: string[] = [];
  const id = String(parameters.id ?? '');
  const version = String(parameters.version ?? 'latest');
  const accountScope = { account_id: scope.accountId };
  const latest = await scope.repositories.rulesets.get(accountScope, id);
  if (!latest || latest.kind !== 'managed') {
    return [{ code: Codes.ruleConstraint, message: `${at}.action_parameters.id: no managed ruleset ${id} in account ${scope.accountId}` }];
  }
  if (latest.phase !== scope.phase) {
    errors.push(`${at}.action_parameters.id: ruleset ${id} runs in phase ${latest.phase}, not ${scope.phase}`);
  }
  const target: Ruleset | null = version === 'latest' ? latest : await scope.repositories.rulesets.getVersion(accountScope, id, version);
  if (!target) {
    errors.push(`${at}.action_parameters.version: ruleset ${id} has no version ${version} (latest is ${latest.version})`);
    return errors.map((message) => ({ code: Codes.ruleConstraint, message }));
  }
  const overrides = (parameters.overrides ?? {}) as {
    categories?: { category: string }[];
    rules?: { id: string; score_threshold?: number }[];
  };
  const { tags, byId } = indexOf(target);
  for (const [j, override] of (overrides.categories ?? []).entries()) {
    if (!tags.has(override.category)) {
      errors.push(`${at}.action_parameters.overrides.categories[${j}].category: no rule of ruleset ${id} carries the tag "${override.category}"`);
    }
  }
  const overridden = new Set<string>();
  for (const [j, override] of (overrides.rules ?? []).entries()) {
    const where = `${at}.action_parameters.overrides.rules[${j}]`;
    const rule = byId.get(override.id);
    if (!rule) errors.push(`${where}.id: ruleset ${id} (version ${target.version}) has no rule ${override.id}`);
    else if (override.score_threshold !== undefined && rule.score_threshold === undefined) {
      errors.push(`${where}.score_threshold: rule ${override.id} has no score threshold (only the last rule of a scoring ruleset has one)`);
    }
    if (overridden.has(override.id)) errors.push(`${where}.id: rule ${override.id} is overridden twice`);
    overridden.add(override.id);
  }
  return errors.map((message) => ({ code: Codes.ruleConstraint, message }));
}
