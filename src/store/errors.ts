/**
 * Errors the store raises on purpose. Each carries a stable `code` so the server can map
 * it to an HTTP status and envelope error in one place; anything else escaping the store
 * is a bug or an infrastructure failure.
 */
export abstract class StoreError extends Error {
  abstract readonly code: string;
  override get name(): string {
    return this.constructor.name;
  }
}

export type EntityKind =
  | 'account'
  | 'user'
  | 'invitation'
  | 'zone'
  | 'certificate_pack'
  | 'ruleset'
  | 'ruleset_version'
  | 'rule'
  | 'logpush_job'
  | 'uri_waf_override'
  | 'waf_package'
  | 'worker_script'
  | 'worker_version'
  | 'worker_deployment'
  | 'worker_secret'
  | 'worker_route'
  | 'workers_subdomain';

/** The target of a write does not exist (reads answer null instead). */
export class NotFoundError extends StoreError {
  readonly code = 'not_found';
  constructor(
    readonly entity: EntityKind,
    readonly id: string,
  ) {
    super(`${entity} ${id} not found`);
  }
}

/** Input the store cannot record as given (bad paging, duplicate rule ids, ...). */
export class InvalidInputError extends StoreError {
  readonly code = 'invalid_input';
}

/** A zone (or account) already has its entry point ruleset for this phase. */
export class EntryPointExistsError extends StoreError {
  readonly code = 'entry_point_exists';
  constructor(
    readonly owner_id: string,
    readonly phase: string,
    /** `zone` in a zone, `root` in an account. */
    readonly kind: 'zone' | 'root' = 'zone',
  ) {
    super(`an entry point ruleset for phase ${phase} already exists in ${owner_id}`);
  }
}

/** Platform-managed rulesets are visible from every account but writable from none. */
export class ReadOnlyRulesetError extends StoreError {
  readonly code = 'read_only_ruleset';
  constructor(readonly ruleset_id: string) {
    super(`ruleset ${ruleset_id} is managed by the platform: it cannot be changed or deleted`);
  }
}

/** The current version of a ruleset is what it is: only earlier versions can be deleted. */
export class LatestVersionError extends StoreError {
  readonly code = 'latest_version';
  constructor(
    readonly ruleset_id: string,
    readonly version: string,
  ) {
    super(`version ${version} is the latest version of ruleset ${ruleset_id} and cannot be deleted`);
  }
}

/** The caller asked to write on top of a ruleset version that is no longer current. */
export class VersionMismatchError extends StoreError {
  readonly code = 'version_mismatch';
  constructor(
    readonly ruleset_id: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`ruleset ${ruleset_id} is at version ${actual}, not ${expected}`);
  }
}

/** The caller checked a rule at one version, and another write changed it since. */
export class RuleChangedError extends StoreError {
  readonly code = 'rule_changed';
  constructor(
    readonly ruleset_id: string,
    readonly rule_id: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`rule ${rule_id} of ruleset ${ruleset_id} is at version ${actual}, not ${expected}`);
  }
}

/** A rule added beyond the most rules its ruleset may hold. */
export class RuleLimitError extends StoreError {
  readonly code = 'rule_limit';
  constructor(
    readonly ruleset_id: string,
    readonly phase: string,
    readonly max_rules: number,
    /** How many rules the ruleset would then hold. */
    readonly count: number,
  ) {
    super(`ruleset ${ruleset_id} (phase ${phase}) may hold at most ${max_rules} rules, not ${count}`);
  }
}

/** An invitation that was already answered (or expired) cannot be answered again. */
export class InvitationAlreadyAnsweredError extends StoreError {
  readonly code = 'invitation_already_answered';
  constructor(
    readonly invitation_id: string,
    readonly status: string,
  ) {
    super(`invitation ${invitation_id} is already ${status}`);
  }
}

/** A WAF migration step was attempted from a state the zone is no longer in. */
export class MigrationStateConflictError extends StoreError {
  readonly code = 'migration_state_conflict';
  constructor(
    readonly zone_id: string,
    readonly expected: readonly string[],
    readonly actual: string,
  ) {
    super(`zone ${zone_id} is in WAF migration state ${actual}, expected ${expected.join(' or ')}`);
  }
}

/**
 * A previous-WAF write to a zone whose WAF migration has finished. Checked inside the write's
 * transaction, under the lock a migration takes too, so a write racing the migration that
 * finishes it never lands after it.
 */
export class PreviousWafRetiredError extends StoreError {
  readonly code = 'previous_waf_retired';
  constructor(readonly zone_id: string) {
    super(`zone ${zone_id} finished its WAF migration: its previous WAF configuration can no longer change`);
  }
}

/**
 * Another writer changed the same data between this transaction's read and its write.
 * The store retries such transactions itself; this escapes only after the retries ran out.
 */
export class ConcurrentWriteError extends StoreError {
  readonly code = 'concurrent_write';
}

/** The database stayed locked by another process for longer than the busy timeout. */
export class StoreBusyError extends StoreError {
  readonly code = 'store_busy';
}

/**
 * The database could not be reached (PostgreSQL restarting or stopped, the network gone; SQLite's
 * file failing to read or write): nothing was done, and the same request may succeed in a moment.
 */
export class StoreUnavailableError extends StoreError {
  readonly code = 'store_unavailable';
  constructor(
    /** The database, without secrets. */
    readonly location: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`database ${location} is unavailable: ${reason}`, options);
  }
}

/** The database had no room for a write (its disk full): nothing was written. Reads go on. */
export class StoreFullError extends StoreError {
  readonly code = 'store_full';
  constructor(
    readonly location: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`database ${location} has no room for the write: ${reason}`, options);
  }
}

/** The database was written by a newer version of this code; opening it could corrupt it. */
export class SchemaTooNewError extends StoreError {
  readonly code = 'schema_too_new';
  constructor(
    readonly location: string,
    readonly unknown_migrations: readonly string[],
  ) {
    super(
      `database ${location} has schema migrations this version does not know ` +
        `(${unknown_migrations.join(', ')}); it was written by a newer version. ` +
        'Upgrade the toolkit or point it at another database.',
    );
  }
}

/** The seed file is missing, is not JSON, or holds an entry that breaks the fixture rules. */
export class SeedFileError extends StoreError {
  readonly code = 'seed_file_invalid';
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`seed file ${file} is invalid:\n  ${problems.join('\n  ')}`);
  }
}

/** A dump is loaded only into a store holding no row: loading merges nothing. */
export class StoreNotEmptyError extends StoreError {
  readonly code = 'store_not_empty';
  constructor(readonly location: string) {
    super(`database ${location} already holds data: state is loaded only into an empty database`);
  }
}

/** A dump the store cannot load as it stands (nothing of it is kept). */
export class StoreDumpError extends StoreError {
  readonly code = 'store_dump_invalid';
}

/** A zone holds each workers route pattern once. */
export class WorkerRouteExistsError extends StoreError {
  readonly code = 'worker_route_exists';
  constructor(
    readonly pattern: string,
    /** The script the pattern runs now (null: none). */
    readonly script: string | null,
  ) {
    super(`a route with pattern ${pattern} already exists${script === null ? '' : ` (it runs ${script})`}`);
  }
}

/** A workers.dev subdomain belongs to one account. */
export class WorkersSubdomainTakenError extends StoreError {
  readonly code = 'workers_subdomain_taken';
  constructor(readonly subdomain: string) {
    super(`the workers.dev subdomain ${subdomain} belongs to another account`);
  }
}

/** A secret was written to a store opened without a secrets key (see StoreOptions.secrets). */
export class SecretsKeyMissingError extends StoreError {
  readonly code = 'secrets_key_missing';
}

/** Secrets change the latest version, which must be the one serving every request. */
export class WorkerVersionNotDeployedError extends StoreError {
  readonly code = 'worker_version_not_deployed';
  constructor(readonly script: string) {
    super(`the latest version of ${script} is not the one deployed to every request: deploy it before changing secrets`);
  }
}

/** An account holds at most so many cron triggers over all its scripts. */
export class TooManyCronTriggersError extends StoreError {
  readonly code = 'too_many_cron_triggers';
  constructor(
    readonly limit: number,
    /** How many the account would hold. */
    readonly count: number,
  ) {
    super(`the account would hold ${count} cron triggers; it may hold ${limit}`);
  }
}

/**
 * Static assets refused: `token` for an upload token that is not valid here (bad signature,
 * expired, another account's or script's, the wrong kind), `upload` for what an upload sends.
 */
export class WorkerAssetsError extends StoreError {
  readonly code = 'worker_assets';
  constructor(
    readonly kind: 'token' | 'upload',
    message: string,
  ) {
    super(message);
  }
}
