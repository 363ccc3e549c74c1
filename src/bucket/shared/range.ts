import type { Range } from '../contract';
import { invalidRange } from './errors';
import { describe } from './keys';

/** A range as asked for, before the object's size is known. */
export type RangeRequest =
  | { kind: 'bytes'; offset?: number; length?: number; suffix?: number }
  | { kind: 'header'; first?: number; last?: number; suffix?: number };

/** The bytes to serve. */
export interface ByteRange {
  offset: number;
  length: number;
}

/** Reads the `range` option: a Range object or Headers with `Range: bytes=...`. */
export function parseRange(input: unknown): RangeRequest | undefined {
  if (input === undefined) return undefined;
  if (input instanceof Headers) return parseRangeHeader(input.get('range'));
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`range must be a Range object or Headers, not ${describe(input)}.`);
  }
  const { offset, length, suffix } = input as { offset?: unknown; length?: unknown; suffix?: unknown };
  const request: RangeRequest = { kind: 'bytes' };
  if (offset !== undefined) request.offset = wholeNumber(offset, 'Starting offset', 'range');
  if (length !== undefined) request.length = wholeNumber(length, 'Length', 'range');
  if (suffix !== undefined) {
    if (offset !== undefined) throw new TypeError('Suffix is incompatible with offset.');
    if (length !== undefined) throw new TypeError('Suffix is incompatible with length.');
    request.suffix = wholeNumber(suffix, 'Suffix', 'suffix');
  }
  return request;
}

function wholeNumber(value: unknown, name: string, what: string): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new TypeError(`Invalid ${what}. ${name} must be a number, not ${describe(value)}.`);
  }
  if (value < 0) {
    throw new RangeError(`Invalid ${what}. ${name} (${value}) must be greater than or equal to 0.`);
  }
  if (!Number.isInteger(value)) {
    throw new RangeError(`Invalid ${what}. ${name} (${value}) must be an integer, not floating point.`);
  }
  return value;
}

// RFC 7233: a Range header that is not one well-formed byte range is ignored (whole body).
function parseRangeHeader(header: string | null): RangeRequest | undefined {
  if (header === null) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') return { kind: 'header', suffix: Number(last) };
  const request: RangeRequest = { kind: 'header', first: Number(first) };
  if (last !== '') {
    if (Number(last) < Number(first)) return undefined;
    request.last = Number(last);
  }
  return request;
}

/**
 * The bytes to serve from an object of `size` bytes. Lengths and suffixes beyond the object are
 * clamped; an offset at or past the end, a length of 0 or a suffix of 0 is unsatisfiable.
 */
export function resolveRange(request: RangeRequest | undefined, size: number): ByteRange {
  if (request === undefined) return { offset: 0, length: size };
  let offset: number;
  let length: number | undefined;
  if (request.suffix !== undefined) {
    if (request.suffix === 0) throw invalidRange();
    length = Math.min(request.suffix, size);
    offset = size - length;
  } else if (request.kind === 'header') {
    offset = request.first ?? 0;
    if (request.last !== undefined) length = request.last - offset + 1;
  } else {
    if (request.offset === undefined && request.length === undefined) return { offset: 0, length: size };
    offset = request.offset ?? 0;
    length = request.length;
  }
  if (offset >= size || length === 0) throw invalidRange();
  return { offset, length: Math.min(length ?? size - offset, size - offset) };
}

/**
 * The `range` a result reports: the bytes served. From compatibility date 2025-12-03 the
 * platform's object has all three fields, `suffix` being undefined, so code that tests
 * `'suffix' in range` sees it there too.
 */
export function reportedRange(served: ByteRange, everyField: boolean): Range {
  const range = { offset: served.offset, length: served.length };
  return everyField ? ({ ...range, suffix: undefined } as Range) : range;
}
