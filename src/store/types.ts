import type { components } from '../../generated/api';

/**
 * Domain records as the management API shows them: field names and shapes are the API's
 * (snake_case), so the server can answer with these objects unchanged.
 */

/** ISO 8601 UTC with microseconds, e.g. `2026-11-21T10:00:00.123456Z`. */
export type Timestamp = string;

export type JsonObject = { [key: string]: unknown };

export interface Account {
  id: string;
  name: string;
  type: string;
  settings: JsonObject;
  created_on: Timestamp;
}

export interface User {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  username: string;
  telephone: string | null;
  country: string | null;
  zipcode: string | null;
  two_factor_authentication_enabled: boolean;
  suspended: boolean;
  created_on: Timestamp;
  modified_on: Timestamp;
}

export const INVITATION_STATUSES = ['pending', 'accepted', 'rejected', 'expired'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];
export const INVITATION_ANSWERS = ['accepted', 'rejected'] as const;
export type InvitationAnswer = (typeof INVITATION_ANSWERS)[number];

export interface InvitationRole {
  id: string;
  name: string;
  description: string;
  permissions: Record<string, { read: boolean; write: boolean }>;
}

export interface Invitation {
  id: string;
  invited_member_id: string | null;
  invited_member_email: string;
  organization_id: string;
  organization_name: string;
  organization_is_enforcing_twofactor: boolean;
  roles: InvitationRole[];
  invited_by: string;
  invited_on: Timestamp;
  expires_on: Timestamp;
  status: InvitationStatus;
}

/** Zone records are exactly the API's (the document is the source of the shape and its enums). */
export type Zone = components['schemas']['Zone'];
export type ZonePlan = components['schemas']['ZonePlan'];
export type ZoneOwner = Zone['owner'];

/**
 * Text matching of the zone list's `name` and `account.name` filters, as the real service
 * spells it: `<operator>:<value>`, or a bare value for `equal`. Only the `_case_sensitive`
 * operators (and `equal`/`not_equal` on names, which are lower case) compare case.
 */
export const TEXT_OPERATORS = [
  'equal',
  'not_equal',
  'starts_with',
  'ends_with',
  'contains',
  'starts_with_case_sensitive',
  'ends_with_case_sensitive',
  'contains_case_sensitive',
] as const;
export type TextOperator = (typeof TEXT_OPERATORS)[number];
export interface TextFilter {
  operator: TextOperator;
  value: string;
}

export interface ZoneListFilter {
  account_id?: string;
  account_name?: TextFilter;
  name?: TextFilter;
  status?: string;
  /** `all` (the default): every filter given must hold; `any`: at least one. */
  match?: 'all' | 'any';
  /** Only zones listed here or belonging to an account listed here (what a scoped credential reaches). */
  within?: { zone_ids: readonly string[]; account_ids: readonly string[] };
}

export const MIGRATION_STATES = ['start', 'validation', 'finished'] as const;
/** `start`: previous WAF only; `validation`: both run (Enterprise); `finished`: new WAF only. */
export type MigrationState = (typeof MIGRATION_STATES)[number];

export interface ZoneWafState {
  zone_id: string;
  migration_state: MigrationState;
  old_managed_rules_enabled: boolean;
  new_managed_rules_enabled: boolean;
  modified_on: Timestamp;
}

/** A package of the previous WAF (the OWASP package carries sensitivity and action mode). */
export interface PreviousWafPackage {
  id: string;
  name: string;
  description: string;
  detection_mode: 'anomaly' | 'traditional';
  sensitivity: 'high' | 'medium' | 'low' | 'off' | null;
  action_mode: 'simulate' | 'block' | 'challenge' | null;
}

/** A rule-level or group-level setting changed from its default in a previous-WAF package. */
export interface PreviousWafOverride {
  package_id: string;
  level: 'rule' | 'group';
  target_id: string;
  description: string;
  mode: string;
}

/** A URI-based WAF override (previous WAF, API only); its presence blocks the migration. */
export interface UriWafOverride {
  id: string;
  urls: string[];
  paused: boolean;
  description: string;
  priority: number;
  rules: Record<string, string>;
  groups: Record<string, string>;
  rewrite_action: Record<string, string> | null;
}

/** A URI-based override as a writer sends it; the store adds the id. */
export type UriWafOverrideInput = Omit<UriWafOverride, 'id'>;

/** New global settings of the OWASP package; fields left out stay. */
export interface PreviousWafPackagePatch {
  sensitivity?: NonNullable<PreviousWafPackage['sensitivity']>;
  action_mode?: NonNullable<PreviousWafPackage['action_mode']>;
}

export interface PreviousFirewallRule {
  id: string;
  expression: string;
  action: string;
  /** Products a `bypass` rule skips, e.g. `["waf"]`; empty for other actions. */
  products: string[];
  paused: boolean;
  description: string;
  priority: number | null;
}

export interface PageRule {
  id: string;
  targets: { target: string; constraint: { operator: string; value: string } }[];
  actions: { id: string; value?: unknown }[];
  priority: number;
  status: 'active' | 'disabled';
  created_on: Timestamp;
  modified_on: Timestamp;
}

/** Everything of the previous WAF that the migration reads. */
export interface PreviousWafConfig {
  packages: PreviousWafPackage[];
  overrides: PreviousWafOverride[];
  uri_overrides: UriWafOverride[];
  firewall_rules: PreviousFirewallRule[];
  page_rules: PageRule[];
}

export interface Certificate {
  id: string;
  hosts: string[];
  issuer: string;
  signature: string;
  status: string;
  bundle_method: string;
  zone_id: string;
  uploaded_on: Timestamp;
  modified_on: Timestamp;
  expires_on: Timestamp;
  priority: number | null;
}

export interface CertificatePack {
  id: string;
  type: string;
  hosts: string[];
  primary_certificate: string | null;
  status: string;
  certificates: Certificate[];
  created_on: Timestamp;
  validity_days: number;
  validation_method: string;
  certificate_authority: string;
}

/** The parts of a rule a writer chooses; the store adds id, version and last_updated. */
export interface RuleFields {
  action: string;
  action_parameters?: JsonObject;
  expression: string;
  description: string;
  ref: string;
  enabled: boolean;
  /** Tags of managed rules: paranoia level and attack categories. */
  categories?: string[];
  /** Points a matching OWASP rule adds to the request's threat score. */
  score?: number;
  score_threshold?: number;
  logging?: { enabled: boolean };
}

export interface Rule extends RuleFields {
  id: string;
  /** Numeric string; increments each time this rule changes. */
  version: string;
  last_updated: Timestamp;
}

export interface RulesetSummary {
  id: string;
  name: string;
  description: string;
  kind: string;
  phase: string;
  source?: string;
  /** Numeric string; increments exactly once per write transaction touching the ruleset. */
  version: string;
  last_updated: Timestamp;
}

export interface Ruleset extends RulesetSummary {
  rules: Rule[];
}

/**
 * A rule as a writer sends it. An `id` naming a rule already in the ruleset keeps that rule
 * (and its version when nothing changed); any other rule gets a new id.
 */
export interface RuleInput {
  id?: string;
  action: string;
  action_parameters?: JsonObject;
  expression: string;
  description?: string;
  /** Defaults to the rule's id, as the real service does. */
  ref?: string;
  enabled?: boolean;
  categories?: string[];
  score?: number;
  score_threshold?: number;
  logging?: { enabled: boolean };
}

/** A partial rule update: absent fields stay, `null` removes an optional field. */
export interface RulePatch {
  action?: string;
  action_parameters?: JsonObject | null;
  expression?: string;
  description?: string;
  ref?: string;
  enabled?: boolean;
  categories?: string[] | null;
  score?: number | null;
  score_threshold?: number | null;
  logging?: { enabled: boolean } | null;
}

/**
 * Where one rule goes among the others: before or after another rule (an empty id means first
 * or last), or at a 1-based index.
 */
export type RulePosition = { before: string } | { after: string } | { index: number };

export interface RulesetInput {
  name: string;
  kind: string;
  phase: string;
  description?: string;
  rules?: RuleInput[];
}

export interface RulesetUpdate {
  name?: string;
  description?: string;
  rules: RuleInput[];
}

/** Where a ruleset lives. Account scope also sees the platform's managed rulesets. */
export type RulesetScope = { account_id: string } | { zone_id: string };

export type LogpushOutputOptions = NonNullable<components['schemas']['LogpushOutputOptions']>;

/** A log push job as the API has it, plus what the store also keeps. */
export type LogpushJob = components['schemas']['LogpushJob'] & { kind: string; created_on: Timestamp };

export interface LogpushJobInput {
  name?: string | null;
  dataset: string;
  destination_conf: string;
  logpull_options?: string | null;
  /** The structured replacement for `logpull_options`; null clears them. */
  output_options?: LogpushOutputOptions | null;
  enabled?: boolean;
  frequency?: LogpushJob['frequency'];
  kind?: string;
}

export type LogpushJobPatch = Partial<Omit<LogpushJobInput, 'dataset'>>;

/* Paging: what a list is asked for and what a page of it answers, as the API has them. */

export const DEFAULT_PER_PAGE = 20;
/** The most rows one page may hold; larger pages are refused rather than silently cut. */
export const MAX_PER_PAGE = 1000;

export type SortDirection = 'asc' | 'desc';

/** Paging as the API's query string has it. Direction is accepted in either case. */
export interface PageRequest<Order extends string = string> {
  page?: number;
  per_page?: number;
  order?: Order;
  direction?: SortDirection | 'ASC' | 'DESC';
}

/** The numbers the API puts in `result_info`. */
export interface ResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
}

export interface Page<T> {
  items: T[];
  result_info: ResultInfo;
}
