/**
 * The judgment: what a zone's deployed rules decide for a request. One engine for the edge,
 * which judges live traffic with it, and for the simulator, which traces the same judgment.
 *
 * - The request as the edge sees it (`EdgeRequest`, `ResponseHead`) and its rules-language
 *   context (`requestFields`, `responseFields`, with overrides for what the platform knows beside
 *   the request: geolocation, bot score...).
 * - `readDeployment(store, zoneId, compiler)`: what is deployed for a zone, compiled (each
 *   ruleset version once, by a `RulesetCompiler`); `LiveDeployments`: the same, kept in memory
 *   for live traffic and refreshed when the store's change marker moves (every 250 ms by default).
 * - `new Judgment(deployment, { trace }).requestPhases(context)`, then `.responsePhase(context)`,
 *   or `judge(...)` for both: the phases in the platform's order, `execute` with overrides and
 *   OWASP scoring, `skip`, `log`, terminating actions; rules that could not be evaluated are
 *   `failures` (the edge answers 500 rather than let such a request through).
 * - Who a live request comes from: `TrustedProxies.clientAddress(...)` and a `ClientTable` of
 *   address ranges giving the fields the platform would know.
 */
export { BODY_INSPECTION_LIMIT_BYTES, mediaType } from './body';
export { ClientTable, TrustedProxies, parseRange, plainAddress, type ClientEntry } from './clients';
export { RulesetCompiler, type CompiledRule, type CompiledRuleset } from './compiled';
export { GEOIP_ALIASES, requestFields, responseFields, type ContextFields, type FieldOverrides } from './context';
export { MAX_CUSTOM_FIELDS, type CustomField, type CustomFieldConfig } from './custom-fields';
export {
  CUSTOM_FIELDS_PHASE,
  MANAGED_PHASES,
  REQUEST_PHASES,
  RESPONSE_PHASES,
  judgesRequests,
  readDeployment,
  type DeployedRuleset,
  type Execution,
  type ZoneDeployment,
} from './deployment';
export { Judgment, describeLocation, judge, type JudgeOptions, type RuleFailure, type Termination } from './engine';
export { DERIVED_FIELDS, overrideProblem } from './field-values';
export { isIpAddress } from './ip';
export { DEFAULT_POLL_INTERVAL_MS, LiveDeployments, type LiveDeploymentsOptions } from './live';
export { liveRequest, type LiveRequestParts } from './live-request';
export { HTTP_VERSIONS, headerValues, parseCookies, type EdgeRequest, type HeaderLine, type HttpVersion, type ResponseHead } from './request';
export { truncateUtf8 } from './text';
export type * from './trace';
export { authorityOf, parseTarget, type RequestTarget, type Scheme } from './url';
