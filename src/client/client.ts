import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../generated/api';

/** Either credential scheme of the API: a bearer token, or the email + global key pair. */
export type Credentials = { token: string } | { email: string; key: string };

export interface ClientOptions {
  /** Base address including `/client/v4`, e.g. `http://localhost:8787/client/v4`. */
  baseUrl: string;
  credentials: Credentials;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

export type ApiClient = Client<paths>;

function authHeaders(credentials: Credentials): Record<string, string> {
  if ('token' in credentials) return { Authorization: `Bearer ${credentials.token}` };
  return { 'X-Auth-Email': credentials.email, 'X-Auth-Key': credentials.key };
}

/**
 * A typed client: `client.GET('/zones/{zone_id}', { params: { path: { zone_id } } })`.
 * Wrap calls in `unwrap()` to get the envelope's `result` or an `ApiError`.
 */
export function createApiClient(options: ClientOptions): ApiClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, ...authHeaders(options.credentials) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
