/**
 * The request as it reaches the edge: its target, headers in order, cookies, the part of the body
 * the rules inspect, the client and the platform's per-request values (time, ray id). The edge
 * builds one from a live request; the simulator from a description.
 */
import type { RequestTarget } from './url';

export type HeaderLine = readonly [name: string, value: string];

export const HTTP_VERSIONS = ['HTTP/1.0', 'HTTP/1.1', 'HTTP/2', 'HTTP/3'] as const;
export type HttpVersion = (typeof HTTP_VERSIONS)[number];

/** An answer's status and headers: what the response phase and the custom log fields read. */
export interface ResponseHead {
  status: number;
  headers: readonly HeaderLine[];
}

export interface EdgeRequest {
  method: string;
  target: RequestTarget;
  version: HttpVersion;
  /** Header lines as sent; names keep their case (HTTP/2 and HTTP/3 send them in lower case). */
  headers: readonly HeaderLine[];
  /** Cookies of every Cookie header, in order: the name URL-decoded, the value as sent. */
  cookies: readonly HeaderLine[];
  /** The body as the rules see it (its start, up to the inspection limit). */
  body: string;
  /** The body's whole size in bytes (it may be larger than `body`). */
  bodySize: number;
  clientIp: string | undefined;
  timestampMs: number;
  rayId: string;
}

/** Every value of a header (case-insensitive name, given in lower case), in order. */
export function headerValues(headers: readonly HeaderLine[], name: string): string[] {
  const values: string[] = [];
  for (const [n, value] of headers) if (n.length === name.length && n.toLowerCase() === name) values.push(value);
  return values;
}

/** The cookies of Cookie header values, in order: name URL-decoded, value as sent. */
export function parseCookies(cookieHeaders: readonly string[]): HeaderLine[] {
  return cookieHeaders.flatMap((header) =>
    header
      .split(';')
      .map((pair) => pair.trim())
      .filter((pair) => pair !== '')
      .map((pair) => {
        const at = pair.indexOf('=');
        const [name, value] = at === -1 ? ['', pair] : [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
        return [decodeOrKeep(name), value] as const;
      }),
  );
}

/** URL-decoding that leaves malformed escapes as they are instead of failing. */
function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
