import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { Logger } from 'pino';
import type { BucketCatalogue } from '../bucket';
import { FaultSet } from '../faults';
import { RequestBudget, type RateLimitPolicy } from '../rate-limit';
import type { Store } from '../store';
import { authenticate } from './auth/authenticate';
import type { CredentialRegistry, Principal } from './auth/credentials';
import { faultsEndpoint, FAULTS_PATH } from './faults/control-endpoint';
import { apiFaultCatalogue, injectFaults } from './faults/fault-step';
import { limitRequests } from './faults/rate-limit-step';
import { handlers } from './handlers';
import { FilterValidationFailure } from './handlers/filters';
import { sendErrors, sendFilterFailure, sendResult, type ResultInfo } from './http/envelope';
import { toApiError } from './http/error-mapper';
import { notFound } from './http/errors';
import { basePath, documentWording, loadDocument, loadValidationDocument } from './http/openapi-document';
import { refuseDeepJson } from './http/json-depth';
import { defaultHttpLimits, httpServerOptionsFor } from './http/limits';
import { oneSegmentObjectKey } from './http/object-keys';
import type { AnyReply, Context, Handler, OperationId, StreamReply } from './http/operations';
import { requestLogger } from './http/request-logger';
import { series } from './http/series';
import { isPlainText } from './http/text-json';
import { rememberAcceptedRequests } from './http/validation-memo';

export interface AppOptions {
  store: Store;
  /** The engine behind the store, as GET /readyz names it (default sqlite). */
  database?: 'sqlite' | 'postgres';
  credentials: CredentialRegistry;
  /** The buckets the bucket family serves (the catalogue shared with workers and the S3 endpoint). */
  buckets: BucketCatalogue;
  /**
   * S3 access keys (id to secret) that temporary credentials may derive from: the same keys
   * the S3 endpoint is given, so both derive the same temporary secrets. None by default.
   */
  s3AccessKeys?: ReadonlyMap<string, string>;
  logger: Logger;
  /** Validate every response against the document (tests and development). */
  validateResponses?: boolean;
  /** Fault rules to start with (the `api` list of FAULTS_FILE); /__faults sets them at run time. */
  faultRules?: { list: unknown; source: string };
  /** The platform's rate limit per user (RATE_LIMIT); none when absent. */
  rateLimit?: RateLimitPolicy;
}

export interface App {
  app: express.Express;
  /** Resolves once the validator has compiled the document, so the first request is not slow. */
  ready: Promise<void>;
}

interface AuthenticatedRequest extends Request {
  principal?: Principal;
  openapi?: { schema?: { operationId?: string }; pathParams?: Record<string, string> };
}

const bodyLimit = '1mb';

export const httpServerOptions = httpServerOptionsFor(defaultHttpLimits);
/** A readiness probe that cannot reach the database within this long answers 503. */
const readinessTimeoutMs = 2000;

export function createApp(options: AppOptions): App {
  const { store, credentials, logger } = options;
  const document = loadValidationDocument();
  // From the document as written: the validation copy has no discriminator mappings.
  const wording = documentWording(loadDocument());
  const validator = documentValidator(document, options.validateResponses === true);
  // Bad rules throw here, before the server listens.
  const faults = new FaultSet('api', apiFaultCatalogue(document), (entry) => logger.warn(entry, 'fault injected'));
  if (options.faultRules) faults.replace(options.faultRules.list, options.faultRules.source);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // For load balancers: outside the API (no document, no credentials) and not logged per probe.
  app.get('/readyz', (_req, res) => {
    const database = options.database ?? 'sqlite';
    databaseAnswers(store).then((ready) => res.status(ready ? 200 : 503).json({ ready, database }));
  });
  app.use(requestLogger(logger));
  app.use(FAULTS_PATH, faultsEndpoint(faults, credentials));

  const routes = documentRoutes(document);
  const prefix = `${basePath}/`;
  /** Routing, then authentication, before anything reads the body. */
  const routeAndAuthenticate = (req: AuthenticatedRequest, res: Response, next: NextFunction) => {
    // An object key may arrive with its slashes as they are (wrangler): one segment from here on.
    // (The validator routes by `originalUrl`, so both change.)
    if (req.url.includes('/objects/')) {
      req.url = oneSegmentObjectKey(req.url);
      req.originalUrl = oneSegmentObjectKey(req.originalUrl);
    }
    // HEAD is GET without the body (RFC 9110): validated and answered as GET, while Node's
    // response, created for a HEAD request, drops the body and keeps the headers.
    if (req.method === 'HEAD') {
      res.locals.method = 'HEAD';
      req.method = 'GET';
    }
    // Routing comes first, as on the real service: an unknown route is a 404 with or without credentials.
    if (!routes.find(req.path.slice(basePath.length))) return next(notFound(req.originalUrl.split('?')[0]!));
    req.principal = authenticate(req.headers, credentials);
    next();
  };
  const dispatch = (req: AuthenticatedRequest, res: Response, next: NextFunction) => {
    const operationId = req.openapi?.schema?.operationId as OperationId | undefined;
    const handler = operationId ? (handlers[operationId] as Handler<OperationId> | undefined) : undefined;
    if (!handler) return next(notFound(req.originalUrl.split('?')[0]!));
    res.locals.operationId = operationId;
    const context = {
      params: req.openapi?.pathParams ?? {},
      query: req.query,
      body: req.body,
      principal: req.principal!,
      store,
      buckets: options.buckets,
      s3AccessKeys: options.s3AccessKeys ?? new Map(),
      request: req,
      path: req.path.slice(basePath.length),
    } as unknown as Context<OperationId>;
    handler(context).then(
      (reply: AnyReply) => {
        if ('noContent' in reply) return res.status(204).end();
        if ('stream' in reply) return sendStream(res, reply, logger);
        sendResult(res, reply.result, reply.result_info as ResultInfo | undefined, options.validateResponses === true);
      },
      (error: unknown) => next(error),
    );
  };
  // Bodies by what the document's operation takes: raw bytes (object uploads) are left unread for
  // the handler to stream; JSON sent as text/plain is read as JSON where the document says so.
  const json = express.json({ limit: bodyLimit, verify: (_req, _res, body) => refuseDeepJson(body) });
  const plainTextJson = express.json({ limit: bodyLimit, type: () => true, verify: (_req, _res, body) => refuseDeepJson(body) });
  const readBody = (req: Request, res: Response, next: NextFunction) => {
    const media = routes.find(req.path.slice(basePath.length))?.bodies[req.method.toLowerCase()] ?? [];
    if (media.includes('*/*')) return next();
    if (media.includes('text/plain') && isPlainText(req.headers['content-type'])) return plainTextJson(req, res, next);
    return json(req, res, next);
  };
  // Bodies are read only after routing and authentication: an unknown route or a client without
  // credentials never makes the server parse up to 1 MiB.
  const { requestSteps, responseSteps } = splitValidator(validator);
  // Faults and the rate limit answer before the response validator wraps the response: their
  // answers are the platform's, which the document does not list.
  const api = series([
    routeAndAuthenticate,
    ...(options.rateLimit ? [limitRequests(new RequestBudget(options.rateLimit))] : []),
    rememberAcceptedRequests([readBody, ...requestSteps], document),
    injectFaults(faults),
    ...responseSteps,
    dispatch,
  ]);
  app.use((req, res, next) => (req.path.startsWith(prefix) ? api(req, res, next) : next()));
  app.use((req, _res, next) => next(notFound(req.path)));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof FilterValidationFailure) return sendFilterFailure(res, error.message);
    const method = (res.locals.method as string | undefined) ?? req.method;
    const apiError = toApiError(error, { method, path: req.path.replace(basePath, '') || '/' }, wording);
    if (apiError.status >= 500) logger.error({ err: error, path: req.path }, 'request failed');
    if (apiError.status === 405) res.setHeader('Allow', routes.find(req.path.replace(basePath, ''))?.methods ?? '');
    sendErrors(res, apiError.status, apiError.errors);
  });

  return { app, ready: warmUp(validator) };
}

/** The validator middleware of the app (exported for the benchmark, which measures it alone too). */
export function documentValidator(document: Record<string, unknown>, validateResponses: boolean): express.RequestHandler[] {
  return OpenApiValidator.middleware({
    // The document's server is the templated `{base_url}`; this server always lives at /client/v4.
    apiSpec: { ...document, servers: [{ url: basePath }] } as never,
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: false, discriminator: true },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    // No operation of the document takes a multipart body: no multipart layer on every request.
    fileUploader: false,
    ignoreUndocumented: false,
  });
}

/**
 * Sends a streamed reply: the bytes go out as they are read, the reading waiting whenever the
 * client is slower (memory holds a chunk, not the object). A HEAD request gets the headers only.
 */
function sendStream(res: Response, reply: StreamReply, logger: Logger): void {
  const { status, headers, body } = reply.stream;
  res.writeHead(status, headers);
  if (body === null || res.locals.method === 'HEAD') {
    void body?.cancel();
    res.end();
    return;
  }
  const reader = body.getReader();
  const pump = async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return void res.end();
      // The next chunk is read only once the socket took this one.
      if (!res.write(value)) await drained(res);
    }
  };
  pump().catch((error: unknown) => {
    // The client went away, or storage failed mid-body: the answer cannot say so any more.
    void reader.cancel().catch(() => {});
    if (!res.destroyed) logger.error({ err: error }, 'streaming a body failed');
    res.destroy();
  });
}

/** Resolves when the response can take more; rejects when the connection closes first. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new Error('the client closed the connection'));
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/** Whether the store's database answers within the readiness timeout. */
async function databaseAnswers(store: Store): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, readinessTimeoutMs, false)));
  try {
    return await Promise.race([store.ping().then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The document's path templates as matchers, for routing before authentication, for `Allow`, and
 * for the media types each method's request body takes.
 */
function documentRoutes(document: Record<string, unknown>) {
  // By segment count (a template's parameters never hold a slash): a path is tried only against
  // the few templates of its length.
  const bySegments = new Map<number, { pattern: RegExp; methods: string; bodies: Record<string, string[]> }[]>();
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    const methods = Object.keys(item).filter((key) => ['get', 'put', 'post', 'patch', 'delete'].includes(key));
    const route = {
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
      methods: methods.map((method) => method.toUpperCase()).join(', '),
      bodies: Object.fromEntries(
        methods.map((method) => {
          const content = (item[method] as { requestBody?: { content?: object } }).requestBody?.content ?? {};
          return [method, Object.keys(content)];
        }),
      ),
    };
    const segments = segmentCount(template);
    bySegments.set(segments, [...(bySegments.get(segments) ?? []), route]);
  }
  return {
    /** The path item matching a path relative to the base path, if any. */
    find: (relativePath: string) => bySegments.get(segmentCount(relativePath))?.find(({ pattern }) => pattern.test(relativePath)),
  };
}

/** Segments of a path, a trailing slash not counted (the patterns accept one). */
function segmentCount(path: string): number {
  let count = 0;
  for (let i = 0; i < path.length - 1; i += 1) if (path.charCodeAt(i) === 47) count += 1;
  return count;
}

/**
 * The validator's middlewares that check the request, and the one that checks responses (when
 * on). Told apart by name: an upgrade that renames them fails here, at start-up.
 */
function splitValidator(validator: express.RequestHandler[]) {
  const requestNames = ['pathParamsMiddleware', 'metadataMiddleware', 'securityMiddleware', 'requestMiddleware'];
  const unknown = validator.filter((step) => !requestNames.includes(step.name) && step.name !== 'responseMiddleware');
  if (unknown.length > 0) throw new Error(`unexpected validator middlewares: ${unknown.map((step) => step.name || '(anonymous)').join(', ')}`);
  return {
    requestSteps: validator.filter((step) => requestNames.includes(step.name)),
    responseSteps: validator.filter((step) => step.name === 'responseMiddleware'),
  };
}

/** Sends one request through the validator alone, so it loads and compiles the document now. */
export async function warmUp(validator: express.RequestHandler[]): Promise<void> {
  const probe = express();
  probe.use(validator);
  probe.use((_req, res) => res.status(204).end());
  probe.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => res.status(204).end());
  const server = createServer(probe);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    // node:http rather than fetch, whose client (undici) would be loaded for this one request.
    await new Promise<void>((resolve, reject) => {
      get(`http://127.0.0.1:${port}${basePath}/filters/validate-expr?expression=ssl`, (response) => {
        response.resume();
        response.once('end', resolve);
      }).once('error', reject);
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
