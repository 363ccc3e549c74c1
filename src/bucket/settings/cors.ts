/**
 * CORS rules of a bucket (the management API's shape) and how a browser request is matched
 * against them, for the S3 endpoint.
 */

export type CorsMethod = 'GET' | 'PUT' | 'POST' | 'DELETE' | 'HEAD';

export interface CorsRule {
  id?: string;
  allowed: { methods: CorsMethod[]; origins: string[]; headers?: string[] };
  exposeHeaders?: string[];
  maxAgeSeconds?: number;
}

/** Whether `origin` is allowed by a rule's origin pattern (`*`, exact, or with one `*`). */
function originMatches(pattern: string, origin: string): boolean {
  if (pattern === '*') return true;
  const star = pattern.indexOf('*');
  if (star === -1) return pattern === origin;
  const head = pattern.slice(0, star);
  const tail = pattern.slice(star + 1);
  return origin.length >= head.length + tail.length && origin.startsWith(head) && origin.endsWith(tail);
}

function headerAllowed(patterns: readonly string[], header: string): boolean {
  const name = header.toLowerCase();
  return patterns.some((pattern) => pattern === '*' || pattern.toLowerCase() === name);
}

/**
 * The first rule allowing a request from `origin` with `method` (and, for a preflight, the
 * request headers it announces), or null.
 */
export function matchCorsRule(
  rules: readonly CorsRule[],
  origin: string,
  method: string,
  requestHeaders: readonly string[] = [],
): CorsRule | null {
  return (
    rules.find(
      (rule) =>
        rule.allowed.origins.some((pattern) => originMatches(pattern, origin)) &&
        (rule.allowed.methods as string[]).includes(method) &&
        requestHeaders.every((header) => headerAllowed(rule.allowed.headers ?? [], header)),
    ) ?? null
  );
}

/** What the schema cannot say about CORS rules: an origin holds at most one wildcard. Null when fine. */
export function corsRulesProblem(rules: readonly CorsRule[]): string | null {
  for (const [index, rule] of rules.entries()) {
    for (const [at, origin] of rule.allowed.origins.entries()) {
      if (origin !== '*' && origin.split('*').length > 2) {
        return `rules/${index}/allowed/origins/${at}: "${origin}" holds more than one *; an origin may hold one wildcard`;
      }
    }
  }
  return null;
}
