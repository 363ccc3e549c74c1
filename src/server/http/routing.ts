import type { Request, RequestHandler } from 'express';

/**
 * Routing first, on one route table: the request validator's own (its path and metadata steps,
 * which find the operation of the method and path in the document, compiled once). The real
 * service routes before it authenticates or reads a body, so an unknown route is refused at once
 * (404 with or without credentials, and before up to 1 MiB of body is parsed). What else routing
 * refuses (a method the path lacks, a path that does not decode) is kept, and raised by
 * `refuseKept` where the rest of the validation runs, after authentication and body parsing.
 */
export function routeFirst(
  routing: RequestHandler,
  /** Whether an error of routing means "no such route". */
  isUnknownRoute: (error: unknown) => boolean,
  /** The answer to an unknown route. */
  unknownRoute: (req: Request) => unknown,
): { route: RequestHandler; refuseKept: RequestHandler } {
  const kept = new WeakMap<Request, unknown>();
  return {
    route: (req, res, next) =>
      routing(req, res, (error?: unknown) => {
        if (!error) return next();
        if (isUnknownRoute(error)) return next(unknownRoute(req));
        kept.set(req, error);
        next();
      }),
    refuseKept: (req, _res, next) => next(kept.get(req)),
  };
}
