/**
 * The tokens of static assets uploads: JWTs (HS256) signed with a key derived from the secrets
 * key (`SecretBox.derive(ASSET_TOKEN_PURPOSE)`), so they are never stored and hold across every
 * instance sharing that key. An `upload` token authorizes the uploads of one session; a
 * `complete` token is what a version's upload names. Each names its account, script and session
 * and expires after TOKEN_SECONDS; anything else (another signature, another account or script,
 * the wrong kind, past its time) is refused, compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WorkerAssetsError } from '../errors';

export const ASSET_TOKEN_PURPOSE = 'workers-assets-upload-token-v1';
/** How long a token is good for (the platform's upload sessions last an hour). */
export const TOKEN_SECONDS = 3600;

export interface AssetTokenClaims {
  /** The session. */
  sub: string;
  /** Account and script. */
  acc: string;
  scr: string;
  typ: 'upload' | 'complete';
  iat: number;
  exp: number;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

export function signAssetToken(key: Uint8Array, claims: AssetTokenClaims): string {
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The claims of a token this key signed, still valid at `nowSeconds`, of the kind wanted. */
export function verifyAssetToken(key: Uint8Array, token: string, kind: AssetTokenClaims['typ'], nowSeconds: number): AssetTokenClaims {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) throw refused('it is not a token of this platform');
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused('its signature does not match');
  let claims: AssetTokenClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as AssetTokenClaims;
  } catch {
    throw refused('its claims are not JSON');
  }
  if (claims.typ !== kind) throw refused(kind === 'upload' ? 'it is a completion token, not an upload token' : 'it is an upload token, not a completion token (the last upload answers the completion token)');
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds) throw refused('it has expired: start a new upload session');
  return claims;
}

function refused(why: string): WorkerAssetsError {
  return new WorkerAssetsError('token', `the assets upload token is not valid: ${why}`);
}
