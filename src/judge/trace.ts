/**
 * What the engine reports about one judgment: each phase, ruleset and rule it went through (when
 * traced), the rules that matched, the OWASP score, the rule that ended the request. Field names
 * are snake_case like the management API's: the simulator answers these objects unchanged.
 */
/** A scalar of a simulated context as JSON carries it: `Bytes` and `Ip` a string, `Int` a number, `Bool`. */
type ContextScalar = string | number | boolean;

/**
 * A field's value in a simulated context: a FieldValue of the rules language with nothing JSON
 * cannot carry (no bigint, no byte array), nested no deeper than the language nests
 * (`Array<Array<Bytes>>`, `Map<Array<Bytes>>`); the document's SimulationFieldValue.
 */
export type ContextValue = ContextScalar | (ContextScalar | ContextScalar[])[] | { [key: string]: ContextScalar | ContextScalar[] };

/** What happened to one rule: `not_reached` after a terminating action, `skipped` by a skip rule. */
export type RuleOutcome = 'matched' | 'not_matched' | 'disabled' | 'skipped' | 'not_reached' | 'invalid_expression';

export interface RuleTrace {
  id: string;
  ref: string;
  description: string;
  expression: string;
  /** The action in effect (after overrides). */
  action: string;
  /** Whether the rule is enabled (after overrides). */
  enabled: boolean;
  outcome: RuleOutcome;
  categories?: string[];
  /** Points a match adds to the threat score. */
  score?: number;
  /** The threshold in effect on the threshold rule of a scored ruleset. */
  score_threshold?: number;
  /** What the overrides of the executing rule changed on this managed rule. */
  overridden?: { enabled?: boolean; action?: string; score_threshold?: number };
  /** Why the outcome is what it is, where that is not obvious. */
  note?: string;
  /** For an `execute` rule that matched: the managed ruleset it ran. */
  execution?: ExecutionTrace;
}

export interface RulesetTrace {
  id: string;
  name: string;
  /** `root` (account entry point), `zone` (zone entry point) or `managed`. */
  kind: string;
  phase: string;
  version: string;
  rules: RuleTrace[];
}

export interface ExecutionTrace {
  ruleset_id: string;
  /** `latest` or the version the execute rule names. */
  requested_version: string;
  /** Null when that ruleset or version does not exist. */
  ruleset: RulesetTrace | null;
  /** The threat score, for a ruleset that scores (the OWASP core ruleset). */
  score: ScoreTrace | null;
  note?: string;
}

export interface ScoreContribution {
  rule_id: string;
  ref: string;
  description: string;
  score: number;
}

export interface ScoreTrace {
  total: number;
  contributions: ScoreContribution[];
  threshold: number;
  /** The threshold the ruleset itself sets on its last rule. */
  default_threshold: number;
  threshold_overridden: boolean;
  /** The total is greater than the threshold. */
  exceeded: boolean;
  threshold_rule_id: string;
  threshold_rule_enabled: boolean;
  /** The action of the threshold rule in effect (after overrides). */
  action: string;
  /** The highest paranoia level whose tag and every lower level's stay enabled; null without such tags. */
  paranoia_level: number | null;
}

export type PhaseStatus = 'evaluated' | 'no_entry_point' | 'skipped' | 'not_reached' | 'inactive' | 'no_response';

export interface PhaseTrace {
  phase: string;
  status: PhaseStatus;
  note?: string;
  rulesets: RulesetTrace[];
}

/** Where a rule lives, for the final action and the rules that matched. */
export interface RuleLocation {
  phase: string;
  ruleset_id: string;
  ruleset_name: string;
  rule_id: string;
  ref: string;
  description: string;
  action: string;
}

export interface FinalOutcome {
  /** The terminating action that ended the request, or null when none did. */
  action: string | null;
  rule: RuleLocation | null;
  /** The status the client gets: the action's, else the described response's; null when unknown. */
  status: number | null;
}

export interface OwaspOutcome {
  ruleset_id: string;
  ruleset_version: string;
  /** The zone rule that executed the ruleset. */
  execute_rule_id: string;
  score: ScoreTrace;
}

export type CustomFieldKind = 'request_header' | 'response_header' | 'cookie';
