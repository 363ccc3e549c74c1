import {
  ConcurrentWriteError,
  EntryPointExistsError,
  InvalidInputError,
  InvitationAlreadyAnsweredError,
  LatestVersionError,
  MigrationStateConflictError,
  NotFoundError,
  PreviousWafRetiredError,
  ReadOnlyRulesetError,
  RuleChangedError,
  RuleLimitError,
  StoreBusyError,
  StoreError,
  StoreFullError,
  StoreUnavailableError,
  TooManyCronTriggersError,
  VersionMismatchError,
  WorkerRouteExistsError,
  WorkersSubdomainTakenError,
  WorkerAssetsError,
  WorkerVersionNotDeployedError,
} from '../store';
import { ApiError, Codes, badRequest, insufficientStorage, notFound, serviceUnavailable } from './http/errors';
import { tooManyRules } from './rules/check-rules';
import { previousWafGone } from './waf/previous-waf';
import { WorkerCodes } from './workers/upload';

/** What the Workers family answers for something it does not have (the platform's 10007). */
function workersNotFound(error: NotFoundError): ApiError | undefined {
  switch (error.entity) {
    case 'worker_script':
      return ApiError.of(404, WorkerCodes.scriptNotFound, `This Worker does not exist on your account: ${error.id}.`);
    case 'worker_version':
      return ApiError.of(404, WorkerCodes.scriptNotFound, `Version ${error.id} does not exist on this Worker.`);
    case 'worker_secret':
      return ApiError.of(404, WorkerCodes.scriptNotFound, `Secret ${error.id} does not exist on this Worker.`);
    case 'workers_subdomain':
      return ApiError.of(404, WorkerCodes.scriptNotFound, 'This account has no workers.dev subdomain.');
    default:
      return undefined;
  }
}

/**
 * The answer to a store error that reaches a request, in one place: the store knows nothing of
 * HTTP, so the server says what each of its errors means to a client. `path` is the request's path
 * under the base path. Undefined for what is not a store error with a meaning to a client (the
 * request then fails with a 500).
 */
export function storeErrorAnswer(error: unknown, path: string): ApiError | undefined {
  if (!(error instanceof StoreError)) return undefined;
  if (error instanceof NotFoundError) return workersNotFound(error) ?? notFound(path);
  if (error instanceof WorkerRouteExistsError) return badRequest(`${error.message}.`, WorkerCodes.routeExists);
  if (error instanceof WorkersSubdomainTakenError) return badRequest(`${error.message}.`, WorkerCodes.subdomainTaken);
  if (error instanceof WorkerAssetsError) {
    return error.kind === 'token' ? ApiError.of(403, Codes.authentication, `Authentication error: ${error.message}`) : badRequest(`${error.message}.`, WorkerCodes.invalid);
  }
  if (error instanceof WorkerVersionNotDeployedError) return badRequest(`${error.message}.`, WorkerCodes.latestNotDeployed);
  if (error instanceof TooManyCronTriggersError) {
    return badRequest(`This account has reached the limit of ${error.limit} cron triggers per account: the account would hold ${error.count}.`, WorkerCodes.tooManyCrons);
  }
  if (error instanceof EntryPointExistsError) {
    return badRequest(
      `'${error.kind}' is not a valid value for kind because exceeded maximum number of ${error.kind} rulesets for phase ${error.phase}`,
      Codes.duplicatePhase,
    );
  }
  if (error instanceof InvitationAlreadyAnsweredError) {
    return badRequest(`invitation ${error.invitation_id} is already ${error.status} and cannot be answered again`, Codes.invitationAnswered);
  }
  if (error instanceof MigrationStateConflictError) {
    return badRequest(`the WAF migration of zone ${error.zone_id} is already ${error.actual}; it cannot be repeated or undone`, Codes.migrationFinished);
  }
  // A previous-WAF write that the zone's finishing migration overtook: as if it came after it.
  if (error instanceof PreviousWafRetiredError) return previousWafGone(error.zone_id);
  if (error instanceof ReadOnlyRulesetError) return badRequest(error.message, Codes.ruleConstraint);
  if (error instanceof InvalidInputError || error instanceof LatestVersionError) return badRequest(error.message);
  // A rule added meanwhile filled the ruleset: as the check would have said, had it come first.
  if (error instanceof RuleLimitError) return new ApiError(400, [tooManyRules(error.phase, error.count)]);
  if (error instanceof VersionMismatchError || error instanceof ConcurrentWriteError || error instanceof RuleChangedError || error instanceof StoreBusyError) {
    return serviceUnavailable('it is busy with concurrent writes');
  }
  // The database's own location and the driver's words stay in the log: the client learns what it can act on.
  if (error instanceof StoreUnavailableError) return serviceUnavailable('its database cannot be reached');
  if (error instanceof StoreFullError) return insufficientStorage('the database has no space left on its disk');
  return undefined;
}
