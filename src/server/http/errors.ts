/**
 * Errors the API answers on purpose: an HTTP status and the envelope's `{code, message}` items.
 * Every failure the server produces ends up as one of these (see error-mapper.ts).
 */
export interface ErrorItem {
  code: number;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorItem[],
  ) {
    super(errors.map((e) => `${e.code}: ${e.message}`).join('; '));
    this.name = 'ApiError';
  }

  static of(status: number, code: number, message: string): ApiError {
    return new ApiError(status, [{ code, message }]);
  }
}

/** The codes of this API (see the root description of the OpenAPI document). */
export const Codes = {
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
} as const;

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
