import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { ApiError } from './envelope';
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
 * Answers that are not JSON (a proxy's or load balancer's HTML page, even with status 200)
 * become an ApiError carrying the text, rather than a JSON syntax error from deep inside the call.
 * A call that asks for bytes (`parseAs: 'stream' | 'blob' | 'arrayBuffer' | 'text'`, for an
 * object download) gets its successful answer as it is; its failures are still envelopes.
 */
const refuseNonJson: Middleware = {
  async onResponse({ response, options }) {
    const type = response.headers.get('content-type') ?? '';
    if (response.status === 204 || /^application\/([\w.+-]+\+)?json\b/i.test(type)) return undefined;
    if (options.parseAs !== 'json' && (response.ok || response.status === 304)) return undefined;
    const text = await response.clone().text();
    if (text === '' && !response.ok) return undefined;
    throw new ApiError(response.status, text);
  },
};

/**
 * A typed client: `client.GET('/zones/{zone_id}', { params: { path: { zone_id } } })`.
 * Wrap calls in `unwrap()` to get the envelope's `result` or an `ApiError`. A call whose answer
 * is not JSON rejects with an `ApiError` (see refuseNonJson); one that gets no answer rejects
 * with fetch's `TypeError`.
 */
export function createApiClient(options: ClientOptions): ApiClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, ...authHeaders(options.credentials) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(refuseNonJson);
  return client;
}
