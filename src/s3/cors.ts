/**
 * CORS at the S3 endpoint, from the bucket's CORS rules (set through the management API or
 * wrangler): browser preflights (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) are
 * answered without credentials, as S3 does, and answers to requests that carry an `Origin` get
 * the headers of the first rule that allows them.
 */
import { matchCorsRule, type AccountBuckets, type CorsRule } from '../bucket';
import type { S3Response } from './context';
import { noSuchBucket, S3Error } from './errors';
import type { S3Request } from './request';

const NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;

async function rulesOf(buckets: AccountBuckets, bucket: string | undefined): Promise<CorsRule[] | null> {
  if (bucket === undefined || !NAME.test(bucket)) return null;
  try {
    return await buckets.cors(bucket);
  } catch {
    return null;
  }
}

const forbidden = () => new S3Error('AccessForbidden', 403, 'CORSResponse: This CORS request is not allowed. This is usually because the evaluation of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource\'s CORS spec.');

/** Whether the request is a browser preflight. */
export function isPreflight(request: S3Request): boolean {
  return request.method === 'OPTIONS' && request.headers.has('origin') && request.headers.has('access-control-request-method');
}

/** The answer to a preflight: the matching rule's permissions, or AccessForbidden. */
export async function preflight(request: S3Request, buckets: AccountBuckets): Promise<S3Response> {
  if (request.bucket === undefined) throw forbidden();
  if (!(await bucketExists(buckets, request.bucket))) throw noSuchBucket(request.bucket);
  const origin = request.headers.get('origin')!;
  const method = request.headers.get('access-control-request-method')!;
  const asked = (request.headers.get('access-control-request-headers') ?? '')
    .split(',')
    .map((header) => header.trim())
    .filter((header) => header !== '');
  const rule = matchCorsRule((await rulesOf(buckets, request.bucket)) ?? [], origin, method, asked);
  if (!rule) throw forbidden();
  return {
    status: 200,
    headers: {
      'access-control-allow-origin': rule.allowed.origins.includes('*') ? '*' : origin,
      'access-control-allow-methods': rule.allowed.methods.join(', '),
      ...(asked.length > 0 ? { 'access-control-allow-headers': asked.join(', ') } : {}),
      ...(rule.maxAgeSeconds === undefined ? {} : { 'access-control-max-age': String(rule.maxAgeSeconds) }),
      ...(rule.exposeHeaders?.length ? { 'access-control-expose-headers': rule.exposeHeaders.join(', ') } : {}),
      vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
    },
  };
}

async function bucketExists(buckets: AccountBuckets, name: string): Promise<boolean> {
  if (!NAME.test(name)) return false;
  try {
    await buckets.get(name);
    return true;
  } catch {
    return false;
  }
}

/** The CORS headers an answer to a request with an `Origin` gets (none when no rule allows it). */
export async function corsHeaders(request: S3Request, buckets: AccountBuckets): Promise<Record<string, string>> {
  const origin = request.headers.get('origin');
  if (origin === null) return {};
  const rule = matchCorsRule((await rulesOf(buckets, request.bucket)) ?? [], origin, request.method);
  if (!rule) return {};
  return {
    'access-control-allow-origin': rule.allowed.origins.includes('*') ? '*' : origin,
    ...(rule.exposeHeaders?.length ? { 'access-control-expose-headers': rule.exposeHeaders.join(', ') } : {}),
    vary: 'Origin',
  };
}
