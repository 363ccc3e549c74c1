/**
 * The reference worker: exposes the bucket bound as `MY_BUCKET` over HTTP, the object key
 * being the request path without its leading slash (percent-decoded).
 *
 * - PUT stores the streamed body with the request's HTTP metadata (`Content-Type`, ...):
 *   `Put <key> successfully!`. DELETE deletes: `Deleted!`. Both need `X-Custom-Auth-Key` equal
 *   to the `AUTH_KEY_SECRET` secret.
 * - GET / HEAD serve keys of the `ALLOW_LIST` var only, with the stored HTTP metadata, `etag`,
 *   conditional requests (304 / 412) and, for GET, single byte ranges (206 / 416); a missing
 *   key answers 404 `Object Not Found`.
 * - A request failing authorization answers 403 `Forbidden`; any other method 405 with
 *   `Allow: PUT, GET, DELETE`.
 *
 * It uses Web APIs only (no Node API), so the same module runs on the platform.
 */
import type { Bucket } from '../../bucket';
import { allowedKeys, hasValidAuthKey } from './authorization';
import { bindingErrorCode, deleteObject, plainText, putObject, readObject } from './object-responses';

export interface ReferenceWorkerEnv {
  MY_BUCKET: Bucket;
  /** A secret: from the environment or `.dev.vars`, never from the configuration file. */
  AUTH_KEY_SECRET?: string;
  /** Keys GET may serve: comma-separated, or an array of keys. */
  ALLOW_LIST?: string | string[];
}

const ALLOWED_METHODS = 'PUT, GET, DELETE';
const KEY_NAME_NOT_VALID = 10020;
const OBJECT_TOO_LARGE = 100100;
const MALFORMED_ETAGS = /^Invalid ETag in if-(none-)?match header$/;

export default {
  async fetch(request: Request, env: ReferenceWorkerEnv): Promise<Response> {
    const method = request.method;
    if (!['PUT', 'DELETE', 'GET', 'HEAD'].includes(method)) {
      return plainText('Method Not Allowed', 405, { allow: ALLOWED_METHODS });
    }
    const writes = method === 'PUT' || method === 'DELETE';
    if (writes && !(await hasValidAuthKey(request, env.AUTH_KEY_SECRET))) return forbidden();
    const key = objectKey(request.url);
    if (!writes && (key === null || !allowedKeys(env.ALLOW_LIST).includes(key))) return forbidden();
    if (key === null) return plainText('Bad Request: the path is not valid percent-encoding', 400);
    const bucket = requireBucket(env);
    try {
      if (method === 'PUT') return await putObject(bucket, key, request);
      if (method === 'DELETE') return await deleteObject(bucket, key);
      return await readObject(bucket, key, request);
    } catch (error) {
      const response = requestErrorResponse(error);
      if (response) return response;
      throw error;
    }
  },
};

function forbidden(): Response {
  return plainText('Forbidden', 403);
}

/** The key named by the path, or null when its percent-encoding is malformed. */
function objectKey(url: string): string | null {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1));
  } catch {
    return null;
  }
}

function requireBucket(env: ReferenceWorkerEnv): Bucket {
  if (!env.MY_BUCKET) {
    throw new Error('env.MY_BUCKET is not bound: add [[r2_buckets]] with binding = "MY_BUCKET" to the configuration.');
  }
  return env.MY_BUCKET;
}

/**
 * Binding failures caused by the request itself: a key too long, a body too large, a body
 * streamed without a length (TypeError), malformed If-Match / If-None-Match (a plain Error with
 * the platform's message). Anything else is the host's to report.
 */
function requestErrorResponse(error: unknown): Response | undefined {
  if (error instanceof Error && MALFORMED_ETAGS.test(error.message)) return plainText(`Bad Request: ${error.message}`, 400);
  const code = bindingErrorCode(error);
  if (code === KEY_NAME_NOT_VALID) return plainText('Bad Request: the key is not a valid object name (at most 1024 bytes of UTF-8)', 400);
  if (code === OBJECT_TOO_LARGE) return plainText('Payload Too Large', 413);
  if (error instanceof TypeError) return plainText(`Bad Request: ${error.message}`, 400);
  return undefined;
}
