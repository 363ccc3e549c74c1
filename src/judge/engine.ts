/**
 * Judges a request against a zone's deployment with the platform's semantics: the entry points of
 * each phase in order (the account's before the zone's), `execute` running a managed ruleset with
 * its overrides, OWASP-style scoring against the threshold, terminating actions ending the request,
 * `log` going on, and `skip` skipping the rest of a ruleset, later phases or named rules. The same
 * judgment serves the edge (untraced, for speed) and the simulator (traced: every phase, ruleset
 * and rule with what happened to it).
 */
import { EvaluationScope, type RequestContext } from '../filter';
import type { CompiledRule, CompiledRuleset } from './compiled';
import { type DeployedRuleset, type Execution, MANAGED_PHASES, REQUEST_PHASES, RESPONSE_PHASES, type ZoneDeployment } from './deployment';
import type { EffectiveRule } from './managed-overrides';
import type { ExecutionTrace, OwaspOutcome, PhaseTrace, RuleLocation, RuleTrace, RulesetTrace, ScoreContribution, ScoreTrace } from './trace';

/** Actions that end the request; a client of this platform never solves a challenge. */
const TERMINATING_ACTIONS: ReadonlySet<string> = new Set(['block', 'managed_challenge', 'js_challenge', 'challenge']);
const DEFAULT_TERMINATING_STATUS = 403;

/** The rule that ended the request and the edge's answer. */
export interface Termination {
  rule: RuleLocation;
  status: number;
  contentType: string;
  /** The block rule's custom response body; null for the platform's own page. */
  content: string | null;
}

/** A rule whose expression could not be evaluated: the edge never lets such a request through unjudged. */
export interface RuleFailure {
  rule: RuleLocation;
  message: string;
}

interface Tally {
  total: number;
  contributions: ScoreContribution[];
}

export interface JudgeOptions {
  /** Record every phase, ruleset and rule (the simulator); the edge leaves it off. */
  trace?: boolean;
}

/**
 * One request's judgment, phase by phase: `requestPhases` before the request goes on, then
 * `responsePhase` once the answer's head is known (or with null when there is none to judge).
 */
export class Judgment {
  terminated: Termination | null = null;
  /** Every rule that matched and acted (log, skip or terminating), in evaluation order. */
  readonly matched: RuleLocation[] = [];
  readonly scores: OwaspOutcome[] = [];
  readonly failures: RuleFailure[] = [];
  readonly warnings: string[] = [];
  /** Only when traced. */
  readonly phases: PhaseTrace[] = [];
  private readonly skippedPhases = new Map<string, RuleLocation>();
  private readonly skippedRules = new Map<string, Map<string, RuleLocation>>();
  private readonly traced: boolean;

  constructor(
    private readonly deployment: ZoneDeployment,
    options: JudgeOptions = {},
  ) {
    this.traced = options.trace ?? false;
  }

  requestPhases(context: RequestContext): this {
    const scope = new EvaluationScope(context);
    for (const phase of REQUEST_PHASES) this.phase(phase, scope);
    return this;
  }

  /** The response phase over the request context plus the response fields; null: no response to judge. */
  responsePhase(context: RequestContext | null): this {
    const scope = context === null ? null : new EvaluationScope(context);
    for (const phase of RESPONSE_PHASES) this.phase(phase, scope);
    return this;
  }

  private phase(phase: string, scope: EvaluationScope | null): void {
    const done = (trace: PhaseTrace) => {
      if (this.traced) this.phases.push(trace);
    };
    if (this.terminated) return done({ phase, status: 'not_reached', note: `the request ended in ${this.terminated.rule.phase}`, rulesets: [] });
    const skippedBy = this.skippedPhases.get(phase);
    if (skippedBy) return done({ phase, status: 'skipped', note: `skipped by rule ${describeLocation(skippedBy)}`, rulesets: [] });
    if (scope === null) return done({ phase, status: 'no_response', note: 'no response was described', rulesets: [] });
    if (MANAGED_PHASES.has(phase) && !this.deployment.managedRulesActive) {
      return done({ phase, status: 'inactive', note: 'the zone still runs the previous WAF (not judged); the new managed rules are not enabled', rulesets: [] });
    }
    const entryPoints = this.deployment.phases.get(phase) ?? [];
    if (entryPoints.length === 0) return done({ phase, status: 'no_entry_point', rulesets: [] });
    const rulesets: RulesetTrace[] = [];
    for (const deployed of entryPoints) {
      const trace = this.ruleset(deployed.compiled, deployed.effective, phase, scope, null, deployed);
      if (trace) rulesets.push(trace);
    }
    done({ phase, status: 'evaluated', rulesets });
  }

  /** Runs one ruleset; `deployed` is given for an entry point (whose execute rules run), `tally` for a scoring ruleset. */
  private ruleset(
    ruleset: CompiledRuleset,
    effective: readonly EffectiveRule[],
    phase: string,
    scope: EvaluationScope,
    tally: Tally | null,
    deployed: DeployedRuleset | null,
  ): RulesetTrace | null {
    const traces: RuleTrace[] | null = this.traced ? [] : null;
    const skippedHere = this.skippedRules.get(ruleset.id);
    let skipRestBy: RuleLocation | null = null;
    for (let i = 0; i < ruleset.rules.length; i++) {
      const compiled = ruleset.rules[i]!;
      const rule = compiled.rule;
      const ruleEffect = effective[i]!;
      // Untraced, nothing after a terminating action or a skip of the rest needs a look.
      if (traces === null && (this.terminated || skipRestBy)) break;
      const trace = traces === null ? null : baseTrace(compiled, ruleEffect);
      const skippedBy = skipRestBy ?? skippedHere?.get(rule.id);
      if (this.terminated) {
        trace!.outcome = 'not_reached';
      } else if (skippedBy) {
        if (trace) {
          trace.outcome = 'skipped';
          trace.note = `skipped by rule ${describeLocation(skippedBy)}`;
        }
      } else if (!ruleEffect.enabled) {
        if (trace) trace.outcome = 'disabled';
      } else {
        const match = this.matches(compiled, scope, phase, ruleset, ruleEffect.action);
        if (typeof match === 'string') {
          if (trace) {
            trace.outcome = 'invalid_expression';
            trace.note = match;
          }
        } else {
          const matched = match && (tally === null || ruleEffect.score_threshold === undefined || exceeds(tally, ruleEffect.score_threshold, trace));
          if (trace) trace.outcome = matched ? 'matched' : 'not_matched';
          if (matched) {
            if (tally && rule.score !== undefined) {
              tally.total += rule.score;
              tally.contributions.push({ rule_id: rule.id, ref: rule.ref, description: rule.description, score: rule.score });
            }
            const location = locate(phase, ruleset, rule.id, rule.ref, rule.description, ruleEffect.action);
            if (this.act(deployed, compiled, location, trace, scope) === 'skip_rest') skipRestBy = location;
          }
        }
      }
      if (traces !== null && trace !== null) traces.push(trace);
    }
    if (traces === null) return null;
    return { id: ruleset.id, name: ruleset.name, kind: ruleset.kind, phase: ruleset.phase, version: ruleset.version, rules: traces };
  }

  private act(deployed: DeployedRuleset | null, compiled: CompiledRule, location: RuleLocation, trace: RuleTrace | null, scope: EvaluationScope): 'skip_rest' | undefined {
    const action = location.action;
    if (action === 'execute') {
      const execution = deployed?.executions.get(compiled.rule.id);
      if (!execution) {
        if (trace) trace.note = 'a managed ruleset cannot execute another ruleset; nothing ran';
      } else {
        const ran = this.execute(execution, compiled, location.phase, scope);
        if (trace && ran) trace.execution = ran;
      }
      return undefined;
    }
    this.matched.push(location);
    if (TERMINATING_ACTIONS.has(action)) {
      this.terminated = { rule: location, ...edgeAnswer(compiled, action) };
    } else if (action === 'skip') {
      return this.skip(compiled, location);
    } else if (action !== 'log') {
      this.warnings.push(`rule ${describeLocation(location)}: action ${action} is not carried out here; it was treated as log`);
    }
    return undefined;
  }

  private skip(compiled: CompiledRule, location: RuleLocation): 'skip_rest' | undefined {
    const parameters = (compiled.rule.action_parameters ?? {}) as { ruleset?: unknown; phases?: unknown; rules?: unknown };
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

  private execute(execution: Execution, compiled: CompiledRule, phase: string, scope: EvaluationScope): ExecutionTrace | null {
    const { rulesetId: id, requestedVersion: version, target } = execution;
    const rule = compiled.rule;
    if (target === null) {
      const note = `ruleset ${id}${version === 'latest' ? '' : ` version ${version}`} does not exist for this zone's account; nothing ran`;
      this.warnings.push(`rule ${rule.id}: ${note}`);
      return { ruleset_id: id, requested_version: version, ruleset: null, score: null, note };
    }
    const thresholdRule = execution.thresholdIndex === -1 ? null : target.rules[execution.thresholdIndex]!.rule;
    const tally: Tally | null = thresholdRule ? { total: 0, contributions: [] } : null;
    const trace = this.ruleset(target, execution.effective, phase, scope, tally, null);
    let score: ScoreTrace | null = null;
    if (thresholdRule && tally) {
      const effective = execution.effective[execution.thresholdIndex]!;
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
        paranoia_level: execution.paranoiaLevel,
      };
      this.scores.push({ ruleset_id: target.id, ruleset_version: target.version, execute_rule_id: rule.id, score });
    }
    return this.traced ? { ruleset_id: id, requested_version: version, ruleset: trace, score } : null;
  }

  /** Whether the expression matches, or why it cannot be evaluated (recorded as a failure). */
  private matches(compiled: CompiledRule, scope: EvaluationScope, phase: string, ruleset: CompiledRuleset, action: string): boolean | string {
    let problem = compiled.problem;
    if (compiled.filter !== null) {
      try {
        return compiled.filter.evaluate(scope);
      } catch (error) {
        problem = `the expression failed while evaluated: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    const rule = compiled.rule;
    this.failures.push({ rule: locate(phase, ruleset, rule.id, rule.ref, rule.description, action), message: problem! });
    return problem!;
  }
}

/** Runs every phase: the request's, then the response's over `responseContext` (null: no response to judge). */
export function judge(deployment: ZoneDeployment, requestContext: RequestContext, responseContext: RequestContext | null, options: JudgeOptions = {}): Judgment {
  const judgment = new Judgment(deployment, options).requestPhases(requestContext);
  return judgment.responsePhase(responseContext);
}

/** The threshold rule of a scored ruleset matches only when the total is greater than its threshold. */
function exceeds(tally: Tally, threshold: number, trace: RuleTrace | null): boolean {
  const exceeded = tally.total > threshold;
  if (trace) trace.note = `threat score ${tally.total} is ${exceeded ? '' : 'not '}above the threshold ${threshold}`;
  return exceeded;
}

function locate(phase: string, ruleset: CompiledRuleset, ruleId: string, ref: string, description: string, action: string): RuleLocation {
  return { phase, ruleset_id: ruleset.id, ruleset_name: ruleset.name, rule_id: ruleId, ref, description, action };
}

function baseTrace({ rule }: CompiledRule, effective: EffectiveRule): RuleTrace {
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
function edgeAnswer({ rule }: CompiledRule, action: string): Omit<Termination, 'rule'> {
  const custom = action === 'block' ? ((rule.action_parameters?.response ?? null) as { status_code?: unknown; content_type?: unknown; content?: unknown } | null) : null;
  return {
    status: typeof custom?.status_code === 'number' ? custom.status_code : DEFAULT_TERMINATING_STATUS,
    contentType: typeof custom?.content_type === 'string' ? custom.content_type : 'text/html',
    content: typeof custom?.content === 'string' ? custom.content : null,
  };
}

export function describeLocation(location: RuleLocation): string {
  const label = location.description || location.ref;
  return `${location.rule_id}${label ? ` (${label})` : ''} of ruleset ${location.ruleset_name || location.ruleset_id}`;
}
