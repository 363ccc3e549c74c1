/**
 * Runs a zone's rulesets over a request context with the platform's semantics: the entry
 * points of each phase in order (the account's before the zone's), `execute` running a managed
 * ruleset with its overrides, OWASP-style scoring, terminating actions ending the request,
 * `log` going on, and `skip` skipping the rest of a ruleset, later phases or named rules.
 */
import { type CompiledFilter, type RequestContext, compile, validate } from '../filter';
import type { Rule, Ruleset, Store, Zone } from '../store';
import { type EffectiveRule, effectiveRule, ownRule, paranoiaLevel, readOverrides } from './managed-overrides';
import type {
  ExecutionTrace,
  OwaspOutcome,
  PhaseTrace,
  RuleLocation,
  RuleTrace,
  RulesetTrace,
  ScoreContribution,
  ScoreTrace,
} from './types';

const REQUEST_PHASES = ['http_request_firewall_custom', 'http_request_firewall_managed'] as const;
const RESPONSE_PHASES = ['http_response_firewall_managed'] as const;
const MANAGED_PHASES: ReadonlySet<string> = new Set(['http_request_firewall_managed', 'http_response_firewall_managed']);

/** Actions that end the request; a simulated client never solves a challenge. */
const TERMINATING_ACTIONS: ReadonlySet<string> = new Set(['block', 'managed_challenge', 'js_challenge', 'challenge']);
const DEFAULT_TERMINATING_STATUS = 403;

export interface EngineInput {
  store: Store;
  zone: Zone;
  requestContext: RequestContext;
  /** The request context plus the response fields; null when no response was described. */
  responseContext: RequestContext | null;
  /** False while the zone runs the previous WAF: managed phases are then inactive. */
  managedRulesActive: boolean;
}

export interface EngineOutput {
  phases: PhaseTrace[];
  terminated: Termination | null;
  matched: RuleLocation[];
  scores: OwaspOutcome[];
  warnings: string[];
}

/** The rule that ended the request and the edge's answer. */
export interface Termination {
  rule: RuleLocation;
  status: number;
  contentType: string;
}

interface Tally {
  total: number;
  contributions: ScoreContribution[];
}

export async function runPhases(input: EngineInput): Promise<EngineOutput> {
  const evaluation = new Evaluation(input);
  const phases: PhaseTrace[] = [];
  for (const phase of [...REQUEST_PHASES, ...RESPONSE_PHASES]) {
    const context = (RESPONSE_PHASES as readonly string[]).includes(phase) ? input.responseContext : input.requestContext;
    phases.push(await evaluation.phase(phase, context));
  }
  return { phases, terminated: evaluation.terminated, matched: evaluation.matched, scores: evaluation.scores, warnings: evaluation.warnings };
}

class Evaluation {
  terminated: Termination | null = null;
  readonly matched: RuleLocation[] = [];
  readonly scores: OwaspOutcome[] = [];
  readonly warnings: string[] = [];
  private readonly skippedPhases = new Map<string, RuleLocation>();
  private readonly skippedRules = new Map<string, Map<string, RuleLocation>>();
  private readonly filters = new Map<string, CompiledFilter | string>();

  constructor(private readonly input: EngineInput) {}

  async phase(phase: string, context: RequestContext | null): Promise<PhaseTrace> {
    const { store, zone } = this.input;
    if (this.terminated) {
      return { phase, status: 'not_reached', note: `the request ended in ${this.terminated.rule.phase}`, rulesets: [] };
    }
    const skippedBy = this.skippedPhases.get(phase);
    if (skippedBy) return { phase, status: 'skipped', note: `skipped by rule ${describeLocation(skippedBy)}`, rulesets: [] };
    if (context === null) return { phase, status: 'no_response', note: 'no response was described', rulesets: [] };
    if (MANAGED_PHASES.has(phase) && !this.input.managedRulesActive) {
      return { phase, status: 'inactive', note: 'the zone still runs the previous WAF (not simulated); the new managed rules are not enabled', rulesets: [] };
    }
    const entryPoints = [
      await store.rulesets.getEntryPoint({ account_id: zone.account.id }, phase),
      await store.rulesets.getEntryPoint({ zone_id: zone.id }, phase),
    ].filter((ruleset): ruleset is Ruleset => ruleset !== null);
    if (entryPoints.length === 0) return { phase, status: 'no_entry_point', rulesets: [] };
    const rulesets: RulesetTrace[] = [];
    for (const ruleset of entryPoints) rulesets.push(await this.ruleset(ruleset, phase, context, ownRule, null));
    return { phase, status: 'evaluated', rulesets };
  }

  private async ruleset(
    ruleset: Ruleset,
    phase: string,
    context: RequestContext,
    configure: (rule: Rule) => EffectiveRule,
    tally: Tally | null,
  ): Promise<RulesetTrace> {
    const rules: RuleTrace[] = [];
    let skipRestBy: RuleLocation | null = null;
    for (const rule of ruleset.rules) {
      const effective = configure(rule);
      const trace = baseTrace(rule, effective);
      const skippedBy = skipRestBy ?? this.skippedRules.get(ruleset.id)?.get(rule.id);
      if (this.terminated) {
        trace.outcome = 'not_reached';
      } else if (skippedBy) {
        trace.outcome = 'skipped';
        trace.note = `skipped by rule ${describeLocation(skippedBy)}`;
      } else if (!effective.enabled) {
        trace.outcome = 'disabled';
      } else {
        const match = this.matches(rule.expression, context);
        if (typeof match === 'string') {
          trace.outcome = 'invalid_expression';
          trace.note = match;
        } else {
          const matched = match && (tally === null || effective.score_threshold === undefined || this.exceeds(tally, effective.score_threshold, trace));
          trace.outcome = matched ? 'matched' : 'not_matched';
          if (matched) {
            if (tally && rule.score !== undefined) {
              tally.total += rule.score;
              tally.contributions.push({ rule_id: rule.id, ref: rule.ref, description: rule.description, score: rule.score });
            }
            const location = { phase, ruleset_id: ruleset.id, ruleset_name: ruleset.name, rule_id: rule.id, ref: rule.ref, description: rule.description, action: effective.action };
            if ((await this.act(ruleset, rule, location, trace, context)) === 'skip_rest') skipRestBy = location;
          }
        }
      }
      rules.push(trace);
    }
    return { id: ruleset.id, name: ruleset.name, kind: ruleset.kind, phase: ruleset.phase, version: ruleset.version, rules };
  }

  /** The threshold rule of a scored ruleset matches only when the total is greater than its threshold. */
  private exceeds(tally: Tally, threshold: number, trace: RuleTrace): boolean {
    const exceeded = tally.total > threshold;
    trace.note = `threat score ${tally.total} is ${exceeded ? '' : 'not '}above the threshold ${threshold}`;
    return exceeded;
  }

  private async act(ruleset: Ruleset, rule: Rule, location: RuleLocation, trace: RuleTrace, context: RequestContext): Promise<'skip_rest' | undefined> {
    const action = location.action;
    if (action === 'execute') {
      if (ruleset.kind === 'managed') {
        trace.note = 'a managed ruleset cannot execute another ruleset; nothing ran';
      } else {
        trace.execution = await this.execute(rule, location.phase, context);
      }
      return undefined;
    }
    this.matched.push(location);
    if (TERMINATING_ACTIONS.has(action)) {
      this.terminated = { rule: location, ...edgeAnswer(rule, action) };
    } else if (action === 'skip') {
      return this.skip(rule, location);
    } else if (action !== 'log') {
      this.warnings.push(`rule ${describeLocation(location)}: action ${action} is not simulated; it was treated as log`);
    }
    return undefined;
  }

  private skip(rule: Rule, location: RuleLocation): 'skip_rest' | undefined {
    const parameters = (rule.action_parameters ?? {}) as { ruleset?: unknown; phases?: unknown; rules?: unknown };
    for (const phase of Array.isArray(parameters.phases) ? parameters.phases : []) {
      if (typeof phase === 'string' && !this.skippedPhases.has(phase)) this.skippedPhases.set(phase, location);
    }
    if (typeof parameters.rules === 'object' && parameters.rules !== null) {
      for (const [rulesetId, ruleIds] of Object.entries(parameters.rules)) {
        const skipped = this.skippedRules.get(rulesetId) ?? new Map<string, RuleLocation>();
        for (const id of Array.isArray(ruleIds) ? ruleIds : []) if (typeof id === 'string' && !skipped.has(id)) skipped.set(id, location);
        this.skippedRules.set(rulesetId, skipped);
      }
    }
    return parameters.ruleset === 'current' ? 'skip_rest' : undefined;
  }

  private async execute(rule: Rule, phase: string, context: RequestContext): Promise<ExecutionTrace> {
    const parameters = rule.action_parameters ?? {};
    const id = typeof parameters.id === 'string' ? parameters.id : '';
    const version = typeof parameters.version === 'string' ? parameters.version : 'latest';
    const scope = { account_id: this.input.zone.account.id };
    const managed = version === 'latest' ? await this.input.store.rulesets.get(scope, id) : await this.input.store.rulesets.getVersion(scope, id, version);
    if (managed === null) {
      const note = `ruleset ${id}${version === 'latest' ? '' : ` version ${version}`} does not exist for this zone's account; nothing ran`;
      this.warnings.push(`rule ${rule.id}: ${note}`);
      return { ruleset_id: id, requested_version: version, ruleset: null, score: null, note };
    }
    const overrides = readOverrides(parameters);
    const thresholdRule = managed.rules.findLast((r) => r.score_threshold !== undefined);
    const tally: Tally | null = thresholdRule ? { total: 0, contributions: [] } : null;
    const trace = await this.ruleset(managed, phase, context, (r) => effectiveRule(r, overrides), tally);
    let score: ScoreTrace | null = null;
    if (thresholdRule && tally) {
      const effective = effectiveRule(thresholdRule, overrides);
      const threshold = effective.score_threshold!;
      score = {
        total: tally.total,
        contributions: tally.contributions,
        threshold,
        default_threshold: thresholdRule.score_threshold!,
        threshold_overridden: threshold !== thresholdRule.score_threshold,
        exceeded: tally.total > threshold,
        threshold_rule_id: thresholdRule.id,
        threshold_rule_enabled: effective.enabled,
        action: effective.action,
        paranoia_level: paranoiaLevel(managed.rules, overrides),
      };
      this.scores.push({ ruleset_id: managed.id, ruleset_version: managed.version, execute_rule_id: rule.id, score });
    }
    return { ruleset_id: id, requested_version: version, ruleset: trace, score };
  }

  /** Whether the expression matches, or why it cannot be evaluated. Each expression is compiled once. */
  private matches(expression: string, context: RequestContext): boolean | string {
    let filter = this.filters.get(expression);
    if (filter === undefined) {
      const checked = validate(expression);
      filter = checked.ok ? compile(checked.ast) : checked.error.message;
      this.filters.set(expression, filter);
    }
    return typeof filter === 'string' ? filter : filter.evaluate(context);
  }
}

function baseTrace(rule: Rule, effective: EffectiveRule): RuleTrace {
  return {
    id: rule.id,
    ref: rule.ref,
    description: rule.description,
    expression: rule.expression,
    action: effective.action,
    enabled: effective.enabled,
    outcome: 'not_matched',
    ...(rule.categories ? { categories: rule.categories } : {}),
    ...(rule.score !== undefined ? { score: rule.score } : {}),
    ...(effective.score_threshold !== undefined ? { score_threshold: effective.score_threshold } : {}),
    ...(Object.keys(effective.overridden).length > 0 ? { overridden: effective.overridden } : {}),
  };
}

/** A block rule may answer a custom response (status 400-499); otherwise the edge's page with 403. */
function edgeAnswer(rule: Rule, action: string): { status: number; contentType: string } {
  const custom = action === 'block' ? ((rule.action_parameters?.response ?? null) as { status_code?: unknown; content_type?: unknown } | null) : null;
  return {
    status: typeof custom?.status_code === 'number' ? custom.status_code : DEFAULT_TERMINATING_STATUS,
    contentType: typeof custom?.content_type === 'string' ? custom.content_type : 'text/html',
  };
}

function describeLocation(location: RuleLocation): string {
  const label = location.description || location.ref;
  return `${location.rule_id}${label ? ` (${label})` : ''} of ruleset ${location.ruleset_name || location.ruleset_id}`;
}
