/**
 * A live request as the judgment sees it, from what an HTTP server read: the request line as sent
 * (an absolute-form target loses its scheme and authority, as the edge reads only the path), the
 * header lines in order, the Host header's name and port, the start of the body.
 */
import { type EdgeRequest, type HeaderLine, type HttpVersion, headerValues, parseCookies } from './request';
import type { RequestTarget, Scheme } from './url';

export interface LiveRequestParts {
  method: string;
  /** The request target as sent (`/path?query`, or absolute-form). */
  url: string;
  /** Node's `httpVersion`: `1.0`, `1.1`, `2.0`. */
  httpVersion: string;
  /** Names and values alternating, as sent. */
  rawHeaders: readonly string[];
  scheme: Scheme;
  clientIp: string;
  /** The start of the body (what the rules inspect), and the whole body's size. */
  body: string;
  bodySize: number;
  timestampMs: number;
  rayId: string;
}

const DEFAULT_PORTS: Record<Scheme, number> = { http: 80, https: 443 };

export function liveRequest(parts: LiveRequestParts): EdgeRequest {
  const headers: HeaderLine[] = [];
  for (let i = 0; i + 1 < parts.rawHeaders.length; i += 2) headers.push([parts.rawHeaders[i]!, parts.rawHeaders[i + 1]!]);
  return {
    method: parts.method,
    target: targetOf(parts.scheme, headerValues(headers, 'host')[0] ?? '', parts.url),
    version: versionOf(parts.httpVersion),
    headers,
    cookies: parseCookies(headerValues(headers, 'cookie')),
    body: parts.body,
    bodySize: parts.bodySize,
    clientIp: parts.clientIp,
    timestampMs: parts.timestampMs,
    rayId: parts.rayId,
  };
}

function versionOf(httpVersion: string): HttpVersion {
  if (httpVersion === '1.0') return 'HTTP/1.0';
  if (httpVersion.startsWith('2')) return 'HTTP/2';
  if (httpVersion.startsWith('3')) return 'HTTP/3';
  return 'HTTP/1.1';
}

function targetOf(scheme: Scheme, host: string, url: string): RequestTarget {
  const authority = host.trim().toLowerCase();
  const bracketed = authority.startsWith('[');
  const portAt = bracketed ? authority.indexOf(']:') + 1 : authority.lastIndexOf(':');
  const explicitPort = portAt > 0 && /^\d+$/.test(authority.slice(portAt + 1));
  const hostname = (explicitPort ? authority.slice(0, portAt) : authority).replace(/^\[|\]$/g, '').replace(/\.$/, '');
  // An absolute-form target (`http://host/path`) keeps only its path and query here.
  const target = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/' : url;
  const question = target.indexOf('?');
  return {
    scheme,
    host: hostname,
    port: explicitPort ? Number(authority.slice(portAt + 1)) : DEFAULT_PORTS[scheme],
    explicitPort,
    rawPath: question === -1 ? target : target.slice(0, question),
    rawQuery: question === -1 ? null : target.slice(question + 1),
    droppedFragment: null,
  };
}
