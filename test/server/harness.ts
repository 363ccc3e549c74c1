// Starts the management API in-process on a free loopback port, over a SQLite store in a
// temporary data directory, with response validation on: every response is checked against
// the document, so a handler that answers off-contract fails the test that called it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { BucketCatalogue } from '../../src/bucket';
import { ApiError, createApiClient, type ApiClient } from '../../src/client';
import { createApp, CredentialRegistry, everything, httpServerOptions, sha256, type Scope } from '../../src/server';
import type { RateLimitPolicy } from '../../src/rate-limit';
import { openSqliteStore, type Clock, type Store } from '../../src/store';
import type { LiveTails } from '../../src/tail';

export const ids = {
  account: '023e105f4ecef8ad9ca31a8372d0c353',
  enterpriseZone: 'db737a563ced53f224ff5eae44905c5e',
  businessZone: '3f27d707f74126e7e43f7d379a9bdcc7',
  proZone: '9d6991f5ca85bf43524971c922c4bcfc',
  uriOverrideZone: '4664f8ed5074f32e2702495db5e75b64',
  manyRulesZone: 'fccef9540109d0a73ea14e6cedba57b2',
  longExpressionZone: 'a1e0c5b27d3f4e8c9b6a2d1f0e3c4b5a',
  invitation: '54cc8d424f72455b004f6066cb96b244',
  owasp: '4814384a9e5d4991b9815dcfc25d2f1f',
  owaspLastRule: '6179ae15870a4bb7b2d480d4843b323c',
  managed: 'efb7b8c949ac4650a09736fc376e9aee',
  enterpriseOwaspPackage: '436d8cdf3866e6731f627fefee999131',
  enterpriseManagedPackage: 'ac7e2edf57885e8b0639bf8198bdc91b',
  shopOwaspPackage: '3bfe631fccebc37db842b2d94fff4930',
  owaspProtocolGroup: '3e1c5fbef05e2cbf06facf65515a66d3',
  owaspSqliGroup: '2c0bac458b866173ff63751314de216a',
  owaspXssGroup: 'bce73ee49082c71ef00733b29d7edd2c',
  drupalGroup: '9683b9f8ed9a2cc551e4832d2da8be95',
  checkoutOverride: '67bc645a492070540e1c031371fa1204',
  searchOverride: '83d7458af4e935273d5876410d0c1acc',
} as const;

export const userEmail = 'user@example.com';
export const token = 'test-token-with-access-to-everything';
export const apiKey = 'test-global-api-key';

export interface ExtraToken {
  token: string;
  email?: string;
  scope: Scope;
}

export interface TestServer {
  baseUrl: string;
  api: ApiClient;
  store: Store;
  dataDir: string;
  /** The server's bucket catalogue (`<dataDir>/buckets/...`). */
  buckets: BucketCatalogue;
  /** A client with other credentials (or none). */
  client(credentials?: { token: string } | { email: string; key: string }): ApiClient;
  /** Plain fetch against the server, for what the typed client cannot send. */
  fetch(pathAndQuery: string, init?: RequestInit): Promise<Response>;
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface StartOptions {
  dataDir?: string;
  /** A seed file other than the project's fixtures (loaded into the new, empty database). */
  seed?: string;
  clock?: Clock;
  tokens?: ExtraToken[];
  /** Validate every response (default true); false runs the server as `npm start` does. */
  validateResponses?: boolean;
  /** S3 access keys temporary credentials may derive from. */
  s3AccessKeys?: ReadonlyMap<string, string>;
  /** Options of the buckets the server opens (clock, part size). */
  bucketDefaults?: import('../../src/bucket').RuntimeOptions;
  /** Fault rules to start with, as FAULTS_FILE's `api` list. */
  faultRules?: unknown[];
  /** The platform's rate limit, as RATE_LIMIT turns it on. */
  rateLimit?: RateLimitPolicy;
  /** Where the server logs (silent by default, or at TEST_SERVER_LOG's level). */
  logger?: Logger;
  /** How long a write waits for another process's lock on the store (default 5 000 ms). */
  busyTimeoutMs?: number;
  /** Live tails, as `npm start` with its edge hands them to the API. */
  tails?: LiveTails;
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'api-server-'));
  const store = await openSqliteStore({
    dataDir,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.seed ? { seed: options.seed } : {}),
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
  });
  const credentials = new CredentialRegistry();
  credentials.addToken(sha256(token), { name: 'test', email: userEmail, scope: everything });
  credentials.addKey(userEmail, sha256(apiKey), { name: 'test-key', email: userEmail, scope: everything });
  for (const extra of options.tokens ?? []) {
    credentials.addToken(sha256(extra.token), { name: 'extra', email: extra.email ?? null, scope: extra.scope });
  }
  const buckets = new BucketCatalogue(dataDir, { defaults: options.bucketDefaults ?? {} });
  const { app, ready } = createApp({
    store,
    credentials,
    buckets,
    ...(options.s3AccessKeys ? { s3AccessKeys: options.s3AccessKeys } : {}),
    logger: options.logger ?? pino({ level: process.env.TEST_SERVER_LOG ?? 'silent' }),
    validateResponses: options.validateResponses ?? true,
    ...(options.faultRules ? { faultRules: { list: options.faultRules, source: 'test rules' } } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    ...(options.tails ? { tails: options.tails } : {}),
  });
  await ready;
  const server: Server = await new Promise((resolve) => {
    const listening = createServer(httpServerOptions, app).listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/client/v4`;
  const client = (credentials: { token: string } | { email: string; key: string } = { token }) =>
    createApiClient({ baseUrl, credentials });
  return {
    baseUrl,
    api: client(),
    store,
    dataDir,
    buckets,
    client,
    fetch: (pathAndQuery, init) => fetch(`${baseUrl}${pathAndQuery}`, init),
    async stop({ keepData = false } = {}) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      await buckets.close();
      if (!keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function bearer(value = token): Record<string, string> {
  return { Authorization: `Bearer ${value}` };
}

/** A JSON request with the default token. */
export function json(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { ...bearer(), 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** The ApiError a call must fail with (and its status, when given). */
export async function apiFailure(call: Promise<unknown>, status?: number): Promise<ApiError> {
  const outcome = await call.then(
    () => new Error('expected the call to fail'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof ApiError)) throw outcome;
  if (status !== undefined && outcome.status !== status) throw new Error(`expected HTTP ${status}, got ${outcome.message}`);
  return outcome;
}
