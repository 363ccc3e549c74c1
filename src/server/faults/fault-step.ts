import type { Request, RequestHandler } from 'express';
import { dropConnection, type FaultSet, type RuleCatalogue } from '../../faults';
import { sendError } from '../http/envelope';
import { ApiError } from '../http/errors';
import { basePath } from '../http/openapi-document';

type RoutedRequest = Request & { openapi?: { schema?: { operationId?: string } } };

/** What the API's fault rules may name: the document's operationIds. */
export function apiFaultCatalogue(document: Record<string, unknown>): RuleCatalogue {
  const operations = new Set<string>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const operation of Object.values(item)) {
      const operationId = (operation as { operationId?: unknown } | null)?.operationId;
      if (typeof operationId === 'string') operations.add(operationId);
    }
  }
  return { operations };
}

/** The success a mid-response drop starts to send: an envelope, cut in half. */
const PARTIAL_ENVELOPE = {
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: '{"result":null,"success":true,"errors":[],"messages":[]}',
};

/**
 * The step that fails requests on purpose, between validation and the handler: a request it
 * fails never reaches its handler (nothing changes), and only requests the handler would have
 * served count for a rule. A delay alone lets the request go on to its handler afterwards.
 */
export function injectFaults(faults: FaultSet): RequestHandler {
  return (req: RoutedRequest, res, next) => {
    if (faults.size === 0) return next();
    const fault = faults.decide({
      // As received: a HEAD request is handled as a GET further on.
      method: (res.locals.method as string | undefined) ?? req.method,
      path: req.path.slice(basePath.length) || '/',
      operation: req.openapi?.schema?.operationId,
    });
    if (fault === undefined) return next();
    res.locals.fault = fault.rule;
    res.locals.operationId = req.openapi?.schema?.operationId;
    const { effect } = fault;
    const act = () => {
      if (effect.drop !== undefined) return dropConnection(res, effect.drop, PARTIAL_ENVELOPE);
      if (effect.status === undefined) return next();
      if (effect.retryAfter !== undefined) res.setHeader('Retry-After', String(effect.retryAfter));
      sendError(res, new ApiError(effect.status, effect.errors ?? []));
    };
    if (effect.delayMs > 0) setTimeout(act, effect.delayMs);
    else act();
  };
}
