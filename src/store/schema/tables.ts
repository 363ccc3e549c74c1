/**
 * Row shapes of the tables. Only types both engines share are used: booleans are 0/1
 * integers, JSON is TEXT holding JSON, timestamps are ISO strings (they sort as text).
 */

/** 0 or 1. */
export type Flag = number;
/** TEXT holding a JSON document. */
export type JsonText = string;

export interface AccountsTable {
  id: string;
  name: string;
  type: string;
  settings: JsonText;
  created_on: string;
}

export interface UsersTable {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  username: string;
  telephone: string | null;
  country: string | null;
  zipcode: string | null;
  two_factor_authentication_enabled: Flag;
  suspended: Flag;
  created_on: string;
  modified_on: string;
}

export interface InvitationsTable {
  id: string;
  invited_member_id: string | null;
  invited_member_email: string;
  organization_id: string;
  organization_is_enforcing_twofactor: Flag;
  roles: JsonText;
  invited_by: string;
  invited_on: string;
  expires_on: string;
  status: string;
}

export interface ZonesTable {
  id: string;
  account_id: string;
  name: string;
  status: string;
  paused: Flag;
  type: string;
  development_mode: number;
  name_servers: JsonText;
  original_name_servers: JsonText | null;
  original_registrar: string | null;
  original_dnshost: string | null;
  created_on: string;
  modified_on: string;
  activated_on: string | null;
  meta: JsonText;
  owner: JsonText;
  permissions: JsonText;
  plan: JsonText;
}

export interface ZoneWafTable {
  zone_id: string;
  migration_state: string;
  old_managed_rules_enabled: Flag;
  new_managed_rules_enabled: Flag;
  modified_on: string;
}

/*
 * The previous WAF's tables keep the names migration 0001 gave them (`legacy_...`): renaming a
 * table would take a migration of every deployed database, and refuse it to the version before.
 * In the code they are the previous WAF's (PreviousWafPackage, PreviousWafOverride...).
 */
export interface PreviousWafPackagesTable {
  id: string;
  zone_id: string;
  position: number;
  name: string;
  description: string;
  detection_mode: string;
  sensitivity: string | null;
  action_mode: string | null;
}

export interface PreviousWafOverridesTable {
  zone_id: string;
  package_id: string;
  level: string;
  target_id: string;
  description: string;
  mode: string;
}

export interface UriWafOverridesTable {
  id: string;
  zone_id: string;
  urls: JsonText;
  paused: Flag;
  description: string;
  priority: number;
  rules: JsonText;
  groups: JsonText;
  rewrite_action: JsonText | null;
}

export interface PreviousFirewallRulesTable {
  id: string;
  zone_id: string;
  position: number;
  expression: string;
  action: string;
  products: JsonText;
  paused: Flag;
  description: string;
  priority: number | null;
}

export interface PageRulesTable {
  id: string;
  zone_id: string;
  targets: JsonText;
  actions: JsonText;
  priority: number;
  status: string;
  created_on: string;
  modified_on: string;
}

export interface CertificatePacksTable {
  id: string;
  zone_id: string;
  type: string;
  hosts: JsonText;
  primary_certificate: string | null;
  status: string;
  created_on: string;
  validity_days: number;
  validation_method: string;
  certificate_authority: string;
}

export interface CertificatesTable {
  id: string;
  certificate_pack_id: string;
  position: number;
  hosts: JsonText;
  issuer: string;
  signature: string;
  status: string;
  bundle_method: string;
  zone_id: string;
  uploaded_on: string;
  modified_on: string;
  expires_on: string;
  priority: number | null;
}

/** Owner: `zone_id`, or `account_id`, or neither for the platform's managed rulesets. */
export interface RulesetsTable {
  id: string;
  account_id: string | null;
  zone_id: string | null;
  name: string;
  description: string;
  kind: string;
  phase: string;
  source: string | null;
  version: number;
  last_updated: string;
}

export interface RulesTable {
  ruleset_id: string;
  id: string;
  position: number;
  version: number;
  action: string;
  action_parameters: JsonText | null;
  expression: string;
  description: string;
  ref: string;
  enabled: Flag;
  categories: JsonText | null;
  score: number | null;
  score_threshold: number | null;
  logging: JsonText | null;
  last_updated: string;
}

/** One row per version a ruleset ever had: the whole ruleset with its rules, as JSON. */
export interface RulesetVersionsTable {
  ruleset_id: string;
  version: number;
  last_updated: string;
  snapshot: JsonText;
}

/** A job belongs to exactly one zone or one account. */
export interface LogpushJobsTable {
  id: number;
  zone_id: string | null;
  account_id: string | null;
  name: string | null;
  dataset: string;
  destination_conf: string;
  logpull_options: string | null;
  /** JSON: the job's output options, or null when it has none. */
  output_options: JsonText | null;
  enabled: Flag;
  frequency: string;
  kind: string;
  last_complete: string | null;
  last_error: string | null;
  error_message: string | null;
  created_on: string;
}

/** Named sequences kept in the database, so several processes never hand out one number twice. */
export interface CountersTable {
  name: string;
  value: number;
}

/** A worker script of an account; what it runs is its deployments' business. */
export interface WorkerScriptsTable {
  account_id: string;
  name: string;
  /** The script's own id (32 hex), as the platform calls it. */
  tag: string;
  workers_dev: Flag;
  previews_enabled: Flag;
  /** Script-level settings (logpush, observability, tags, tail consumers) as JSON. */
  settings: JsonText;
  /** The number of the last version uploaded. */
  last_version: number;
  created_on: string;
  modified_on: string;
}

/** An immutable version of a script: its modules (by content hash), bindings and compatibility. */
export interface WorkerVersionsTable {
  id: string;
  account_id: string;
  script_name: string;
  number: number;
  main_module: string;
  compatibility_date: string;
  compatibility_flags: JsonText;
  /** Bindings as JSON; a secret's value is sealed (see secret-box.ts), never plain. */
  bindings: JsonText;
  /** [{name, type, sha256, size}] in upload order. */
  modules: JsonText;
  annotations: JsonText;
  source: string;
  author_email: string | null;
  etag: string;
  handlers: JsonText;
  created_on: string;
}

/** Module bytes, base64, by SHA-256 of the bytes: versions with the same module share one row. */
export interface WorkerModuleContentsTable {
  account_id: string;
  sha256: string;
  size: number;
  content: string;
}

export interface WorkerDeploymentsTable {
  id: string;
  account_id: string;
  script_name: string;
  /** Order of deployments within the script: the highest is the current one. */
  number: number;
  strategy: string;
  /** [{version_id, percentage}]. */
  versions: JsonText;
  annotations: JsonText;
  source: string;
  author_email: string | null;
  created_on: string;
}

export interface WorkerSubdomainsTable {
  account_id: string;
  subdomain: string;
  created_on: string;
}

/** A zone's route: requests matching the pattern go to the script (none: to the origin). */
export interface WorkerRoutesTable {
  id: string;
  zone_id: string;
  pattern: string;
  script: string | null;
  created_on: string;
}

/** A cron trigger of a script: each expression once per script, kept in the order it was set. */
export interface WorkerSchedulesTable {
  account_id: string;
  script_name: string;
  /** The expression as it was sent. */
  cron: string;
  /** Its place in the set the last replacement sent. */
  position: number;
  created_on: string;
  modified_on: string;
}

/** A run of a cron trigger one instance claimed: (script, expression, minute) fires once however many instances share the database. */
export interface WorkerScheduleRunsTable {
  account_id: string;
  script_name: string;
  cron: string;
  /** The minute it fired for (ISO 8601, UTC). */
  minute: string;
  claimed_on: string;
}

/** An asset's bytes (base64) by its hash as wrangler computes it, per account: versions naming the same hash share one row. */
export interface WorkerAssetContentsTable {
  account_id: string;
  hash: string;
  size: number;
  /** As uploaded; null when the upload said none (`application/null`). */
  content_type: string | null;
  content: string;
}

/** An assets upload in progress: the manifest it announced, until it expires. */
export interface WorkerAssetSessionsTable {
  id: string;
  account_id: string;
  script_name: string;
  /** {path: {hash, size}}. */
  manifest: JsonText;
  expires_on: string;
}

/** A version's static assets: its manifest and how they are served. */
export interface WorkerVersionAssetsTable {
  version_id: string;
  account_id: string;
  script_name: string;
  /** {path: {hash, size}}. */
  manifest: JsonText;
  config: JsonText;
}

/** One row per scope whose `version` goes up with every committed change the runtime must see. */
export interface WorkerChangesTable {
  scope: string;
  version: number;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  invitations: InvitationsTable;
  zones: ZonesTable;
  zone_waf: ZoneWafTable;
  legacy_waf_packages: PreviousWafPackagesTable;
  legacy_waf_overrides: PreviousWafOverridesTable;
  uri_waf_overrides: UriWafOverridesTable;
  legacy_firewall_rules: PreviousFirewallRulesTable;
  page_rules: PageRulesTable;
  certificate_packs: CertificatePacksTable;
  certificates: CertificatesTable;
  rulesets: RulesetsTable;
  rules: RulesTable;
  ruleset_versions: RulesetVersionsTable;
  logpush_jobs: LogpushJobsTable;
  counters: CountersTable;
  worker_scripts: WorkerScriptsTable;
  worker_versions: WorkerVersionsTable;
  worker_module_contents: WorkerModuleContentsTable;
  worker_deployments: WorkerDeploymentsTable;
  worker_subdomains: WorkerSubdomainsTable;
  worker_routes: WorkerRoutesTable;
  worker_changes: WorkerChangesTable;
  worker_schedules: WorkerSchedulesTable;
  worker_schedule_runs: WorkerScheduleRunsTable;
  worker_asset_contents: WorkerAssetContentsTable;
  worker_asset_sessions: WorkerAssetSessionsTable;
  worker_version_assets: WorkerVersionAssetsTable;
}
