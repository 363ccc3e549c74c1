/**
 * The zones' origins: which upstream a hostname's requests go to, as the platform file's
 * `[[edge.origins]]` says (the stand-in for the DNS records this platform does not serve). A
 * hostname is an exact name (`example.org`) or every name under one (`*.example.org`); the exact
 * one wins, then the longest wildcard.
 */

/** The platform's waits for an origin: 15 s to connect, 100 s for an answer's head. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 100_000;

export interface Origin {
  /** As written: `example.org` or `*.example.org`. */
  hostname: string;
  upstream: URL;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
}

export interface OriginInput {
  hostname: string;
  upstream: string;
  connectTimeoutMs?: number;
  responseTimeoutMs?: number;
}

const HOSTNAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** What is wrong with an origin's hostname or upstream, or null. */
export function originProblem(input: Pick<OriginInput, 'hostname' | 'upstream'>): { key: 'hostname' | 'upstream'; message: string } | null {
  if (!HOSTNAME.test(input.hostname)) {
    return { key: 'hostname', message: `must be a host name in lower case (example.org) or every name under one (*.example.org), not "${input.hostname}"` };
  }
  let url: URL;
  try {
    url = new URL(input.upstream);
  } catch {
    return { key: 'upstream', message: `must be an http:// or https:// URL such as http://127.0.0.1:9000, not "${input.upstream}"` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { key: 'upstream', message: `must be an http:// or https:// URL, not ${url.protocol}` };
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    return { key: 'upstream', message: 'names the origin server only (scheme, host, port): requests keep their own path and query' };
  }
  return null;
}

export class OriginTable {
  readonly #exact = new Map<string, Origin>();
  /** Wildcards by the suffix they match (`.example.org`), longest first. */
  readonly #wildcards: [suffix: string, origin: Origin][] = [];

  /** Origins already checked (originProblem): a bad one throws a RangeError. */
  constructor(inputs: readonly OriginInput[]) {
    for (const input of inputs) {
      const problem = originProblem(input);
      if (problem) throw new RangeError(`origin ${input.hostname}: ${problem.key} ${problem.message}`);
      const origin: Origin = {
        hostname: input.hostname,
        upstream: new URL(input.upstream),
        connectTimeoutMs: input.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        responseTimeoutMs: input.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS,
      };
      if (input.hostname.startsWith('*.')) this.#wildcards.push([input.hostname.slice(1), origin]);
      else this.#exact.set(input.hostname, origin);
    }
    this.#wildcards.sort((a, b) => b[0].length - a[0].length);
  }

  get size(): number {
    return this.#exact.size + this.#wildcards.length;
  }

  /** The origin of a request's hostname (lower case, no port), if any. */
  find(hostname: string): Origin | undefined {
    return this.#exact.get(hostname) ?? this.#wildcards.find(([suffix]) => hostname.endsWith(suffix) && hostname.length > suffix.length)?.[1];
  }
}
