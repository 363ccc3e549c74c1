/**
 * The request simulator: what a zone's deployed rules would do to one HTTP request, from the
 * state the store holds, without sending anything anywhere.
 *
 * - `simulate(store, zoneId, description, options?)` checks the request description (JSON:
 *   method, url, headers, cookies, body, client_ip, http_version, overrides of platform-computed
 *   fields, response), builds the rules-language context, runs the entry points of the
 *   request phases (and the response phase when a response is described) with `execute`,
 *   overrides, OWASP scoring, terminating actions and `skip`, and answers the trace, the threat
 *   score, the final action and the log entry of each `http_requests` log push job with the
 *   zone's custom fields (see types.ts for the result).
 * - `formatReport(result)` renders a result as a readable trace.
 * - Errors: InvalidRequestDescriptionError (with every issue), UnknownZoneError.
 */
export { simulate, type SimulateOptions } from './simulate';
export { formatReport } from './report';
export type { HttpVersion, RequestDescription } from './description';
export { type DescriptionIssue, InvalidRequestDescriptionError, SimulationError, UnknownZoneError, describeIssue } from './errors';
export type * from './types';
