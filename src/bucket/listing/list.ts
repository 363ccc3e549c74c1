import { createHash } from 'node:crypto';
import type { ListResult } from '../contract';
import type { ObjectRecord, PageBuilder } from '../engine';
import {
  invalidMaxKeys,
  describe,
  keyAfter,
  keyAfterPrefix,
  maxKey,
  MAX_LIST_LIMIT,
  MAX_LIST_PAGE_BYTES,
} from '../shared';
import { StoredObjectResult } from '../objects';

/** A list call, checked and reduced to one shape. */
export interface ListRequest {
  limit: number;
  prefix: string;
  /** The first key that may be listed (inclusive), from `startAfter` and `cursor`. */
  from: string;
  delimiter?: string;
  includeHttp: boolean;
  includeCustom: boolean;
}

const INCLUDE_VALUES = ['httpMetadata', 'customMetadata'];

/**
 * Checks list options. `honourInclude` follows the compatibility date and flags: without it both
 * metadata kinds are listed whatever `include` says. Null: the cursor is not one of ours, which
 * lists nothing.
 */
export function parseListOptions(options: unknown, honourInclude: boolean): ListRequest | null {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`list options must be an object, not ${describe(options)}.`);
  }
  const o = options as Record<string, unknown>;
  let limit = MAX_LIST_LIMIT;
  if (o.limit !== undefined) {
    if (typeof o.limit !== 'number') throw new TypeError(`limit must be a number, not ${describe(o.limit)}.`);
    if (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > MAX_LIST_LIMIT) throw invalidMaxKeys();
    limit = o.limit;
  }
  const prefix = optionalString(o.prefix, 'prefix') ?? '';
  let from = prefix;
  const startAfter = optionalString(o.startAfter, 'startAfter');
  if (startAfter !== undefined) from = maxKey(from, keyAfter(startAfter));
  const cursor = optionalString(o.cursor, 'cursor');
  if (cursor !== undefined) {
    const position = decodeCursor(cursor);
    if (position === null) return null;
    from = maxKey(from, position);
  }
  const delimiter = optionalString(o.delimiter, 'delimiter');
  let includeHttp = true;
  let includeCustom = true;
  if (o.include !== undefined) {
    if (!Array.isArray(o.include)) throw new TypeError(`include must be an array, not ${describe(o.include)}.`);
    for (const value of o.include) {
      if (!INCLUDE_VALUES.includes(value)) throw new RangeError(`Unsupported include value ${String(value)}`);
    }
  }
  if (honourInclude) {
    const include: unknown[] = (o.include as unknown[] | undefined) ?? [];
    includeHttp = include.includes('httpMetadata');
    includeCustom = include.includes('customMetadata');
  }
  return { limit, prefix, from, delimiter: delimiter || undefined, includeHttp, includeCustom };
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value !== undefined && typeof value !== 'string') {
    throw new TypeError(`${name} must be a string, not ${describe(value)}.`);
  }
  return value;
}

export const emptyPage = (): ListResult => ({ objects: [], delimitedPrefixes: [], truncated: false });

/** Rows asked for at first where a delimiter may end a scan early; a scan that goes on asks for more. */
const FIRST_SCAN_ROWS = 16;
const MAX_SCAN_ROWS = 1024;

/**
 * Builds one page. `limit` counts objects plus delimited prefixes; a prefix group is skipped as a
 * whole. A delimited prefix ends with the delimiter (`a/`, not `a`), as the platform answers, so
 * that it can be passed back as the prefix of the next listing level. The cursor names the
 * position after the last entry, so keys added before it are not listed later and keys added
 * after it are.
 */
export function* buildPage(request: ListRequest): PageBuilder<ListResult> {
  const { limit, prefix, delimiter } = request;
  const objects: StoredObjectResult[] = [];
  const delimitedPrefixes: string[] = [];
  let from: string | null = request.from;
  let next = from;
  let bytes = 0;
  let truncated = false;
  let batch = FIRST_SCAN_ROWS;
  scanning: while (from !== null) {
    // Without a delimiter every row is an entry: ask for the entries the page can still take and
    // one more, which tells whether the page is truncated.
    const entries = objects.length + delimitedPrefixes.length;
    const wanted = delimiter === undefined ? limit - entries + 1 : batch;
    const rows: ObjectRecord[] = yield { from, prefix, limit: wanted };
    for (const record of rows) {
      if (objects.length + delimitedPrefixes.length === limit || bytes >= MAX_LIST_PAGE_BYTES) {
        truncated = true;
        break scanning;
      }
      const cut = delimiter === undefined ? -1 : record.key.indexOf(delimiter, prefix.length);
      if (cut >= 0) {
        const group = record.key.slice(0, cut + delimiter!.length);
        delimitedPrefixes.push(group);
        bytes += Buffer.byteLength(group, 'utf8');
        from = keyAfterPrefix(group);
        if (from !== null) next = from;
        batch = FIRST_SCAN_ROWS;
        continue scanning;
      }
      objects.push(listed(record, request));
      bytes += entryBytes(record, request);
      next = keyAfter(record.key);
    }
    if (rows.length < wanted) break;
    from = keyAfter(rows[rows.length - 1]!.key);
    batch = Math.min(batch * 4, MAX_SCAN_ROWS);
  }
  return truncated
    ? { objects, delimitedPrefixes, truncated, cursor: encodeCursor(next) }
    : { objects, delimitedPrefixes, truncated };
}

function listed(record: ObjectRecord, request: ListRequest): StoredObjectResult {
  return new StoredObjectResult(record, {
    ...(request.includeHttp ? { httpMetadata: record.httpMetadata } : {}),
    ...(request.includeCustom ? { customMetadata: record.customMetadata } : {}),
  });
}

// Roughly what an entry costs in a response: fixed fields, the key and any included metadata.
function entryBytes(record: ObjectRecord, request: ListRequest): number {
  let bytes = 200 + Buffer.byteLength(record.key, 'utf8');
  if (request.includeHttp) bytes += JSON.stringify(record.httpMetadata).length;
  if (request.includeCustom) bytes += JSON.stringify(record.customMetadata).length;
  return bytes;
}

const CURSOR_VERSION = 1;
const TAG_BYTES = 6;

const cursorTag = (position: Buffer) =>
  createHash('sha256').update('bucket-list-cursor').update(position).digest().subarray(0, TAG_BYTES);

function encodeCursor(position: string): string {
  const bytes = Buffer.from(position, 'utf8');
  return Buffer.concat([Buffer.of(CURSOR_VERSION), bytes, cursorTag(bytes)]).toString('base64url');
}

function decodeCursor(cursor: string): string | null {
  const raw = Buffer.from(cursor, 'base64url');
  if (raw.length < 1 + TAG_BYTES || raw[0] !== CURSOR_VERSION) return null;
  const position = raw.subarray(1, raw.length - TAG_BYTES);
  if (!cursorTag(position).equals(raw.subarray(raw.length - TAG_BYTES))) return null;
  return position.toString('utf8');
}

