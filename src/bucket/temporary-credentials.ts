/**
 * Temporary S3 credentials: issued by the management API, accepted by the S3 endpoint, stored
 * nowhere. The session token carries the grant (account, bucket, permission, prefixes, objects,
 * expiry, the parent access key id and the temporary access key id), sealed with an HMAC under
 * the parent key's secret; the temporary secret is another HMAC of the same grant. The endpoint,
 * which knows the parent secret, checks the seal, derives the secret to verify the request's
 * signature, then checks the expiry and the scope. No secret is written anywhere; a parent key
 * taken away ends every credential derived from it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type TemporaryPermission = 'admin-read-write' | 'admin-read-only' | 'object-read-write' | 'object-read-only';

export interface TemporaryGrant {
  account: string;
  bucket: string;
  parentAccessKeyId: string;
  permission: TemporaryPermission;
  /** Keys starting with one of these (with `objects`: or being one of those). */
  prefixes?: string[];
  objects?: string[];
  /** Epoch milliseconds after which the credentials are refused. */
  expiresAt: number;
  /** The access key id the credentials sign with. */
  accessKeyId: string;
}

export interface TemporaryCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

const TOKEN_VERSION = 1;

const seal = (secret: string, payload: string) => createHmac('sha256', secret).update(`session-token\n${payload}`).digest();
const deriveSecret = (secret: string, payload: string) =>
  createHmac('sha256', secret).update(`temporary-secret\n${payload}`).digest('hex');

/** Issues credentials for a grant, from the parent access key's secret. */
export function issueTemporaryCredentials(
  grant: Omit<TemporaryGrant, 'accessKeyId'>,
  parentSecret: string,
): TemporaryCredentials {
  const accessKeyId = `TMP${randomBytes(12).toString('hex').toUpperCase()}`;
  const payload = Buffer.from(JSON.stringify({ v: TOKEN_VERSION, ...grant, accessKeyId }), 'utf8').toString('base64url');
  return {
    accessKeyId,
    secretAccessKey: deriveSecret(parentSecret, payload),
    sessionToken: `${payload}.${seal(parentSecret, payload).toString('base64url')}`,
  };
}

/** Why a session token is refused. */
export class TemporaryCredentialsError extends Error {
  override readonly name = 'TemporaryCredentialsError';

  constructor(
    readonly reason: 'malformed' | 'unknown-parent' | 'bad-seal' | 'expired',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The grant of a session token, and the secret its requests are signed with (under
 * `grant.accessKeyId`: a request signed with another key id does not verify). `parentSecret`
 * finds a parent key's secret by id. Expiry is checked too.
 */
export function openSessionToken(
  sessionToken: string,
  parentSecret: (id: string) => string | undefined,
  now: number,
): { grant: TemporaryGrant; secretAccessKey: string } {
  const dot = sessionToken.indexOf('.');
  if (dot <= 0) throw new TemporaryCredentialsError('malformed', 'The provided token is malformed or otherwise invalid.');
  const payload = sessionToken.slice(0, dot);
  let grant: TemporaryGrant & { v?: number };
  try {
    grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TemporaryGrant & { v?: number };
  } catch {
    throw new TemporaryCredentialsError('malformed', 'The provided token is malformed or otherwise invalid.');
  }
  if (grant.v !== TOKEN_VERSION || typeof grant.parentAccessKeyId !== 'string' || typeof grant.expiresAt !== 'number') {
    throw new TemporaryCredentialsError('malformed', 'The provided token is malformed or otherwise invalid.');
  }
  const secret = parentSecret(grant.parentAccessKeyId);
  if (secret === undefined) {
    throw new TemporaryCredentialsError('unknown-parent', 'The provided token was issued for an access key this endpoint does not have.');
  }
  const expected = seal(secret, payload);
  const presented = Buffer.from(sessionToken.slice(dot + 1), 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw new TemporaryCredentialsError('bad-seal', 'The provided token is malformed or otherwise invalid.');
  }
  if (now >= grant.expiresAt) throw new TemporaryCredentialsError('expired', 'The provided token has expired.');
  return { grant, secretAccessKey: deriveSecret(secret, payload) };
}

/** What a request asks of a grant. */
export interface ScopedAccess {
  bucket: string | undefined;
  /** The object key, for object operations; undefined for bucket-level ones. */
  key?: string;
  /** A listing: allowed under the grant's prefixes (the listed prefix must lie within one). */
  listPrefix?: string;
  write: boolean;
}

/** Whether the grant allows the access; a reason when it does not. */
export function grantRefusal(grant: TemporaryGrant, access: ScopedAccess): string | null {
  if (access.bucket !== grant.bucket) return `These credentials reach bucket ${grant.bucket} only.`;
  if (access.write && grant.permission.endsWith('read-only')) return 'These credentials are read-only.';
  const admin = grant.permission.startsWith('admin-');
  const scoped = (grant.prefixes?.length ?? 0) > 0 || (grant.objects?.length ?? 0) > 0;
  if (access.key !== undefined) {
    if (!scoped) return null;
    const inScope = (grant.prefixes ?? []).some((prefix) => access.key!.startsWith(prefix)) || (grant.objects ?? []).includes(access.key);
    return inScope ? null : `These credentials do not reach the key ${access.key}.`;
  }
  if (access.listPrefix !== undefined) {
    if (!scoped) return null;
    const within = (grant.prefixes ?? []).some((prefix) => access.listPrefix!.startsWith(prefix));
    return within ? null : 'These credentials may list only within their prefixes.';
  }
  // The bucket itself (its location, deletion, uploads listing): admin permissions only.
  return admin ? null : 'These credentials reach objects only, not the bucket itself.';
}
