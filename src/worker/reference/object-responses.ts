// What the reference worker answers for each method, through the bucket's own conditional and
// range support. Web APIs only.
import type { Bucket, StoredObject, StoredObjectBody } from '../../bucket';

/** A plain-text answer. */
export function plainText(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers } });
}

/** Stores the streamed body with the HTTP metadata of the request; conditional on its If-* headers. */
export async function putObject(bucket: Bucket, key: string, request: Request): Promise<Response> {
  const stored = await bucket.put(key, request.body, { httpMetadata: request.headers, onlyIf: request.headers });
  if (stored === null) return plainText('Precondition Failed', 412);
  return plainText(`Put ${key} successfully!`, 200, { etag: stored.httpEtag });
}

export async function deleteObject(bucket: Bucket, key: string): Promise<Response> {
  await bucket.delete(key);
  return plainText('Deleted!');
}

/**
 * GET: the body with the stored HTTP metadata, `etag` and `last-modified`; 206 for a satisfiable
 * `Range`, 416 for an unsatisfiable one; 304 / 412 when a precondition fails (RFC 7232).
 * HEAD: the same status and headers without a body (ranges apply to GET only).
 */
export async function readObject(bucket: Bucket, key: string, request: Request): Promise<Response> {
  const isGet = request.method === 'GET';
  let object: StoredObject | StoredObjectBody | null;
  try {
    object = await bucket.get(key, { onlyIf: request.headers, ...(isGet ? { range: request.headers } : {}) });
  } catch (error) {
    if (bindingErrorCode(error) !== RANGE_NOT_SATISFIABLE) throw error;
    const stored = await bucket.head(key);
    if (stored === null) return plainText('Object Not Found', 404);
    return plainText('Range Not Satisfiable', 416, { 'content-range': `bytes */${stored.size}` });
  }
  if (object === null) return isGet ? plainText('Object Not Found', 404) : new Response(null, { status: 404 });
  if (!('body' in object)) return failedPrecondition(bucket, key, request, object);
  const headers = representationHeaders(object);
  const { offset, length } = servedBytes(object);
  headers.set('content-length', String(length));
  const partial = request.headers.has('range') && length < object.size;
  if (partial) headers.set('content-range', `bytes ${offset}-${offset + length - 1}/${object.size}`);
  if (!isGet) {
    await object.body.cancel();
    return new Response(null, { status: 200, headers });
  }
  return new Response(object.body, { status: partial ? 206 : 200, headers });
}

/** The storage error code at the end of a binding error's message: `get: ... (10039)`. */
export function bindingErrorCode(error: unknown): number | undefined {
  const match = error instanceof Error ? /\((\d+)\)$/.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

const RANGE_NOT_SATISFIABLE = 10039;

function representationHeaders(object: StoredObject): Headers {
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  headers.set('etag', object.httpEtag);
  headers.set('last-modified', object.uploaded.toUTCString());
  headers.set('accept-ranges', 'bytes');
  return headers;
}

/**
 * The bytes a read serves, whichever form of `range` the binding reports. A property is tested
 * for its value, not its presence: from compatibility date 2025-12-03 (`enable_fast_jsg_struct`)
 * the platform's range object carries every field, `suffix: undefined` included.
 */
function servedBytes(object: StoredObjectBody): { offset: number; length: number } {
  const range = object.range as { offset?: number; length?: number; suffix?: number } | undefined;
  if (!range) return { offset: 0, length: object.size };
  if (range.suffix !== undefined) return { offset: object.size - range.suffix, length: range.suffix };
  const offset = range.offset ?? 0;
  return { offset, length: range.length ?? object.size - offset };
}

/**
 * The binding only says that the preconditions failed. RFC 7232 answers 412 when If-Match or
 * If-Unmodified-Since fails and 304 when only If-None-Match or If-Modified-Since does, so with
 * both kinds present the first kind is asked again on its own.
 */
async function failedPrecondition(bucket: Bucket, key: string, request: Request, object: StoredObject): Promise<Response> {
  const strict = new Headers();
  for (const name of ['if-match', 'if-unmodified-since']) {
    const value = request.headers.get(name);
    if (value !== null) strict.set(name, value);
  }
  const hasCacheValidators = request.headers.has('if-none-match') || request.headers.has('if-modified-since');
  let notModified = [...strict.keys()].length === 0;
  if (!notModified && hasCacheValidators) {
    const strictOnly = await bucket.get(key, { onlyIf: strict });
    if (strictOnly !== null && 'body' in strictOnly) {
      await strictOnly.body.cancel();
      notModified = true;
    }
  }
  if (!notModified) return request.method === 'GET' ? plainText('Precondition Failed', 412) : new Response(null, { status: 412 });
  // A 304 carries the validators and caching headers a 200 would have had, not the content ones.
  const full = representationHeaders(object);
  const headers = new Headers();
  for (const name of ['etag', 'last-modified', 'cache-control', 'expires']) {
    const value = full.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(null, { status: 304, headers });
}
