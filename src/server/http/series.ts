import type { RequestHandler } from 'express';

/**
 * Middlewares run one after another as a single Express layer: the API's steps apply to every
 * API request alike, and each Express layer costs its own path matching and bookkeeping per
 * request. An error (or a step's thrown exception, or its rejected promise) skips the remaining
 * steps and goes to `done`, as in Express.
 */
export function series(steps: readonly RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error) return done(error);
      const step = steps[index++];
      if (step === undefined) return done();
      try {
        const returned: unknown = step(req, res, next);
        if (returned instanceof Promise) returned.catch(next);
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}
