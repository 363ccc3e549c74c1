import type { Clock } from './clock';
import type {
  AssetManifest,
  DeployedWorkersReader,
  DeploymentInput,
  WorkerDeployment,
  WorkerModuleRef,
  WorkerRoute,
  WorkerRouteInput,
  WorkerSchedule,
  WorkerScript,
  WorkerScriptSettings,
  WorkerVersion,
  WorkerVersionAssets,
  WorkerVersionInput,
} from './worker-types';
import type {
  Account,
  CertificatePack,
  Invitation,
  InvitationAnswer,
  PreviousWafConfig,
  PreviousWafOverride,
  PreviousWafPackage,
  PreviousWafPackagePatch,
  LogpushJob,
  LogpushJobInput,
  LogpushJobPatch,
  MigrationState,
  Page,
  PageRequest,
  RuleInput,
  RulePatch,
  RulePosition,
  Ruleset,
  RulesetInput,
  RulesetScope,
  RulesetSummary,
  RulesetUpdate,
  UriWafOverride,
  UriWafOverrideInput,
  User,
  Zone,
  ZoneListFilter,
  ZoneWafState,
} from './types';

/*
 * Conventions shared by every repository:
 * - Reads answer `null` (or an empty page) for something that does not exist or is not
 *   visible from the given scope; writes throw NotFoundError instead.
 * - Every write is atomic. Called on `store.<repository>` it runs in a transaction of its
 *   own; called on the `tx` handed out by `store.transaction` it joins that transaction.
 */

export interface AccountRepository {
  get(id: string): Promise<Account | null>;
  list(page?: PageRequest<AccountOrder>): Promise<Page<Account>>;
}
export type AccountOrder = 'name' | 'created_on' | 'id';

export interface UserRepository {
  get(id: string): Promise<User | null>;
  /** Emails are matched without regard to case, as mail systems do. */
  getByEmail(email: string): Promise<User | null>;
}

export interface InvitationRepository {
  get(id: string): Promise<Invitation | null>;
  /** Invitations addressed to an email (case-insensitive), oldest first. */
  listForEmail(email: string): Promise<Invitation[]>;
  /**
   * Answers a pending invitation (compare-and-set on `pending`). Checking that the caller is
   * the invited member is the caller's job: compare with `invited_member_email`.
   * Throws NotFoundError, InvalidInputError (another status), InvitationAlreadyAnsweredError.
   */
  respond(id: string, status: InvitationAnswer): Promise<Invitation>;
}

export interface ZoneRepository {
  get(id: string): Promise<Zone | null>;
  list(filter?: ZoneListFilter, page?: PageRequest<ZoneOrder>): Promise<Page<Zone>>;
}
export type ZoneOrder = 'name' | 'created_on' | 'status' | 'id' | 'account.id' | 'account.name' | 'plan.id';

export interface MigrationTransition {
  /** States the zone may be in for the step to apply; anything else is a conflict. */
  from: readonly MigrationState[];
  to: MigrationState;
  old_managed_rules_enabled: boolean;
  new_managed_rules_enabled: boolean;
}

export interface WafRepository {
  getState(zoneId: string): Promise<ZoneWafState | null>;
  /**
   * Moves the zone's migration state (compare-and-set on the current state, so a migration
   * raced from two processes happens once). Throws NotFoundError, MigrationStateConflictError.
   */
  transition(zoneId: string, step: MigrationTransition): Promise<ZoneWafState>;
  /** The previous-WAF configuration of a zone; null for an unknown zone. */
  getPreviousConfig(zoneId: string): Promise<PreviousWafConfig | null>;
  // Each write below throws PreviousWafRetiredError once the zone's migration has finished.
  /** Throws NotFoundError when the zone has no such override. */
  deleteUriOverride(zoneId: string, overrideId: string): Promise<void>;
  /** A new URI-based override with a new id. Throws NotFoundError for an unknown zone. */
  createUriOverride(zoneId: string, input: UriWafOverrideInput): Promise<UriWafOverride>;
  /** Replaces every field of an override but its id. Throws NotFoundError. */
  updateUriOverride(zoneId: string, overrideId: string, input: UriWafOverrideInput): Promise<UriWafOverride>;
  /** Changes a package's global settings. Throws NotFoundError when the zone has no such package. */
  updatePackage(zoneId: string, packageId: string, patch: PreviousWafPackagePatch): Promise<PreviousWafPackage>;
  /**
   * Records the mode a zone set on a group or rule of one of its packages (replacing any earlier
   * one), or, with `mode: null`, forgets it so the default applies again. The store keeps modes
   * as given: which ids and modes are valid is the catalogue's business. Throws NotFoundError
   * when the zone has no such package.
   */
  setMode(zoneId: string, setting: Omit<PreviousWafOverride, 'mode'> & { mode: string | null }): Promise<void>;
}

export interface CertificatePackListOptions extends PageRequest<CertificatePackOrder> {
  /** Only packs in this status; `all` or absent lists every status. */
  status?: string;
}
export type CertificatePackOrder = 'created_on' | 'status' | 'type' | 'id';

export interface CertificatePackRepository {
  get(zoneId: string, id: string): Promise<CertificatePack | null>;
  /** Packs of a zone with their certificates; an unknown zone gives an empty page. */
  list(zoneId: string, options?: CertificatePackListOptions): Promise<Page<CertificatePack>>;
}

export type RulesetOrder = 'name' | 'last_updated' | 'version' | 'kind' | 'phase' | 'id';

export interface RulesetWriteOptions {
  /** Refuse the write (VersionMismatchError) unless the ruleset is at this version. */
  expected_version?: string;
}

export interface RuleWriteOptions extends RulesetWriteOptions {
  /** Where the rule goes; without it a new rule goes last and a changed rule stays where it is. */
  position?: RulePosition;
}

export interface RuleAddOptions extends RuleWriteOptions {
  /** The most rules the ruleset may hold once the rule is added (a limit of its phase): RuleLimitError beyond it. */
  max_rules?: number;
}

export interface RuleUpdateOptions extends RuleWriteOptions {
  /**
   * Refuse the write (RuleChangedError) unless the rule is at this version: the caller checked the
   * rule as it was then, and a patch applied to another version of it would not be what it checked.
   */
  expected_rule_version?: string;
}

export interface RulesetRepository {
  /** Rulesets without their rules. Account scope includes the platform's managed rulesets. */
  list(scope: RulesetScope, page?: PageRequest<RulesetOrder>): Promise<Page<RulesetSummary>>;
  get(scope: RulesetScope, id: string): Promise<Ruleset | null>;
  /** The ruleset as it was at `version` (every version is kept). */
  getVersion(scope: RulesetScope, id: string, version: string): Promise<Ruleset | null>;
  /** The phase entry point: kind `zone` in a zone, kind `root` in an account. */
  getEntryPoint(scope: RulesetScope, phase: string): Promise<Ruleset | null>;
  /**
   * The ruleset as a write from `scope` would find it, for the checks a caller makes before it
   * writes. Throws NotFoundError (not visible from the scope) and ReadOnlyRulesetError (managed
   * by the platform, from any scope), as the write itself would.
   */
  getWritable(scope: RulesetScope, id: string): Promise<Ruleset>;
  /** Creates a ruleset at version 1. Throws EntryPointExistsError for a second entry point of a phase. */
  create(scope: RulesetScope, input: RulesetInput): Promise<Ruleset>;
  /** Replaces all rules (and optionally name and description); the version goes up by one. */
  update(scope: RulesetScope, id: string, update: RulesetUpdate, options?: RulesetWriteOptions): Promise<Ruleset>;
  /** Creates the phase entry point when absent, else replaces its rules. */
  putEntryPoint(
    scope: RulesetScope,
    phase: string,
    update: RulesetUpdate,
    options?: RulesetWriteOptions,
  ): Promise<{ ruleset: Ruleset; created: boolean }>;
  /**
   * Changes only the fields sent of one rule and answers the whole ruleset. A new action sent
   * without parameters drops the old action's parameters: they belong to the action they were
   * given for. Throws NotFoundError, ReadOnlyRulesetError, InvalidInputError (a position outside
   * the ruleset).
   */
  updateRule(
    scope: RulesetScope,
    rulesetId: string,
    ruleId: string,
    patch: RulePatch,
    options?: RuleUpdateOptions,
  ): Promise<Ruleset>;
  /**
   * Adds one rule (a new id, version 1) and answers the whole ruleset. Throws NotFoundError,
   * ReadOnlyRulesetError, InvalidInputError (a position outside the ruleset).
   */
  addRule(scope: RulesetScope, rulesetId: string, rule: RuleInput, options?: RuleAddOptions): Promise<Ruleset>;
  /** Removes one rule and answers the whole ruleset. Throws NotFoundError, ReadOnlyRulesetError. */
  deleteRule(scope: RulesetScope, rulesetId: string, ruleId: string, options?: RulesetWriteOptions): Promise<Ruleset>;
  /**
   * Deletes a ruleset with its rules and versions (an entry point's phase is free again).
   * Throws NotFoundError, ReadOnlyRulesetError (platform-managed rulesets, from any scope).
   */
  delete(scope: RulesetScope, id: string): Promise<void>;
  /** Every kept version of a visible ruleset, oldest first (as the platform lists them), without rules; null when not visible. */
  listVersions(scope: RulesetScope, id: string): Promise<RulesetSummary[] | null>;
  /**
   * Forgets one version (never the current one: LatestVersionError). Throws NotFoundError
   * (ruleset or version), ReadOnlyRulesetError.
   */
  deleteVersion(scope: RulesetScope, id: string, version: string): Promise<void>;
}

/** The jobs of one zone or one account (`ownerId`), as the repository's scope says. */
export interface LogpushJobRepository {
  get(ownerId: string, id: number): Promise<LogpushJob | null>;
  /** Jobs of the owner, oldest first. */
  list(ownerId: string): Promise<LogpushJob[]>;
  /** Ids come from one database sequence for zone and account jobs: increasing integers, never reused. */
  create(ownerId: string, input: LogpushJobInput): Promise<LogpushJob>;
  update(ownerId: string, id: number, patch: LogpushJobPatch): Promise<LogpushJob>;
  /** Throws NotFoundError when the owner has no such job. */
  delete(ownerId: string, id: number): Promise<void>;
  /**
   * Records how a delivery of the job's logs went, at the store's time: a success sets
   * `last_complete` and clears `last_error` and `error_message` (the job is no longer failing); a
   * failure sets `last_error` and `error_message`. Answers false when the owner has no such job
   * (it was deleted meanwhile).
   */
  recordDelivery(ownerId: string, id: number, outcome: { error: string | null }): Promise<boolean>;
}

/**
 * Workers of accounts (scripts, versions, deployments, secrets, the workers.dev subdomain) and
 * zone routes. Secret values go in with writes and never come out of a read (only names do);
 * the runtime's read model (`Store.deployedWorkers`) opens them.
 */
export interface WorkersRepository {
  getScript(accountId: string, name: string): Promise<WorkerScript | null>;
  /** Scripts of the account by name. */
  listScripts(accountId: string): Promise<WorkerScript[]>;
  /**
   * A new version of the script (numbered after the last), deployed alone at 100% when `deploy`.
   * Creates the script when absent and `create`, else NotFoundError.
   */
  uploadVersion(
    accountId: string,
    name: string,
    input: WorkerVersionInput,
    options: { create: boolean; deploy: boolean },
  ): Promise<{ script: WorkerScript; version: WorkerVersion; deployment: WorkerDeployment | null; created: boolean }>;
  getVersion(accountId: string, name: string, versionId: string): Promise<WorkerVersion | null>;
  /** Newest first; null when the script does not exist. */
  listVersions(accountId: string, name: string): Promise<WorkerVersion[] | null>;
  /** A version's modules with their bytes; null when there is no such version. */
  versionModules(accountId: string, name: string, versionId: string): Promise<(WorkerModuleRef & { bytes: Uint8Array })[] | null>;
  /** Throws NotFoundError (script or version), InvalidInputError (shares not adding up to 100). */
  createDeployment(accountId: string, name: string, input: DeploymentInput): Promise<WorkerDeployment>;
  /** Newest (the one serving) first; null when the script does not exist. */
  listDeployments(accountId: string, name: string): Promise<WorkerDeployment[] | null>;
  getDeployment(accountId: string, name: string, id: string): Promise<WorkerDeployment | null>;
  /** Names of the serving version's secrets; null when the script does not exist. */
  listSecrets(accountId: string, name: string): Promise<{ name: string; type: 'secret_text' }[] | null>;
  /**
   * Puts and deletes secrets at once: a new version from the one serving (its modules and other
   * bindings), deployed at 100%. NotFoundError for a script or a secret to delete that is not there.
   */
  changeSecrets(
    accountId: string,
    name: string,
    change: { put: { name: string; text: string }[]; delete: string[]; source: string; author_email: string | null },
  ): Promise<WorkerVersion>;
  /** The script with its versions, deployments and routes; NotFoundError when absent. */
  deleteScript(accountId: string, name: string): Promise<void>;
  updateScriptSettings(accountId: string, name: string, patch: Partial<WorkerScriptSettings>): Promise<WorkerScript>;
  /** The script's workers.dev switch (and its preview URLs' switch, when given). */
  setWorkersDev(accountId: string, name: string, switches: { enabled: boolean; previews_enabled?: boolean }): Promise<WorkerScript>;
  listRoutes(zoneId: string): Promise<WorkerRoute[]>;
  getRoute(zoneId: string, id: string): Promise<WorkerRoute | null>;
  /** Throws NotFoundError (zone, or a script not of the zone's account), WorkerRouteExistsError. */
  createRoute(zoneId: string, input: WorkerRouteInput): Promise<WorkerRoute>;
  updateRoute(zoneId: string, id: string, input: WorkerRouteInput): Promise<WorkerRoute>;
  deleteRoute(zoneId: string, id: string): Promise<void>;
  /** Routes running the script, in the account's zones; null when the script does not exist. */
  listScriptRoutes(accountId: string, name: string): Promise<(WorkerRoute & { zone_name: string })[] | null>;
  /** Replaces every route of the script in the account's zones (WorkerRouteExistsError when another script holds a pattern). */
  replaceScriptRoutes(accountId: string, name: string, routes: { zone_id: string; pattern: string }[]): Promise<(WorkerRoute & { zone_name: string })[]>;
  getSubdomain(accountId: string): Promise<string | null>;
  /** The account holding a workers.dev subdomain, or null when none does. */
  subdomainHolder(subdomain: string): Promise<string | null>;
  /** Throws WorkersSubdomainTakenError when another account has it. */
  setSubdomain(accountId: string, subdomain: string): Promise<string>;
  deleteSubdomain(accountId: string): Promise<void>;
  /** The script's cron triggers in the order they were set; null when the script does not exist. */
  listSchedules(accountId: string, name: string): Promise<WorkerSchedule[] | null>;
  /**
   * Replaces the script's cron triggers with `crons` (checked expressions, each once): one kept
   * keeps its `created_on`. NotFoundError when the script does not exist; TooManyCronTriggersError
   * when the account's scripts would hold more than `limit` in all.
   */
  replaceSchedules(accountId: string, name: string, crons: string[], limit: number): Promise<WorkerSchedule[]>;
  /**
   * Opens a static assets upload for the script: the manifest kept for a version to name, and the
   * hashes the account does not hold yet in buckets to upload, with an upload token (a completion
   * token at once when nothing is missing). NotFoundError for an account that does not exist.
   */
  openAssetUpload(accountId: string, name: string, manifest: AssetManifest): Promise<{ jwt: string; buckets: string[][] }>;
  /** The session an upload token opens (WorkerAssetsError `token` when it is not valid). */
  assetUploadSession(token: string): Promise<{ id: string; account_id: string; script_name: string; manifest: AssetManifest }>;
  /** Keeps uploaded files (checked by the caller against the session's manifest); the completion token once nothing is missing. */
  storeAssets(sessionId: string, files: { hash: string; content_type: string | null; bytes: Uint8Array }[]): Promise<{ jwt: string | null }>;
  /** A version's assets; null when it has none. */
  versionAssets(accountId: string, name: string, versionId: string): Promise<WorkerVersionAssets | null>;
}

export interface Repositories {
  readonly accounts: AccountRepository;
  readonly users: UserRepository;
  readonly invitations: InvitationRepository;
  readonly zones: ZoneRepository;
  readonly waf: WafRepository;
  readonly certificatePacks: CertificatePackRepository;
  readonly rulesets: RulesetRepository;
  /** Jobs of zones (owner: a zone id). */
  readonly logpushJobs: LogpushJobRepository;
  /** Jobs of accounts (owner: an account id); zone jobs are not among them. */
  readonly accountLogpushJobs: LogpushJobRepository;
  readonly workers: WorkersRepository;
}

export interface Store extends Repositories {
  readonly clock: Clock;
  /** The whole store as rows and back, for saving and loading the platform's state. */
  readonly dump: StoreDump;
  /** The runtime's view of what is deployed, and the marker to poll for changes. */
  readonly deployedWorkers: DeployedWorkersReader;
  /**
   * Runs `work` in one transaction: all its writes commit together or not at all, and each
   * ruleset it writes gets exactly one new version. When a concurrent writer got there first
   * the whole of `work` runs again (a few times at most), so it must not have effects
   * outside `tx`. Inside `work`, use `tx`, never the store itself.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /**
   * A value that changes whenever what the edge judges and logs requests by changes: a ruleset
   * of a zone or an account (written, created, deleted), a zone's WAF migration, a log push job's
   * settings. Equal values mean nothing of that changed; cheap enough to poll several times a
   * second from every process sharing the database.
   */
  changeMarker(): Promise<string>;
  /** Answers when the database answers (readiness checks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/*
 * The whole store as rows, and back: what saving and loading the platform's state (src/state)
 * needs of the store. Rows are the tables' own columns (JSON as text, flags as 0/1), the same on
 * both engines, so a dump of one engine loads into the other.
 */

/** A value of a column as both engines hold it. */
export type DumpValue = string | number | null;
export type DumpRow = Record<string, DumpValue>;

/** One piece of a dump, in the order `export` gives them and `import` takes them. */
export type DumpEntry =
  /** First: the schema migrations the rows were written under. */
  | { kind: 'schema'; migrations: string[] }
  | { kind: 'row'; table: string; row: DumpRow }
  /** Last: each named counter's last number handed out (log push job ids). */
  | { kind: 'counter'; name: string; value: number };

export interface StoreDump {
  /**
   * Every row of every table, from one consistent snapshot (a read-only transaction: REPEATABLE
   * READ on PostgreSQL, a read transaction in SQLite's write-ahead log), so writers go on meanwhile.
   * `write` is awaited for each entry: a slow consumer slows the reading, never fills memory.
   */
  export(write: (entry: DumpEntry) => Promise<void> | void): Promise<void>;
  /** True when no table holds a row (a store opened with `seed: false` on a new database). */
  isEmpty(): Promise<boolean>;
  /**
   * Loads a dump into an empty store in one transaction: every row or none. Throws
   * StoreNotEmptyError when a table holds a row, StoreDumpError for a dump this store cannot
   * take (a newer schema, an unknown table or column, rows the constraints refuse).
   */
  import(entries: AsyncIterable<DumpEntry> | Iterable<DumpEntry>): Promise<void>;
}
