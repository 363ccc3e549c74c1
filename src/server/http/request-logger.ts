import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

/**
 * One structured log line per request: method, path (no query string, which may carry
 * expressions), status, operation, the fault rule that hit it (if any) and duration. Headers
 * are never logged: they carry credentials.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    // Nothing to log at this level: no timer and no listener per request.
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    // As received: a HEAD request is handled as a GET further on.
    const method = req.method;
    res.on('finish', () => {
      logger.info(
        {
          method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          operation: res.locals.operationId,
          // The rule that failed or slowed the request on purpose, if one did.
          fault: res.locals.fault,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  };
}
