import type { Request, RequestHandler } from 'express';
import { RATE_LIMITED } from '../../faults';
import { rateLimitHeaders, type RequestBudget } from '../../rate-limit';
import type { Principal } from '../auth/credentials';
import { sendError } from '../http/envelope';
import { ApiError } from '../http/errors';

/**
 * The platform's rate limit, after authentication and before the body is read: every request of
 * a user counts (invalid ones too, as on the platform), tokens and keys of one user share one
 * budget, and a credential with no user (a scoped token without an email) has its own. Every
 * answer carries `Ratelimit` and `Ratelimit-Policy`; a refusal is a 429 with `Retry-After`.
 */
export function limitRequests(budget: RequestBudget): RequestHandler {
  return (req: Request & { principal?: Principal }, res, next) => {
    const principal = req.principal!;
    const user = principal.email?.toLowerCase() ?? `credential:${principal.name}`;
    budget.take(user).then((verdict) => {
      for (const [name, value] of Object.entries(rateLimitHeaders(budget.policy, verdict))) res.setHeader(name, value);
      if (verdict.allowed) return next();
      sendError(res, new ApiError(429, [RATE_LIMITED]));
    }, next);
  };
}
