/**
 * Faults on purpose: rules that make chosen requests fail, slow down or lose their connection,
 * so a client's retries meet in a test what production will send them. Knows nothing of the API
 * or the S3 endpoint: each face describes its requests (`FaultRequest`), asks `decide`, and
 * answers the fault in its own format (the envelope, S3's XML) before its handler runs, so a
 * request failed on purpose changes nothing.
 *
 * - `new FaultSet(face, catalogue, log)`: one face's rules; `replace(list, source)` checks and
 *   installs them (a `FaultRulesError` lists every problem, naming rule and field), `decide`,
 *   `list` (with counters), `clear`.
 * - `readRulesFile(file)`: the `api` and `s3` lists of a TOML or JSON file.
 * - `splitFaces(document, source)`: the same lists from a control endpoint's body.
 * - `dropConnection(response, point, answer)`: the dropped connection, on a Node response.
 * - `defaultApiErrors`, `S3_ERRORS`, `RATE_LIMITED`: the services' own error answers.
 */
export { defaultApiErrors, RATE_LIMITED, S3_ERRORS, type ApiErrorItem } from './answers';
export { dropConnection, type PartialAnswer } from './connection';
export { FaultRulesError } from './errors';
export { describeEffect, FaultSet, type FaultLogEntry, type FaultRequest, type InjectedFault, type RuleStatus } from './fault-set';
export { DROP_POINTS, MAX_DELAY_MS, splitFaces, type DropPoint, type Face, type FaultEffect, type RuleCatalogue } from './rule-schema';
export { readRulesFile } from './rules-file';
