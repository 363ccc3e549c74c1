/**
 * The request description: the JSON a user writes to say which request to simulate.
 *
 * ```json
 * { "method": "GET", "url": "https://example.org/search?q=1",
 *   "headers": { "User-Agent": "curl/8.5.0", "Accept": ["text/html", "*\/*"] },
 *   "cookies": { "sessionId": "abc" }, "body": "a=1", "client_ip": "203.0.113.7",
 *   "http_version": "HTTP/2", "overrides": { "ip.src.country": "DE", "cf.bot_management.score": 12 },
 *   "response": { "status": 200, "headers": { "Cache-Control": "no-store" } } }
 * ```
 * A header or cookie given as an array is sent once per value, in order.
 */
import { z } from 'zod';
import { type DescriptionIssue, InvalidRequestDescriptionError } from './errors';
import { type FieldOverrides, checkOverrides } from './overrides';
import { HTTP_VERSIONS, type HttpVersion, type RequestTarget, isIpAddress, parseTarget } from '../judge';

export type { HttpVersion };

/** RFC 9110 token: method and header names. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The limits the extension operation's schema sets too. */
const MAX_ENTRIES = 200;
const MAX_URL_LENGTH = 16384;
const MAX_METHOD_LENGTH = 32;

function buildSchema() {
  const values = z.union([z.string(), z.array(z.string()).min(1, 'must list at least one value')], {
    error: 'must be a string or a non-empty array of strings',
  });
  const atMostEntries = [(map: object) => Object.keys(map).length <= MAX_ENTRIES, `must have at most ${MAX_ENTRIES} entries`] as const;
  const headerMap = z
    .record(z.string().regex(TOKEN, 'is not a header name (an HTTP token)'), values, expecting('an object from header name to value(s)'))
    .refine(...atMostEntries);

  return z.strictObject(
    {
      method: z
        .string(expecting('a string'))
        .regex(TOKEN, 'must be an HTTP method such as GET or POST')
        .max(MAX_METHOD_LENGTH, `must be at most ${MAX_METHOD_LENGTH} characters`),
      url: z.string(expecting('a string')).max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`),
      http_version: z.enum(HTTP_VERSIONS, { error: `must be one of ${HTTP_VERSIONS.join(', ')}` }).optional(),
      headers: headerMap.optional(),
      cookies: z
        .record(z.string().regex(/^[^\s;=,]+$/, 'is not a cookie name'), values, expecting('an object from cookie name to value(s)'))
        .refine(...atMostEntries)
        .optional(),
      body: z.string({ error: 'must be a string (the raw request body)' }).optional(),
      client_ip: z
        .string({ error: 'must be a string' })
        .refine(isIpAddress, 'must be an IPv4 or IPv6 address')
        .optional(),
      overrides: z.record(z.string(), z.unknown(), expecting('an object from rules-language field name to value')).refine(...atMostEntries).optional(),
      response: z
        .strictObject(
          {
            status: z.int(expecting('an integer')).min(100, 'must be 100 to 599').max(599, 'must be 100 to 599'),
            headers: headerMap.optional(),
          },
          expecting('an object with status and optional headers'),
        )
        .optional(),
    },
    { error: 'the request description must be a JSON object with at least method and url' },
  );
}

// Built on first use: a start neither builds it nor loads zod (see deferredPackagesPlugin in
// scripts/bundles.mjs).
let builtSchema: ReturnType<typeof buildSchema> | undefined;
const schema = () => (builtSchema ??= buildSchema());

type ParsedShape = z.infer<ReturnType<typeof buildSchema>>;
export type HeaderValues = string | string[];

export interface RequestDescription extends Omit<ParsedShape, 'overrides'> {
  overrides?: FieldOverrides;
}

/** A checked description, with its URL split and its overrides typed. */
export interface CheckedDescription {
  description: RequestDescription;
  target: RequestTarget;
  overrides: FieldOverrides;
}

/** Checks anything (parsed JSON) as a request description; throws one error listing every problem. */
export function checkDescription(input: unknown): CheckedDescription {
  const parsed = schema().safeParse(input);
  const issues: DescriptionIssue[] = parsed.success ? [] : parsed.error.issues.flatMap(toIssues);
  // The checks beyond the shape run on whatever parts have the right shape, so one answer lists every problem.
  const shaped = (parsed.success ? parsed.data : isRecord(input) ? input : {}) as Partial<ParsedShape>;
  const target = typeof shaped.url === 'string' ? parseTarget(shaped.url) : undefined;
  if (typeof target === 'string') issues.push({ path: 'url', message: target });
  const overrides = checkOverrides(isRecord(shaped.overrides) ? shaped.overrides : {}, issues);
  if (typeof target === 'object' && target.scheme === 'http' && shaped.http_version === 'HTTP/3') {
    issues.push({ path: 'http_version', message: 'HTTP/3 runs over QUIC, which needs https' });
  }
  if (typeof target === 'object' && isRecord(shaped.headers)) checkHostHeader(shaped.headers, target, issues);
  if (!parsed.success || typeof target !== 'object' || issues.length > 0) throw new InvalidRequestDescriptionError(issues);
  return { description: { ...parsed.data, overrides }, target, overrides };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A Host header that names another host than the URL would make the request ambiguous. */
function checkHostHeader(headers: Record<string, unknown>, target: RequestTarget, issues: DescriptionIssue[]) {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'host') continue;
    const hosts = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    const other = hosts.find((host) => typeof host !== 'string' || host.replace(/:\d+$/, '').toLowerCase() !== target.host);
    if (other !== undefined || hosts.length !== 1) {
      issues.push({ path: `headers.${name}`, message: `must name the url's host ${target.host} once (the edge routes by it), got ${JSON.stringify(value)}` });
    }
  }
}

function toIssues(issue: z.core.$ZodIssue): DescriptionIssue[] {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return [{ path, message: `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` }];
  }
  if (issue.code === 'invalid_key') return issue.issues.map((inner) => ({ path, message: inner.message }));
  return [{ path, message: issue.message }];
}

/** The message of a value of the wrong type, or of a required one that is missing. */
function expecting(what: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`) };
}
