// The mock of the management API: Prism's HTTP engine (routing, request validation, examples,
// `Prefer` selection) behind the service's own front door, so a consumer switches between the
// mock and the server by changing the host only:
// - paths are served under `/client/v4` like the service (and at the root, as Prism serves them);
// - credentials are checked for form as the server checks them (400 9106 / 6003); any
//   well-formed token or email + key pair is accepted, the mock has no users;
// - an unknown route answers 404 (7003, 7000), a method the path lacks 405 (7001);
// - an invalid request answers 400 in the envelope, one error per violation Prism found, worded
//   as the server words them (`body/enabled must be boolean`), not the operation's canned example.
import { createLogger } from '@stoplight/prism-core';
import {
  createInstance,
  getHttpOperationsFromSpec,
  NO_METHOD_MATCHED_ERROR,
  NO_PATH_MATCHED_ERROR,
  ProblemJsonError,
  type IHttpConfig,
  type IHttpRequest,
  type IHttpResponse,
} from '@stoplight/prism-http';
import { getHttpConfigFromRequest } from '@stoplight/prism-http-server/dist/getHttpConfigFromRequest.js';
import type { IPrismDiagnostic } from '@stoplight/prism-core';
import { DiagnosticSeverity, type IHttpOperation } from '@stoplight/types';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { authenticate } from '../src/server/auth/authenticate';
import { CredentialRegistry, everything, type Principal } from '../src/server/auth/credentials';
import { toApiError } from '../src/server/http/error-mapper';
import { basePath, documentWording } from '../src/server/http/openapi-document';
import { ApiError, Codes, notFound } from '../src/server/http/errors';
import { oneSegmentObjectKey } from '../src/server/http/object-keys';
import { isPlainText } from '../src/server/http/text-json';
import { mockValidationDocument } from './mock-document';
import { prebuiltMock } from './mock-prebuilt';
import { root } from './tools';

export const mockDocument = path.join(root, 'generated', 'openapi.yaml');

/** The mock has no users: every well-formed credential reaches everything. */
class AnyCredentials extends CredentialRegistry {
  private readonly principal: Principal = { name: 'mock', email: 'user@example.com', scope: everything };
  override findToken(): Principal {
    return this.principal;
  }
  override findKey(): Principal {
    return this.principal;
  }
}

// As the command-line `prism mock` runs, without its security check (the server's is used).
const prismConfig: IHttpConfig = {
  validateRequest: true,
  validateResponse: false,
  checkSecurity: false,
  errors: false,
  mock: { dynamic: false },
  isProxy: false,
  upstreamProxy: undefined,
};

// Prism locates each violation as [where, ...instance path]; the server's validator says
// `params`, `query`, `headers`, `body`.
const serverLocation: Record<string, string> = { path: 'params', query: 'query', header: 'headers', body: 'body' };

/**
 * A violation as the server's validator reports it (`/body/rules/0/action`, `must be boolean`).
 * Prism prefixes Ajv's message with where it is ("Request body property enabled "): that prefix
 * is rebuilt from the violation's path and dropped, leaving Ajv's words, which the server uses too.
 */
function asValidatorError(diagnostic: IPrismDiagnostic): { path: string; message: string } {
  const [where = '', ...instancePath] = (diagnostic.path ?? []).map(String);
  const prefix = `Request ${where} ${instancePath.length > 0 ? `${where === 'body' ? 'property' : 'parameter'} ${instancePath.join('.')} ` : ''}`;
  const message = diagnostic.message.startsWith(prefix) ? diagnostic.message.slice(prefix.length) : diagnostic.message;
  return { path: `/${[serverLocation[where] ?? where, ...instancePath].join('/')}`, message };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function envelopeOf(error: ApiError): Answer {
  return {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ result: null, success: false, errors: error.errors, messages: [] }),
  };
}

function answerOf(output: IHttpResponse): Answer {
  const headers = Object.fromEntries(Object.entries(output.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
  const body = output.body === undefined ? '' : typeof output.body === 'string' ? output.body : JSON.stringify(output.body);
  return { status: output.statusCode, headers, body };
}

/** The body as the server's JSON parser reads it; a refusal is answered as the server does. */
function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (isPlainText(contentType)) return plainTextJson(text);
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType ?? '')) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw parseFailure((error as Error).message, text);
  }
  // Like the server's parser (strict mode), only objects and arrays are bodies.
  if (value === null || typeof value !== 'object') throw parseFailure('not an object or array', text);
  return value;
}

/** JSON in `text/plain` (wrangler's bucket creation) is read as JSON, as the server reads it; other text stays text. */
function plainTextJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : text;
  } catch {
    return text;
  }
}

function parseFailure(message: string, body: string): object {
  return { type: 'entity.parse.failed', status: 400, message, body };
}

export interface MockOptions {
  port?: number;
  host?: string;
  /** Another document than generated/openapi.yaml, prepared at the start. */
  document?: string;
}

/** What the mock takes from the document: Prism's operations and the server's wording of its patterns and tags. */
export interface PreparedMock {
  operations: IHttpOperation[];
  wording: { patterns: [string, string][]; tags: [string, readonly string[]][] };
}

/**
 * The document read and turned into Prism's operations (its `$ref`s resolved), the most of a
 * start's work: the mock's bundle does it when it is built (see scripts/bundles.mjs), so a start
 * from the bundle takes its result as it is; a start from the sources does it here.
 */
export async function prepareMock(document = mockDocument): Promise<PreparedMock> {
  const parsed = parseYaml(readFileSync(document, 'utf8')) as Record<string, unknown>;
  const operations = (await getHttpOperationsFromSpec(mockValidationDocument(parsed))) as IHttpOperation[];
  const { patterns, tags } = documentWording(parsed);
  return { operations, wording: { patterns: [...patterns], tags: [...tags] } };
}

export interface RunningMock {
  /** The mock's base address, `/client/v4` included. */
  baseUrl: string;
  server: Server;
  close(): Promise<void>;
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const prepared = options.document === undefined && prebuiltMock !== undefined ? prebuiltMock : await prepareMock(options.document);
  const operations = prepared.operations;
  const wording = { patterns: new Map(prepared.wording.patterns), tags: new Map(prepared.wording.tags) };
  const logger = createLogger('MOCK', { level: process.env.MOCK_LOG_LEVEL ?? 'silent' });
  const prism = createInstance(prismConfig, { logger });
  const credentials = new AnyCredentials();

  async function answer(request: IncomingMessage, text: string): Promise<Answer> {
    const url = new URL(oneSegmentObjectKey(request.url ?? '/'), 'http://mock.invalid');
    const requestPath = url.pathname;
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
    const fail = (error: unknown) => envelopeOf(toApiError(error, { method, path: requestPath.replace(basePath, '') || '/' }, wording));
    // As on the server, credentials are checked once the route is known.
    const credentialRefusal = (): Answer | undefined => {
      try {
        authenticate(request.headers, credentials);
        return undefined;
      } catch (error) {
        return fail(error);
      }
    };
    const input: IHttpRequest = {
      method: method.toLowerCase() as IHttpRequest['method'],
      url: {
        path: requestPath === basePath || requestPath.startsWith(`${basePath}/`) ? requestPath.slice(basePath.length) || '/' : requestPath,
        query: queryOf(url.searchParams),
      },
      headers: request.headers as Record<string, string>,
    };
    const preferences = getHttpConfigFromRequest(input);
    if (preferences._tag === 'Left') return envelopeOf(ApiError.of(400, Codes.invalidRequest, `Prefer header: ${preferences.left.detail}`));
    const config: IHttpConfig = { ...prismConfig, mock: { ...prismConfig.mock, ...preferences.right } };
    try {
      input.body = parseBody(text, request.headers['content-type']);
    } catch (error) {
      return fail(error);
    }
    const result = await prism.request(input, operations, config)();
    if (result._tag === 'Left') {
      const problem = ProblemJsonError.toProblemJson(result.left);
      const is = (template: { type: string }) => problem.type.endsWith(`#${template.type}`);
      if (is(NO_PATH_MATCHED_ERROR)) return envelopeOf(notFound(requestPath));
      const refused = credentialRefusal();
      if (refused) return refused;
      if (is(NO_METHOD_MATCHED_ERROR)) return fail({ status: 405, errors: [], message: problem.title });
      // Anything else Prism refuses (e.g. `Prefer: example=` naming no example): its words, in the envelope.
      return envelopeOf(ApiError.of(problem.status, problem.status >= 500 ? Codes.internal : Codes.invalidRequest, `${problem.title}: ${problem.detail}`));
    }
    const refused = credentialRefusal();
    if (refused) return refused;
    // An `if` failure only says a `then` branch failed; that branch's own errors say how.
    const violations = result.right.validations.input.filter((d) => d.severity === DiagnosticSeverity.Error && d.code !== 'if');
    // Prism reports a body of a media type the operation does not take as code 415.
    if (violations.some((d) => String(d.code) === '415')) return fail({ status: 415, message: 'unsupported media type', errors: [] });
    if (violations.length > 0) return fail({ status: 400, message: 'invalid request', errors: violations.map(asValidatorError) });
    return answerOf(result.right.output);
  }

  const send = (request: IncomingMessage, response: ServerResponse, { status, headers, body }: Answer) => {
    response.writeHead(status, { ...corsHeaders(request), ...headers, 'content-length': Buffer.byteLength(body) });
    response.end(request.method === 'HEAD' ? undefined : body);
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    // Browsers may call the mock from a page of another origin, as `prism mock` allows.
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      response.writeHead(204, { ...corsHeaders(request), 'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE' });
      response.end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= bodyLimit) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > bodyLimit) return send(request, response, envelopeOf(toApiError({ type: 'entity.too.large', status: 413, message: 'too large' }, { method: request.method ?? 'GET', path: '' }, wording)));
      answer(request, Buffer.concat(chunks).toString('utf8'))
        .catch((error: unknown) => {
          logger.error({ err: error }, 'mock failed');
          return envelopeOf(ApiError.of(500, Codes.internal, 'Internal error'));
        })
        .then((answered) => send(request, response, answered));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${address}:${port}${basePath}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** As the server: bodies up to 1 MiB. */
const bodyLimit = 1024 * 1024;

function corsHeaders(request: IncomingMessage): Record<string, string> {
  return {
    'access-control-allow-origin': request.headers.origin ?? '*',
    'access-control-allow-headers': request.headers['access-control-request-headers'] ?? '*',
    'access-control-expose-headers': '*',
  };
}

function queryOf(searchParams: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(searchParams.keys())) {
    const values = searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0]! : values;
  }
  return query;
}
