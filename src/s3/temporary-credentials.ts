/**
 * Temporary credentials at the S3 endpoint (issued by the management API's
 * `POST /accounts/{account_id}/r2/temp-access-credentials`): a request carrying a session token
 * (`x-amz-security-token`, as the AWS SDKs send it, or `X-Amz-Security-Token` in a presigned URL)
 * is checked against the token's grant. Nothing is stored: the token is sealed with the parent
 * key's secret, and the secret it is signed with is derived from the same (see
 * `src/bucket/temporary-credentials.ts`).
 */
import { grantRefusal, openSessionToken, TemporaryCredentialsError, type TemporaryGrant } from '../bucket';
import { accessDenied, S3Error } from './errors';
import type { S3Request } from './request';
import type { AccessKeys } from './sigv4';

/** The keys a request may be signed with, and the grant that limits it when it has a token. */
export interface RequestKeys {
  keys: AccessKeys;
  grant?: TemporaryGrant;
}

function sessionTokenOf(request: S3Request): string | undefined {
  return request.headers.get('x-amz-security-token') ?? request.params.get('X-Amz-Security-Token');
}

/**
 * With a session token, the one key it grants (its derived secret) instead of the endpoint's
 * keys; without, the endpoint's keys. A token for another account is refused.
 */
export function keysForRequest(request: S3Request, keys: AccessKeys, account: string, now: number): RequestKeys {
  const token = sessionTokenOf(request);
  if (token === undefined) return { keys };
  let opened;
  try {
    opened = openSessionToken(token, (id) => keys.get(id), now);
  } catch (error) {
    if (!(error instanceof TemporaryCredentialsError)) throw error;
    if (error.reason === 'expired') throw new S3Error('ExpiredToken', 400, error.message);
    throw new S3Error('InvalidToken', 400, error.message);
  }
  if (opened.grant.account !== account) throw accessDenied('These credentials belong to another account than this endpoint serves.');
  return { keys: new Map([[opened.grant.accessKeyId, opened.secretAccessKey]]), grant: opened.grant };
}

/** Operations that change nothing. */
const READS = new Set(['GET', 'HEAD']);

/** Refuses (AccessDenied) a request the grant does not cover: another bucket, a write, a key outside its scope. */
export function requireInScope(grant: TemporaryGrant, request: S3Request, operation: string): void {
  const write = !READS.has(request.method);
  const refuse = (reason: string | null) => {
    if (reason !== null) throw accessDenied(`Access Denied: ${reason}`);
  };
  if (request.key !== undefined) {
    refuse(grantRefusal(grant, { bucket: request.bucket, key: request.key, write }));
    const source = request.headers.get('x-amz-copy-source');
    if (source !== null) {
      const [bucket, ...key] = decodeURIComponent(source.replace(/^\//, '').split('?')[0]!).split('/');
      refuse(grantRefusal(grant, { bucket, key: key.join('/'), write: false }));
    }
    return;
  }
  if (operation === 'ListObjects' || operation === 'ListObjectsV2' || operation === 'ListMultipartUploads') {
    refuse(grantRefusal(grant, { bucket: request.bucket, listPrefix: request.params.get('prefix') ?? '', write: false }));
    return;
  }
  if (operation === 'DeleteObjects') {
    // The keys are in the body: only credentials not narrowed to prefixes or objects may send it.
    refuse(grantRefusal(grant, { bucket: request.bucket, listPrefix: '', write: true }));
    return;
  }
  refuse(grantRefusal(grant, { bucket: request.bucket, write }));
}
