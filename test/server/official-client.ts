// The platform's official TypeScript client library (npm `cloudflare`), unchanged, pointed at a
// test server with `baseURL`, and the helpers the tests that drive it share.
import Cloudflare from 'cloudflare';
import { expect } from 'vitest';
import { apiKey, token, userEmail, type TestServer } from './harness';

export interface SentRequest {
  method: string;
  url: URL;
  headers: Headers;
}

/** The official client against a test server, recording what it sends. */
export function officialClient(
  server: TestServer,
  { credentials = 'token', maxRetries = 0 }: { credentials?: 'token' | 'key'; maxRetries?: number } = {},
): { cf: Cloudflare; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const cf = new Cloudflare({
    baseURL: server.baseUrl,
    // Explicit nulls, so CLOUDFLARE_* variables of the environment cannot add credentials.
    apiToken: credentials === 'token' ? token : null,
    apiEmail: credentials === 'key' ? userEmail : null,
    apiKey: credentials === 'key' ? apiKey : null,
    userServiceKey: null,
    maxRetries,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push({ method: request.method, url: new URL(request.url), headers: request.headers });
      return fetch(input, init);
    },
  });
  return { cf, sent };
}

/** The error the client throws for a refused call, with the envelope's codes. */
export async function refusal(call: Promise<unknown>): Promise<{ status: number | undefined; codes: unknown[]; name: string }> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Cloudflare.APIError);
  const apiError = error as InstanceType<typeof Cloudflare.APIError>;
  return { status: apiError.status, codes: apiError.errors.map((e) => e.code), name: apiError.constructor.name };
}

export async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
