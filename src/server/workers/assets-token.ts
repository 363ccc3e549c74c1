/**
 * Authentication of an assets upload: `Authorization: Bearer <jwt>` with the token of an upload
 * session (not an API token), checked by the store (signature, kind, expiry, session), before
 * the body is read. The request then carries its session and a principal that reaches nothing
 * else: the session's account, and only for this upload.
 */
import type { IncomingMessage } from 'node:http';
import type { Store } from '../../store';
import type { Principal } from '../auth/credentials';
import type { FormRequest } from './form';
import { ApiError, Codes } from '../http/errors';

/** The upload session an upload's token opened (set by authentication). */
export interface AssetsUploadRequest extends FormRequest {
  assetsSession?: { id: string; account_id: string; script_name: string; manifest: Record<string, { hash: string; size: number }> };
}

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

export async function authenticateAssetsUpload(req: IncomingMessage & AssetsUploadRequest & { principal?: Principal }, store: Store): Promise<void> {
  const match = BEARER.exec(String(req.headers.authorization ?? '').trim());
  if (!match) throw ApiError.of(403, Codes.authentication, 'Authentication error: an assets upload is authorized by its upload session token (Authorization: Bearer <jwt>)');
  const session = await store.workers.assetUploadSession(match[1]!);
  req.assetsSession = session;
  req.principal = { name: `assets upload session ${session.id}`, email: null, scope: { accounts: new Set([session.account_id]), zones: new Set() } };
}
