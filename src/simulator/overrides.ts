/**
 * Overrides: values of platform-computed fields (geolocation, ASN, bot and threat scores, TLS
 * details, timestamps...) that a request description supplies, keyed by rules-language field
 * name and checked against the field's type.
 */
import { FIELD_TYPES, type FilterType, typeName } from '../filter';
import { isIpAddress } from './ip';
import type { DescriptionIssue } from './errors';
import { DERIVED_FIELDS } from './fields';
import type { ContextValue } from './types';

export type FieldOverrides = Readonly<Record<string, ContextValue>>;

/** The overrides that are valid; a problem with any of them is added to `issues`. */
export function checkOverrides(overrides: Readonly<Record<string, unknown>>, issues: DescriptionIssue[]): FieldOverrides {
  const checked: Record<string, ContextValue> = {};
  for (const [field, value] of Object.entries(overrides)) {
    const path = `overrides.${field}`;
    const type = FIELD_TYPES.get(field);
    const source = DERIVED_FIELDS.get(field);
    if (type === undefined) {
      issues.push({ path, message: 'is not a field of the rules language' });
    } else if (source !== undefined) {
      issues.push({ path, message: `is derived from ${source}; describe the request instead of overriding it` });
    } else {
      const problem = mismatch(value, type);
      if (problem === null) checked[field] = value as ContextValue;
      else issues.push({ path: problem.at === '' ? path : `${path}${problem.at}`, message: problem.message });
    }
  }
  checkTimestamps(checked, issues);
  return checked;
}

/** Where inside a value (`[0]`, `["key"]`) it stops matching the type, or null when it matches. */
function mismatch(value: unknown, type: FilterType, at = ''): { at: string; message: string } | null {
  const expected = (what: string) => ({ at, message: `must be ${what} (${typeName(type)})` });
  switch (type) {
    case 'Bytes':
      return typeof value === 'string' ? null : expected('a string');
    case 'Int':
      return Number.isSafeInteger(value) ? null : expected('an integer');
    case 'Bool':
      return typeof value === 'boolean' ? null : expected('true or false');
    case 'Ip':
      return typeof value === 'string' && isIpAddress(value) ? null : expected('an IPv4 or IPv6 address');
  }
  if ('array' in type) {
    if (!Array.isArray(value)) return expected('an array');
    for (const [i, item] of value.entries()) {
      const problem = mismatch(item, type.array, `${at}[${i}]`);
      if (problem) return problem;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return expected('an object');
  for (const [key, item] of Object.entries(value)) {
    const problem = mismatch(item, type.map, `${at}[${JSON.stringify(key)}]`);
    if (problem) return problem;
  }
  return null;
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
