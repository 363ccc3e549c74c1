import type { Conditional } from '../contract';
import { describe, conditionalHeaderRefusal } from '../shared';

/** One entry of an RFC 7232 entity-tag list. */
type EtagPattern = { kind: 'any' } | { kind: 'strong' | 'weak'; value: string };

/** A precondition in one shape, whichever way it was given. */
export interface Condition {
  etagMatches?: EtagPattern[];
  etagDoesNotMatch?: EtagPattern[];
  uploadedBefore?: number;
  uploadedAfter?: number;
  secondsGranularity: boolean;
}

/** What a condition is tested against. */
export interface ConditionSubject {
  etag: string;
  uploaded: number;
}

/** Reads `onlyIf`: a Conditional object or Headers. */
export function parseCondition(input: unknown): Condition | undefined {
  if (input === undefined) return undefined;
  if (input instanceof Headers) return conditionFromHeaders(input);
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`onlyIf must be a Conditional object or Headers, not ${describe(input)}.`);
  }
  const c = input as Conditional;
  const condition: Condition = { secondsGranularity: optionalBoolean(c.secondsGranularity) };
  if (c.etagMatches !== undefined) condition.etagMatches = [objectFormEtag(c.etagMatches, 'etagMatches')];
  if (c.etagDoesNotMatch !== undefined) {
    condition.etagDoesNotMatch = [objectFormEtag(c.etagDoesNotMatch, 'etagDoesNotMatch')];
  }
  if (c.uploadedBefore !== undefined) condition.uploadedBefore = dateValue(c.uploadedBefore, 'uploadedBefore');
  if (c.uploadedAfter !== undefined) condition.uploadedAfter = dateValue(c.uploadedAfter, 'uploadedAfter');
  return condition;
}

function optionalBoolean(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') {
    throw new TypeError(`onlyIf.secondsGranularity must be a boolean, not ${describe(value)}.`);
  }
  return value;
}

function objectFormEtag(value: unknown, field: string): EtagPattern {
  if (typeof value !== 'string') throw new TypeError(`onlyIf.${field} must be a string, not ${describe(value)}.`);
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    throw new TypeError(`Conditional ETag should not be wrapped in quotes (${value}).`);
  }
  return value === '*' ? { kind: 'any' } : { kind: 'strong', value };
}

function dateValue(value: unknown, field: string): number {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new TypeError(`onlyIf.${field} must be a valid Date.`);
  }
  return value.getTime();
}

function conditionFromHeaders(headers: Headers): Condition {
  // Dates in headers have seconds precision, so comparisons are made in whole seconds.
  const condition: Condition = { secondsGranularity: true };
  const ifMatch = headers.get('if-match');
  if (ifMatch !== null) condition.etagMatches = parseEtagList(ifMatch, 'if-match');
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) condition.etagDoesNotMatch = parseEtagList(ifNoneMatch, 'if-none-match');
  // RFC 7232 3.3 and 3.4: a value that is not a valid HTTP-date is ignored.
  const modifiedSince = Date.parse(headers.get('if-modified-since') ?? '');
  if (!Number.isNaN(modifiedSince)) condition.uploadedAfter = modifiedSince;
  const unmodifiedSince = Date.parse(headers.get('if-unmodified-since') ?? '');
  // RFC 7232 3.4: the condition holds when the object was last modified at or before the date,
  // so a Last-Modified echoed back passes; uploadedBefore itself compares strictly.
  if (!Number.isNaN(unmodifiedSince)) condition.uploadedBefore = unmodifiedSince + 1000;
  return condition;
}

/**
 * Parses `*` or a comma-separated list of `"tag"` / `W/"tag"` (RFC 7232 section 3.1). A
 * malformed list is a plain Error with the platform's own message (not a TypeError: worker code
 * tells them apart).
 */
function parseEtagList(header: string, name: 'if-match' | 'if-none-match'): EtagPattern[] {
  if (header.trim() === '*') return [{ kind: 'any' }];
  const patterns: EtagPattern[] = [];
  let i = 0;
  const fail = (): never => {
    throw conditionalHeaderRefusal(`Invalid ETag in ${name} header`);
  };
  while (i < header.length) {
    const c = header[i]!;
    if (c === ' ' || c === '\t' || c === ',') {
      i++;
      continue;
    }
    const weak = header.startsWith('W/', i);
    const open = weak ? i + 2 : i;
    if (header[open] !== '"') fail(); // entity tags must be quoted, as in "tag" or W/"tag".
    const close = header.indexOf('"', open + 1);
    if (close < 0) fail(); // an entity tag is missing its closing quote.
    patterns.push({ kind: weak ? 'weak' : 'strong', value: header.slice(open + 1, close) });
    i = close + 1;
    while (header[i] === ' ' || header[i] === '\t') i++;
    if (i < header.length && header[i] !== ',') fail(); // entity tags must be separated by commas.
  }
  if (patterns.length === 0) fail(); // no entity tag given.
  return patterns;
}

function listIncludes(patterns: EtagPattern[], etag: string, comparison: 'strong' | 'weak'): boolean {
  return patterns.some(
    (p) => p.kind === 'any' || (p.value === etag && (p.kind === 'strong' || comparison === 'weak')),
  );
}

const toSeconds = (ms: number) => Math.floor(ms / 1000) * 1000;

/**
 * Tests a condition against the stored object, or against its absence (only `put` asks that:
 * reads answer null for a missing key before any condition).
 */
export function conditionHolds(condition: Condition, subject: ConditionSubject | null): boolean {
  if (subject === null) {
    return condition.etagMatches === undefined && condition.uploadedAfter === undefined;
  }
  const round = condition.secondsGranularity ? toSeconds : (ms: number) => ms;
  const uploaded = round(subject.uploaded);
  const ifMatch =
    condition.etagMatches === undefined || listIncludes(condition.etagMatches, subject.etag, 'strong');
  const ifNoneMatch =
    condition.etagDoesNotMatch === undefined ||
    !listIncludes(condition.etagDoesNotMatch, subject.etag, 'weak');
  // RFC 7232 section 6: a present If-Match decides instead of If-Unmodified-Since, and a present
  // If-None-Match instead of If-Modified-Since.
  const modifiedSince =
    condition.uploadedAfter === undefined ||
    condition.etagDoesNotMatch !== undefined ||
    round(condition.uploadedAfter) < uploaded;
  const unmodifiedSince =
    condition.uploadedBefore === undefined ||
    condition.etagMatches !== undefined ||
    uploaded < round(condition.uploadedBefore);
  return ifMatch && ifNoneMatch && modifiedSince && unmodifiedSince;
}
