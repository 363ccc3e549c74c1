/**
 * Errors the API answers on purpose. An ApiError carries its whole answer: the HTTP status, the
 * headers that go with it, and the envelope (the API's `{code, message}` items). Whoever throws it
 * decides the answer; the app only sends it. Every other failure is translated into one in one
 * place (error-mapper.ts for the HTTP layer's own, ../store-errors.ts for the store's).
 */
export interface ErrorItem {
  code: number;
  message: string;
}

/** The error envelope, as the document's ErrorEnvelope has it. */
export interface ErrorEnvelope {
  result: null;
  success: false;
  errors: { code?: number; message: string }[];
  messages: unknown[] | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorItem[],
    /** Headers the answer carries (`Allow` on a 405). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(errors.map((e) => `${e.code}: ${e.message}`).join('; '));
    this.name = 'ApiError';
  }

  static of(status: number, code: number, message: string): ApiError {
    return new ApiError(status, [{ code, message }]);
  }

  /** The body of the answer. */
  envelope(): ErrorEnvelope {
    return { result: null, success: false, errors: this.errors, messages: [] };
  }
}

/** The codes of this API (see the root description of the OpenAPI document). */
export const Codes = {
  /** A log push destination the platform cannot write to (the platform's `error validating destination`). */
  destinationInvalid: 1002,
  invitationAnswered: 1004,
  wafPackageNotAnomaly: 1027,
  invalidHeaders: 6003,
  unsupportedMediaType: 6006,
  malformedJson: 6007,
  payloadTooLarge: 6009,
  noRoute: 7000,
  methodNotAllowed: 7001,
  couldNotRoute: 7003,
  missingCredentials: 9106,
  notAuthorized: 9109,
  authentication: 10000,
  internal: 10001,
  noEntrypoint: 10003,
  invalidRequest: 10021,
  invalidExpression: 10026,
  ruleConstraint: 20200,
  duplicatePhase: 20217,
  migrationIncompatible: 20301,
  validationModeEnterpriseOnly: 20302,
  tooManyFirewallRules: 20303,
  firewallRuleTooLong: 20304,
  migrationFinished: 20305,
  migrationRequired: 20306,
  previousWafGone: 20307,
  serviceUnavailable: 10503,
  insufficientStorage: 10507,
} as const;

/** Seconds a client is asked to wait before trying again a request the storage could not serve. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * 503 with Retry-After: the storage could not serve the request now (its database restarting or
 * busy), and the same request may succeed in a moment.
 */
export function serviceUnavailable(reason: string): ApiError {
  return new ApiError(503, [{ code: Codes.serviceUnavailable, message: `The service is temporarily unavailable: ${reason}. Retry the request in a moment.` }], {
    'Retry-After': String(RETRY_AFTER_SECONDS),
  });
}

/** 507: the storage has no room for the write; nothing was written. Reads and deletes go on. */
export function insufficientStorage(reason: string): ApiError {
  return ApiError.of(507, Codes.insufficientStorage, `Insufficient storage: ${reason}. Nothing was written; delete data or free space, then retry.`);
}

/** 404 (10003) for a phase without an entry point ruleset, as the real service answers it. */
export function noEntrypoint(phase: string): ApiError {
  return ApiError.of(404, Codes.noEntrypoint, `could not find entrypoint ruleset in the ${phase} phase`);
}

/** 404 as the real service answers an unknown route or object. */
export function notFound(path: string): ApiError {
  return new ApiError(404, [
    { code: Codes.couldNotRoute, message: `Could not route to ${path}, perhaps your object identifier is invalid?` },
    { code: Codes.noRoute, message: 'No route for that URI' },
  ]);
}

export function badRequest(message: string, code: number = Codes.invalidRequest): ApiError {
  return ApiError.of(400, code, message);
}
