import type { Request, RequestHandler } from 'express';
import { LruMap } from '../../in-place-caches';
import { series } from './series';

/** What the validator leaves on a request it accepted, as the server's steps after it read it. */
interface Accepted {
  openapi: { schema?: { operationId?: string }; pathParams?: Record<string, unknown> } & Record<string, unknown>;
  pathParams: Readonly<Record<string, unknown>>;
}

type ValidatedRequest = Request & { openapi?: Accepted['openapi'] };

/** A request marked (by the memo's own symbol) as one whose verdict was recalled. */
type MarkedRequest = Request & Record<symbol, true | undefined>;

/** How many accepted method-and-path pairs are kept (each a few hundred bytes). */
const DEFAULT_CAPACITY = 4096;

/**
 * The request validator's verdict on a request that carries nothing but a method and a path
 * (no query string, no body, no content type; and an operation that declares no header or cookie
 * parameter) depends on nothing else: once the validator accepted `GET /client/v4/zones/…/entrypoint`
 * it accepts it again, with the same operation and the same (coerced) path parameters. Those
 * verdicts are kept, up to `capacity` of them, the least recently used dropped first, and a
 * request that repeats one gets the verdict back without the validator: `recall` gives it back
 * (and skips the steps it wraps, the routing), `validate` then skips the request steps (body
 * parsing and the validator's request middlewares) and keeps what they accept. Every other
 * request, and every refusal, goes through them each time. The response validator, when on, is
 * not among them and still runs for every request.
 */
export function acceptedRequestMemo(document: Record<string, unknown>, capacity = DEFAULT_CAPACITY) {
  const plainOperations = operationsWithoutHeaderParameters(document);
  // Both shaped for V8's young generation (see LruMap): a recalled request is marked on itself,
  // where a WeakSet given every request as a new key rebuilt its table every so often, and the
  // discarded tables kept requests alive into the old generation.
  const accepted = new LruMap<string, Accepted>(capacity);
  const recalled = Symbol('recalled');
  return {
    /** The verdict of a repeat given back at once, or `steps` run (the routing, which a repeat needs no more). */
    recall(steps: readonly RequestHandler[]): RequestHandler {
      const run = series(steps);
      return (req: ValidatedRequest, res, next) => {
        const key = memoKey(req);
        const known = key === undefined ? undefined : accepted.get(key);
        if (known === undefined) return run(req, res, next);
        const pathParams = { ...known.pathParams };
        req.openapi = { ...known.openapi, pathParams };
        req.params = pathParams as Request['params'];
        (req as MarkedRequest)[recalled] = true;
        next();
      };
    },

    /** `steps` run, unless the verdict was recalled; a request they accept is kept when plain. */
    validate(steps: readonly RequestHandler[]): RequestHandler {
      const run = series(steps);
      return (req: ValidatedRequest, res, next) => {
        if ((req as MarkedRequest)[recalled] === true) return next();
        run(req, res, (error?: unknown) => {
          const key = memoKey(req);
          const operationId = req.openapi?.schema?.operationId;
          if (!error && key !== undefined && operationId !== undefined && plainOperations.has(operationId)) {
            accepted.set(key, { openapi: { ...req.openapi! }, pathParams: Object.freeze({ ...req.openapi!.pathParams }) });
          }
          next(error);
        });
      };
    },
  };
}

/** The memo as one step: `steps` skipped for a repeat of an accepted method and path, else run and kept. */
export function rememberAcceptedRequests(steps: readonly RequestHandler[], document: Record<string, unknown>, capacity = DEFAULT_CAPACITY): RequestHandler {
  const memo = acceptedRequestMemo(document, capacity);
  return series([memo.recall([]), memo.validate(steps)]);
}

/** The method and path, when they are all the validator looks at; otherwise undefined. */
function memoKey(req: Request): string | undefined {
  const url = req.originalUrl;
  const headers = req.headers;
  if (url.includes('?') || headers['content-type'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  const length = headers['content-length'];
  if (length !== undefined && length !== '0') return undefined;
  return `${req.method} ${url}`;
}

/** Operations whose parameters (the path item's included) are all in the path or the query. */
function operationsWithoutHeaderParameters(document: Record<string, unknown>): Set<string> {
  type Parameter = { $ref?: string; in?: string };
  const shared = ((document.components as { parameters?: Record<string, Parameter> } | undefined)?.parameters ?? {}) as Record<string, Parameter>;
  const resolve = (parameter: Parameter): Parameter => (parameter.$ref ? (shared[parameter.$ref.split('/').pop()!] ?? {}) : parameter);
  const plain = new Set<string>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    const common = (item.parameters ?? []) as Parameter[];
    for (const operation of Object.values(item)) {
      const { operationId, parameters = [] } = (operation ?? {}) as { operationId?: string; parameters?: Parameter[] };
      if (typeof operationId !== 'string') continue;
      const places = [...common, ...parameters].map((parameter) => resolve(parameter).in);
      if (places.every((place) => place === 'path' || place === 'query')) plain.add(operationId);
    }
  }
  return plain;
}
