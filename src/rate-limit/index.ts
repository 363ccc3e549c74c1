/**
 * The platform's API rate limit, opt-in: requests counted per user in fixed windows, refused once
 * over budget with the headers the platform sends. Knows nothing of HTTP frameworks.
 *
 * - `new RequestBudget(policy)`, `take(user)` -> whether the request may go on, what is left,
 *   when the window resets.
 * - `rateLimitHeaders(policy, verdict)`: `Ratelimit`, `Ratelimit-Policy`, and `Retry-After` on a refusal.
 * - `PLATFORM_POLICY`: 1,200 requests per 300 seconds.
 */
export { PLATFORM_POLICY, rateLimitHeaders, RequestBudget, type RateLimitPolicy, type Verdict } from './request-budget';
