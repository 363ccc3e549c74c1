/**
 * Overrides: values of platform-computed fields (geolocation, ASN, bot and threat scores, TLS
 * details, timestamps...) that a request description supplies, keyed by rules-language field
 * name and checked against the field's type.
 */
import { type ContextValue, type FieldOverrides, overrideProblem } from '../judge';
import type { DescriptionIssue } from './errors';

export type { FieldOverrides };

/** The overrides that are valid; a problem with any of them is added to `issues`. */
export function checkOverrides(overrides: Readonly<Record<string, unknown>>, issues: DescriptionIssue[]): FieldOverrides {
  const checked: Record<string, ContextValue> = {};
  for (const [field, value] of Object.entries(overrides)) {
    const path = `overrides.${field}`;
    const problem = overrideProblem(field, value);
    if (problem === null) checked[field] = value as ContextValue;
    else issues.push({ path: problem.at === '' ? path : `${path}${problem.at}`, message: problem.message });
  }
  checkTimestamps(checked, issues);
  return checked;
}

/** The latest instant a JavaScript Date holds (year 275760). */
const MAX_TIME_MS = 8.64e15;

/** Both timestamp fields name the same instant when both are given, and one a clock can show. */
function checkTimestamps(overrides: Record<string, ContextValue>, issues: DescriptionIssue[]) {
  const sec = overrides['http.request.timestamp.sec'];
  const msec = overrides['http.request.timestamp.msec'];
  for (const [field, value, scale] of [['sec', sec, 1000], ['msec', msec, 1]] as const) {
    if (typeof value === 'number' && (value < 0 || value * scale > MAX_TIME_MS)) {
      issues.push({ path: `overrides.http.request.timestamp.${field}`, message: `must be a time from 1970 on, at most ${MAX_TIME_MS / scale}` });
    }
  }
  if (typeof sec === 'number' && typeof msec === 'number' && Math.floor(msec / 1000) !== sec) {
    issues.push({ path: 'overrides.http.request.timestamp.msec', message: `names another second than http.request.timestamp.sec (${sec})` });
  }
}
