/**
 * The steps the platform plugs into the edge for zones' traffic: `judgeStep` (who the client is,
 * the platform's limits, the zone's deployed rules, before the answer), `originStep` (the zone's
 * origin when no worker runs), `logStep` (the response phase and the log entries, after the
 * answer).
 */
export { judgeStep, type JudgeStepOptions } from './judge-step';
export { logStep } from './log-step';
export { originStep } from './origin-step';
export { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_URL_BYTES, maxBodyBytes } from './request-limits';
