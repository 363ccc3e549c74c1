import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connectionServerOptions, defaultConnectionLimits, limitConnections, type ConnectionLimits } from '../http-connections';
import { HOME_ACCOUNT_ID, openBucketCatalogue, type DatabasePoolSettings, type RuntimeOptions } from '../bucket';
import { writeStreamedBody } from '../streamed-body';
import type { S3Context, S3Response } from './context';
import { corsHeaders, isPreflight, preflight } from './cors';
import { accessDenied, noSuchBucket, preflightRefusal, S3Error, toS3Error } from './errors';
import { controlFaults, FAULTS_PATH, injectFault, s3FaultSet } from './faults';
import { readRequest, type S3Request } from './request';
import { route } from './router';
import { refuseUnservedHeaders } from './unserved-headers';
import { ExpirationHeaders } from './expiration-header';
import { verifySignature, type AccessKeys } from './sigv4';
import { keysForRequest, requireInScope } from './temporary-credentials';
import { xmlDocument } from './xml';

export interface S3ServerOptions {
  /** Access key ids and their secret keys; requests signed with one of them are allowed. */
  accessKeys: AccessKeys;
  /** Where the buckets live (the catalogue of `<dataDir>`), shared with workers and the API; `./data` by default. */
  dataDir?: string;
  /** A PostgreSQL URL: the buckets are that database's instead, shared with every process on it. */
  databaseUrl?: string | undefined;
  /** The database's connection pool (with `databaseUrl` only), as the API's `DATABASE_*` settings size its own. */
  databasePool?: DatabasePoolSettings;
  /**
   * The account whose buckets the endpoint serves (on the platform each account has its own
   * endpoint, `<account_id>.r2.cloudflarestorage.com`); the data directory's home account by default.
   */
  account?: string;
  /** Timeouts and the connection limit of the port (the HTTP_* variables); their defaults when absent. */
  connections?: ConnectionLimits;
  /** 8788 by default; 0 picks a free port. */
  port?: number;
  /** 127.0.0.1 by default. */
  hostname?: string;
  /**
   * Serve HTTPS with this certificate and private key (PEM) instead of plain HTTP. Customer keys
   * (SSE-C) are taken over TLS from anywhere; over plain HTTP only from this machine.
   */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Buckets whose objects anyone may list and read without signing (HeadBucket, ListObjectsV2, HeadObject, GetObject). */
  publicRead?: string[];
  /** The region GetBucketLocation reports; any region a client signs with is accepted. `auto` by default. */
  region?: string;
  /** Options of the buckets opened (minimum part size, clock). */
  runtime?: RuntimeOptions;
  /** The time signatures are checked against, in epoch milliseconds; `Date.now` by default. */
  now?: () => number;
  /** Hears of internal errors (never sent to clients, never holding secrets). */
  report?: (line: string) => void;
  /** Fault rules to start with (the `s3` list of a faults file); `/__faults` sets them at run time. */
  faultRules?: { list: unknown; source: string };
  /** Hears of every fault injected on purpose, one line each; standard error by default. */
  log?: (line: string) => void;
}

export interface RunningS3Server {
  url: string;
  /** Where the buckets are: the data directory, or the database URL without its password. */
  location: string;
  port: number;
  /** Stops accepting requests, lets those in flight finish, then closes the buckets. */
  close(): Promise<void>;
}

export const DEFAULT_S3_PORT = 8788;

/** Request ids: unique per process start (a random prefix) and per request (a counter). */
const REQUEST_ID_PREFIX = randomBytes(4).toString('hex').toUpperCase();
let requestCount = 0;
const nextRequestId = () => `${REQUEST_ID_PREFIX}${(++requestCount).toString(16).toUpperCase().padStart(8, '0')}`;

/** Serves the buckets of a data directory or a database through an S3-compatible API (path-style addressing). */
export async function startS3Server(options: S3ServerOptions): Promise<RunningS3Server> {
  const { dataDir = './data', port = DEFAULT_S3_PORT, hostname = '127.0.0.1', region = 'auto' } = options;
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const publicRead = new Set(options.publicRead ?? []);
  // Bad rules throw here, before anything is opened or listens.
  const faults = s3FaultSet(options.log ?? ((line: string) => process.stderr.write(`${line}\n`)));
  if (options.faultRules) faults.replace(options.faultRules.list, options.faultRules.source);
  const account = options.account ?? HOME_ACCOUNT_ID;
  const catalogue = await openBucketCatalogue({
    dataDir,
    databaseUrl: options.databaseUrl,
    ...(options.databasePool ? { pool: options.databasePool } : {}),
    defaultAccount: account,
    defaults: options.runtime ?? {},
  });
  const buckets = catalogue.account(account);
  const expirations = new ExpirationHeaders(buckets);
  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const requestId = nextRequestId();
    let request: S3Request | undefined;
    let response: S3Response;
    try {
      request = readRequest(incoming);
      // A CORS preflight is never signed: the bucket's CORS rules answer it.
      if (isPreflight(request)) {
        response = await preflight(request, buckets);
      } else if (request.method === 'OPTIONS') {
        throw preflightRefusal(request.headers);
      } else {
        const { keys, grant } = keysForRequest(request, options.accessKeys, account, now());
        const signer = verifySignature(request, keys, now());
        const context: S3Context = { request, signer, catalogue, region, expirations };
        if (request.rawPath === FAULTS_PATH) {
          response = await controlFaults(context, faults);
        } else {
          const operation = route(request);
          if (signer === null && !(operation.read && publicRead.has(request.bucket!))) throw accessDenied();
          if (grant) requireInScope(grant, request, operation.name);
          refuseUnservedHeaders(operation.name, request.headerNames, request.headers);
          // Without rules, no fault step (not even an await).
          if (faults.size > 0 && (await injectFault(faults, request, operation.name, outgoing)) === 'dropped') return;
          response = await operation.run(context);
        }
      }
    } catch (error) {
      response = errorResponse(
        error,
        request?.bucket,
        request?.resource ?? (incoming.url ?? '/').split('?')[0]!,
        requestId,
        report,
        incoming,
      );
    }
    if (request?.headers.has('origin') && !isPreflight(request)) {
      response = { ...response, headers: { ...response.headers, ...(await corsHeaders(request, buckets)) } };
    }
    await send(outgoing, response, requestId, incoming.method === 'HEAD', report);
  };
  // node:http rather than @hono/node-server (the worker host's library): the endpoint reads raw
  // headers and streams bodies itself, and Hono's Request/Response layer costs more than the
  // endpoint's own work. `npm run bench -- s3` measures both as no-op servers: Hono answered
  // 38-68% of node:http's 1 KiB PUTs and 21-89% of its GETs (two runs, load average about 10).
  const listener: RequestListener = (incoming, outgoing) => {
    // Whatever escapes (a response that cannot be written) ends this connection, not the process.
    handle(incoming, outgoing).catch((error: unknown) => {
      // The path only: a query may hold a presigned URL's signature, good until it expires.
      report(
        `${incoming.method} ${(incoming.url ?? '/').split('?')[0]}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      outgoing.destroy();
    });
  };
  let server: ReturnType<typeof createServer>;
  const connections = options.connections ?? defaultConnectionLimits;
  try {
    const serverOptions = connectionServerOptions(connections);
    server = options.tls
      ? createTlsServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key }, listener)
      : createServer(serverOptions, listener);
    limitConnections(server, connections.maxConnections);
  } catch (error) {
    await catalogue.close();
    throw new Error(`cannot serve TLS with the certificate and key given: ${(error as Error).message}`);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, hostname, resolve);
    });
  } catch (error) {
    await catalogue.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'EADDRINUSE'
        ? `port ${port} on ${hostname} is already in use; choose another with --port`
        : `cannot listen on ${hostname}:${port}: ${(error as Error).message}`,
    );
  }
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://${hostname}:${actual}`,
    location: catalogue.location,
    port: actual,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
      await catalogue.close();
    },
  };
}

function errorResponse(
  error: unknown,
  bucket: string | undefined,
  resource: string,
  requestId: string,
  report: (line: string) => void,
  incoming: IncomingMessage,
): S3Response {
  let s3 = toS3Error(error);
  if (!s3) {
    report(
      `${incoming.method} ${resource}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    s3 = new S3Error('InternalError', 500, 'We encountered an internal error. Please try again.');
  }
  // A bucket deleted while the request was under way is refused by the runtime, which does not
  // know the bucket's name: named here as every other NoSuchBucket names it.
  if (s3.code === 'NoSuchBucket' && bucket !== undefined && s3.details.BucketName === undefined) s3 = noSuchBucket(bucket);
  return {
    status: s3.status,
    headers: { 'content-type': 'application/xml', ...s3.headers },
    body: xmlDocument(
      'Error',
      { Code: s3.code, Message: s3.message, ...s3.details, Resource: resource, RequestId: requestId },
      false,
    ),
  };
}

async function send(
  outgoing: ServerResponse,
  response: S3Response,
  requestId: string,
  head: boolean,
  report: (line: string) => void,
): Promise<void> {
  const headers: Record<string, string> = { 'x-amz-request-id': requestId, ...response.headers };
  const { body } = response;
  if (typeof body === 'string' && !head) headers['content-length'] = String(Buffer.byteLength(body));
  if (body instanceof Uint8Array && !head) headers['content-length'] = String(body.byteLength);
  if (body === undefined && !('content-length' in headers) && response.status !== 204 && response.status !== 304) {
    headers['content-length'] = '0';
  }
  outgoing.writeHead(response.status, headers);
  if (head || body === undefined) {
    if (body instanceof ReadableStream) await body.cancel();
    outgoing.end();
    return;
  }
  if (typeof body === 'string' || body instanceof Uint8Array) {
    outgoing.end(body);
    return;
  }
  await writeStreamedBody(outgoing, body, (error) => report(`response body failed: ${String(error)}`));
}
