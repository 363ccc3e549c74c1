/** Preconditions and ranges as S3 clients send them, in the runtime's terms. */
import type { Range, StoredObject } from '../bucket';
import { notImplemented, preconditionFailed, S3Error } from './errors';
import type { ReadHeaders } from './request-headers';

const CONDITION_HEADERS = ['if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since'] as const;

/**
 * S3 clients often send etags without quotes; RFC 7232 lists (what the runtime reads) quote
 * them, so bare tags are quoted.
 */
function quoteEtags(list: string): string {
  return list
    .split(',')
    .map((tag) => tag.trim())
    .map((tag) => (tag === '*' || tag.startsWith('"') || tag.startsWith('W/') ? tag : `"${tag}"`))
    .join(', ');
}

/**
 * The conditions of a request as Headers for `onlyIf`, read from `prefix + name` (S3's copy
 * requests use `x-amz-copy-source-if-match` and so on); undefined when there are none.
 */
export function conditionsOf(headers: ReadHeaders, prefix = ''): Headers | undefined {
  // Made only when needed: most requests have no conditions.
  let conditions: Headers | undefined;
  for (const name of CONDITION_HEADERS) {
    const value = headers.get(prefix + name);
    if (value === null) continue;
    conditions ??= new Headers();
    conditions.set(name, name.endsWith('match') ? quoteEtags(value) : value);
  }
  return conditions;
}

/** The conditions of a write: `If-None-Match: *` (create only) and `If-Match`. */
export function writeConditions(headers: ReadHeaders): Headers | undefined {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null && ifNoneMatch.trim() !== '*') {
    throw notImplemented(`If-None-Match other than * on a write (${ifNoneMatch})`);
  }
  const conditions = conditionsOf(headers);
  conditions?.delete('if-modified-since');
  conditions?.delete('if-unmodified-since');
  return conditions;
}

function listHas(list: string, etag: string): boolean {
  return list.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === `"${etag}"`;
  });
}

/**
 * Which answer a read whose conditions failed gets: 412 when If-Match (or, without it,
 * If-Unmodified-Since) failed, else 304 Not Modified (RFC 7232 section 6 and S3).
 */
export function failedReadCondition(conditions: Headers, object: StoredObject): 'not-modified' | S3Error {
  const ifMatch = conditions.get('if-match');
  if (ifMatch !== null) {
    if (!listHas(ifMatch, object.etag)) return preconditionFailed('If-Match');
  } else {
    const since = Date.parse(conditions.get('if-unmodified-since') ?? '');
    if (!Number.isNaN(since) && Math.floor(object.uploaded.getTime() / 1000) * 1000 > since) {
      return preconditionFailed('If-Unmodified-Since');
    }
  }
  return 'not-modified';
}

/**
 * A `Range: bytes=...` header as a runtime Range. A header that is not one well-formed byte
 * range is ignored, as S3 and RFC 7233 do (the whole object is served).
 */
export function rangeOf(header: string | null): Range | undefined {
  if (header === null) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return undefined;
  if (first === '') return { suffix: Number(last) };
  if (last === '') return { offset: Number(first) };
  if (Number(last) < Number(first)) return undefined;
  return { offset: Number(first), length: Number(last) - Number(first) + 1 };
}
