import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
// The validator's own modules rather than its index, which loads its document loader (a JSON
// Schema reference parser, a YAML parser) that the server runs at build time instead.
import { NotFound } from 'express-openapi-validator/dist/framework/types.js';
import { OpenApiValidator as DocumentValidator } from 'express-openapi-validator/dist/openapi.validator.js';
import type { Logger } from 'pino';
import { HOME_ACCOUNT_ID, type BucketCatalogue } from '../bucket';
import { FaultSet } from '../faults';
import { BucketCredentials } from '../logpush';
import { RequestBudget, type RateLimitPolicy } from '../rate-limit';
import { healthProblems, type HealthProblem } from '../storage-health';
import { frozenJson, type Store } from '../store';
import { writeStreamedBody } from '../streamed-body';
import { authenticate } from './auth/authenticate';
import type { CredentialRegistry, Principal } from './auth/credentials';
import { faultsEndpoint, FAULTS_PATH } from './faults/control-endpoint';
import { apiFaultCatalogue, injectFaults } from './faults/fault-step';
import { limitRequests } from './faults/rate-limit-step';
import { handlers } from './handlers';
import { resultSender, sendError, type ResultInfo } from './http/envelope';
import { toApiError } from './http/error-mapper';
import { notFound } from './http/errors';
import { basePath } from './http/openapi-document';
import { refuseDeepJson } from './http/json-depth';
import { connectionServerOptions, defaultConnectionLimits } from '../http-connections';
import { oneSegmentObjectKey } from './http/object-keys';
import { preparedWording, readableValidationDocument, validatorSpec } from './http/prepared-document';
import { requestLogger } from './http/request-logger';
import { routeFirst } from './http/routing';
import { series } from './http/series';
import { isPlainText } from './http/text-json';
import { acceptedRequestMemo } from './http/validation-memo';
import type { AnyReply, Context, Handler, OperationId, StreamReply } from './operations';
import { storeErrorAnswer } from './store-errors';
import type { LiveTails } from '../tail';
import { readWorkerForm } from './workers/read-form';
import { authenticateAssetsUpload } from './workers/assets-token';

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
  /** The account whose buckets those keys open (the S3 endpoint's; the home account by default). */
  s3Account?: string;
  logger: Logger;
  /** Validate every response against the document (tests and development). */
  validateResponses?: boolean;
  /** Fault rules to start with (the `api` list of FAULTS_FILE); /__faults sets them at run time. */
  faultRules?: { list: unknown; source: string };
  /** The platform's rate limit per user (RATE_LIMIT); none when absent. */
  rateLimit?: RateLimitPolicy;
  /**
   * The other components of the platform started with the API (S3 endpoint, workers): GET /readyz
   * names each with its state and answers ready only while every one is running.
   */
  components?: () => Record<string, { state: string; url: string }>;
  /** Live tails of deployed workers (`npm start` with its edge); without them, creating a tail is refused. */
  tails?: LiveTails;
}

export interface App {
  app: express.Express;
  /** Resolves once the validator has compiled the document, so the first request is not slow. */
  ready: Promise<void>;
}

interface AuthenticatedRequest extends Request {
  principal?: Principal;
  openapi?: { schema?: { operationId?: string; requestBody?: { content?: Record<string, unknown> } }; pathParams?: Record<string, string> };
}

const bodyLimit = '1mb';
/** An assets upload session's manifest: 20,000 paths with their hashes and sizes. */
const manifestLimit = '16mb';

export const httpServerOptions = connectionServerOptions(defaultConnectionLimits);
/** A readiness probe that cannot reach the database within this long answers 503. */
const readinessTimeoutMs = 2000;

export function createApp(options: AppOptions): App {
  const { store, credentials, logger } = options;
  const s3AccessKeys = options.s3AccessKeys ?? new Map<string, string>();
  const bucketCredentials = s3AccessKeys.size > 0 ? new BucketCredentials(s3AccessKeys, options.s3Account ?? HOME_ACCOUNT_ID) : null;
  // The server's own copy: the validator changes the one it is given.
  const document = readableValidationDocument();
  // From the document as written: the validation copy has no discriminator mappings.
  const wording = preparedWording();
  const validator = documentValidator(options.validateResponses === true);
  // Bad rules throw here, before the server listens.
  const faults = new FaultSet('api', apiFaultCatalogue(document), (entry) => logger.warn(entry, 'fault injected'));
  if (options.faultRules) faults.replace(options.faultRules.list, options.faultRules.source);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The document's paths are matched case for case: the validator, which routes the API, reads
  // this setting. What the app serves outside the API answers in any case, as Express matches by
  // default: their paths are written case-insensitive.
  app.enable('case sensitive routing');
  // For load balancers: outside the API (no document, no credentials) and not logged per probe.
  // A database known to be out of reach answers at once, naming it; a full one leaves the process
  // ready (reads and deletes go on) and says it is degraded.
  app.get(/^\/readyz\/?$/i, (_req, res) => {
    const database = options.database ?? 'sqlite';
    const components = options.components?.();
    const running = components === undefined || Object.values(components).every(({ state }) => state === 'running');
    const problems = healthProblems();
    const lost = problems.some(({ kind }) => kind === 'unavailable');
    (lost ? Promise.resolve(false) : databaseAnswers(store)).then((answers) => {
      const ready = answers && running;
      res.status(ready ? 200 : 503).json({
        ready,
        database,
        ...(problems.length === 0 ? {} : { degraded: true, problems: problems.map(describeProblem) }),
        ...(components === undefined ? {} : { components }),
      });
    });
  });
  app.use(requestLogger(logger));
  app.use(new RegExp(`^${FAULTS_PATH}(?=/|$)`, 'i'), faultsEndpoint(faults, credentials));

  const prefix = `${basePath}/`;
  const { routingSteps, requestSteps, responseSteps } = splitValidator(validator);
  // An unknown route is named by its whole path, as the real service names it.
  const { route, refuseKept } = routeFirst(series(routingSteps), isValidatorNotFound, (req) => notFound(req.originalUrl.split('?')[0]!));
  /** A request as routing takes it: an object key in one segment, HEAD as GET. */
  const normalize = (req: Request, res: Response, next: NextFunction) => {
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
    next();
  };
  const authenticateRequest = (req: AuthenticatedRequest, _res: Response, next: NextFunction) => {
    // An assets upload is authorized by its session's token, checked before its body is read.
    if (req.openapi?.schema?.operationId === 'uploadWorkerAssets') return void authenticateAssetsUpload(req, store).then(() => next(), next);
    req.principal = authenticate(req.headers, credentials);
    next();
  };
  const sendResult = resultSender(frozenJson);
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
      s3AccessKeys,
      bucketCredentials,
      tails: options.tails,
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
  // Bodies by what the document's operation takes (as the route found says): raw bytes (object
  // uploads) are left unread for the handler to stream; JSON sent as text/plain is read as JSON
  // where the document says so.
  // `application/*+json` too: wrangler sends secrets in bulk as `application/merge-patch+json`.
  const json = express.json({ limit: bodyLimit, type: ['application/json', 'application/*+json'], verify: (_req, _res, body) => refuseDeepJson(body) });
  const manifestJson = express.json({ limit: manifestLimit, type: ['application/json', 'application/*+json'], verify: (_req, _res, body) => refuseDeepJson(body) });
  const plainTextJson = express.json({ limit: bodyLimit, type: () => true, verify: (_req, _res, body) => refuseDeepJson(body) });
  const readBody = (req: AuthenticatedRequest, res: Response, next: NextFunction) => {
    const media = Object.keys(req.openapi?.schema?.requestBody?.content ?? {});
    if (media.includes('*/*')) return next();
    // A worker upload's form is read whole, and checked as a form, before the validator runs.
    if (media.includes('multipart/form-data')) return readWorkerForm(req).then(() => next(), next);
    if (media.includes('text/plain') && isPlainText(req.headers['content-type'])) return plainTextJson(req, res, next);
    // An assets manifest names up to 20,000 files.
    if (req.openapi?.schema?.operationId === 'createWorkerAssetsUploadSession') return manifestJson(req, res, next);
    return json(req, res, next);
  };
  // Routing comes first, as on the real service: an unknown route is a 404 with or without
  // credentials. Bodies are read only after routing and authentication: an unknown route or a
  // client without credentials never makes the server parse up to 1 MiB.
  // A repeat of an accepted method and path gets the validator's verdict back before routing, and
  // skips it and the request steps (see validation-memo.ts).
  const memo = acceptedRequestMemo(document);
  // Faults and the rate limit answer before the response validator wraps the response: their
  // answers are the platform's, which the document does not list.
  const api = series([
    normalize,
    memo.recall([route]),
    authenticateRequest,
    ...(options.rateLimit ? [limitRequests(new RequestBudget(options.rateLimit))] : []),
    memo.validate([readBody, refuseKept, ...requestSteps]),
    injectFaults(faults),
    ...responseSteps,
    dispatch,
  ]);
  app.use((req, res, next) => (req.path.startsWith(prefix) ? api(req, res, next) : next()));
  app.use((req, _res, next) => next(notFound(req.path)));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const method = (res.locals.method as string | undefined) ?? req.method;
    const path = req.path.replace(basePath, '') || '/';
    const answer = storeErrorAnswer(error, path) ?? toApiError(error, { method, path }, wording);
    // The storage's outages and full disks are told once each (storage-health.ts), not per request.
    if (answer.status >= 500 && answer.status !== 503 && answer.status !== 507) logger.error({ err: error, path: req.path }, 'request failed');
    sendError(res, answer);
  });

  return { app, ready: warmUp(validator) };
}

/**
 * The validator middleware of the app (exported for the benchmark, which measures it alone too),
 * over the document as prepared-document.ts loads it: the validator's own loader already ran,
 * at build time in the bundle.
 */
export function documentValidator(validateResponses: boolean): express.RequestHandler[] {
  return new DocumentValidator({
    // Only checked for presence by the validator's constructor: the document it serves is
    // validatorSpec()'s, given to installMiddleware below.
    apiSpec: basePath,
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: false, discriminator: true },
    validateResponses: validateResponses ? { removeAdditional: false } : false,
    validateSecurity: false,
    // Worker uploads, the only multipart bodies, are read by the app itself (workers/read-form.ts):
    // no multipart layer on every request.
    fileUploader: false,
    ignoreUndocumented: false,
  }).installMiddleware(validatorSpec());
}

/**
 * Sends a streamed reply: the bytes go out as they are read (src/streamed-body.ts). A HEAD request
 * gets the headers only.
 */
function sendStream(res: Response, reply: StreamReply, logger: Logger): void {
  const { status, headers, body } = reply.stream;
  res.writeHead(status, headers);
  if (body === null || res.locals.method === 'HEAD') {
    void body?.cancel();
    res.end();
    return;
  }
  void writeStreamedBody(res, body, (error) => logger.error({ err: error }, 'streaming a body failed'));
}

/** A problem as /readyz names it. */
function describeProblem({ place, kind, reason, since }: HealthProblem) {
  return { place, state: kind, reason, since: since.toISOString() };
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
 * The validator's middlewares, by what they do: routing (the path parameters and the route's
 * metadata: which operation), checking the request, and checking responses (when on). Told apart
 * by name: an upgrade that renames them fails here, at start-up.
 */
function splitValidator(validator: express.RequestHandler[]) {
  const routingNames = ['pathParamsMiddleware', 'metadataMiddleware'];
  const requestNames = ['securityMiddleware', 'requestMiddleware'];
  const known = [...routingNames, ...requestNames, 'responseMiddleware'];
  const unknown = validator.filter((step) => !known.includes(step.name));
  if (unknown.length > 0) throw new Error(`unexpected validator middlewares: ${unknown.map((step) => step.name || '(anonymous)').join(', ')}`);
  const named = (names: readonly string[]) => validator.filter((step) => names.includes(step.name));
  return { routingSteps: named(routingNames), requestSteps: named(requestNames), responseSteps: named(['responseMiddleware']) };
}

/** The validator's refusal of a path no operation of the document has. */
function isValidatorNotFound(error: unknown): boolean {
  return error instanceof NotFound;
}

/**
 * Sends one request through the validator alone, so it loads the document and makes its request
 * validators (two Ajv instances holding the document's components) now. The request's path lies
 * outside the API's base path: the validator lets it through unchecked, so no route's validator
 * is compiled for it (each route's is compiled by the first request to that route).
 */
export async function warmUp(validator: express.RequestHandler[]): Promise<void> {
  const probe = express();
  probe.use(validator);
  probe.use((_req, res) => res.status(204).end());
  probe.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => res.status(204).end());
  const server = createServer(probe);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    // A bare socket rather than an HTTP client: fetch and (on Node 24) http.get load undici,
    // ~50 ms of start-up for this one request. The probe closes the connection once it answered.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end('GET /warm-up HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
      });
      socket.resume();
      socket.once('close', () => resolve());
      socket.once('error', reject);
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
