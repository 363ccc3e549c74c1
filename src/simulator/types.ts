/**
 * The result of a simulation. Field names are snake_case like the management API's, since
 * the extension operation answers this object unchanged. The judgment's own parts (phases,
 * rulesets, rules, scores) are the engine's traces.
 */
import type { ContextValue, CustomFieldKind, FinalOutcome, OwaspOutcome, PhaseTrace, RuleLocation } from '../judge';

export type {
  ContextValue,
  CustomFieldKind,
  ExecutionTrace,
  FinalOutcome,
  OwaspOutcome,
  PhaseStatus,
  PhaseTrace,
  RuleLocation,
  RuleOutcome,
  RuleTrace,
  RulesetTrace,
  ScoreContribution,
  ScoreTrace,
} from '../judge';

export interface CustomFieldsTrace {
  /** The zone's http_log_custom_fields entry point, if any. */
  ruleset_id: string | null;
  /** Logged fields, in configuration order (at most 40). */
  configured: { kind: CustomFieldKind; name: string }[];
  /** Fields configured beyond the 40th: never logged. */
  ignored: { kind: CustomFieldKind; name: string }[];
  /** Values cut to 8 KB, as `RequestHeaders.<name>`, `ResponseHeaders.<name>`, `Cookies.<name>`. */
  truncated: string[];
}

export interface LogEntryTrace {
  job: { id: number; name: string | null; enabled: boolean };
  /** The fields the job selects, in its order. */
  fields: string[];
  entry: Record<string, unknown>;
  /** Selected fields a simulation cannot know (they answer null in the entry). */
  unavailable: string[];
}

export interface LogTrace {
  custom_fields: CustomFieldsTrace;
  /** One entry per log push job of the zone for the http_requests dataset. */
  entries: LogEntryTrace[];
}

export interface SimulationResult {
  zone: { id: string; name: string };
  request: { method: string; url: string; http_version: string; client_ip: string | null; ray_id: string; timestamp: string };
  /** Every field the rules saw (response fields only when a response was described). */
  context: Record<string, ContextValue>;
  phases: PhaseTrace[];
  owasp: OwaspOutcome | null;
  outcome: FinalOutcome;
  /** Every rule that matched and acted (log, skip or terminating), in evaluation order. */
  matched_rules: RuleLocation[];
  log: LogTrace;
  warnings: string[];
}
