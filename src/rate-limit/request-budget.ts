import type { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** How many requests a user may make per window. */
export interface RateLimitPolicy {
  requests: number;
  windowSeconds: number;
}

/** The platform's documented limit: 1,200 requests per five minutes per user. */
export const PLATFORM_POLICY: RateLimitPolicy = { requests: 1200, windowSeconds: 300 };

export interface Verdict {
  allowed: boolean;
  /** Requests left in the current window (0 once refused). */
  remaining: number;
  /** Seconds, rounded up, until the window resets or the block ends. */
  resetSeconds: number;
}

/**
 * Requests counted per user in fixed windows. A window opens with a user's first request and
 * lasts `windowSeconds`; the request past the budget is refused, and so is every request of that
 * user for the next `windowSeconds` from then ("all API calls for the next five minutes will be
 * blocked", as the platform documents it); refusals do not lengthen the block. Counted in this
 * process's memory: several instances each count on their own.
 */
export class RequestBudget {
  // Loaded with the first request: a server without a rate limit never loads the library.
  private limiter: Promise<RateLimiterMemory> | undefined;

  constructor(readonly policy: RateLimitPolicy) {}

  async take(user: string): Promise<Verdict> {
    this.limiter ??= import('rate-limiter-flexible').then(
      ({ RateLimiterMemory }) =>
        new RateLimiterMemory({ points: this.policy.requests, duration: this.policy.windowSeconds, blockDuration: this.policy.windowSeconds }),
    );
    const limiter = await this.limiter;
    try {
      const granted = await limiter.consume(user);
      return { allowed: true, remaining: granted.remainingPoints, resetSeconds: seconds(granted) };
    } catch (refusal) {
      // The memory limiter rejects with its verdict; anything else is a fault of ours.
      if (!isVerdict(refusal)) throw refusal;
      return { allowed: false, remaining: 0, resetSeconds: Math.max(1, seconds(refusal)) };
    }
  }
}

function isVerdict(value: unknown): value is RateLimiterRes {
  return typeof value === 'object' && value !== null && 'msBeforeNext' in value && !(value instanceof Error);
}

function seconds(verdict: RateLimiterRes): number {
  return Math.max(0, Math.ceil(verdict.msBeforeNext / 1000));
}

/**
 * The headers the platform sends with its REST answers (the IETF draft's pattern):
 * `Ratelimit: "default";r=<left>;t=<seconds>` and `Ratelimit-Policy: "default";q=<requests>;w=<seconds>`
 * always, and `Retry-After: <seconds>` only on a refusal.
 */
export function rateLimitHeaders(policy: RateLimitPolicy, verdict: Verdict): Record<string, string> {
  return {
    Ratelimit: `"default";r=${verdict.remaining};t=${verdict.resetSeconds}`,
    'Ratelimit-Policy': `"default";q=${policy.requests};w=${policy.windowSeconds}`,
    ...(verdict.allowed ? {} : { 'Retry-After': String(verdict.resetSeconds) }),
  };
}
