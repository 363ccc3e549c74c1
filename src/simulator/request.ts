/**
 * The request as it reaches the edge: the description's headers in order (with the Host,
 * Cookie and Content-Length headers a client adds), its cookies, body, client and the
 * platform's per-request values (time, ray id).
 */
import type { CheckedDescription, HeaderValues, HttpVersion } from './description';
import { type RequestTarget, authorityOf } from './url';

export type HeaderLine = readonly [name: string, value: string];

export interface SimulatedResponse {
  status: number;
  headers: readonly HeaderLine[];
}

export interface SimulatedRequest {
  method: string;
  target: RequestTarget;
  version: HttpVersion;
  /** Header lines as sent; names keep their case (HTTP/2 and HTTP/3 send them in lower case). */
  headers: readonly HeaderLine[];
  /** Cookies of every Cookie header, in order: the name URL-decoded, the value as sent. */
  cookies: readonly HeaderLine[];
  body: string;
  clientIp: string | undefined;
  timestampMs: number;
  rayId: string;
  /** What the origin answers, when the description says. */
  response: SimulatedResponse | undefined;
}

export interface RequestEnvironment {
  timestampMs: number;
  rayId: string;
}

export function buildRequest(checked: CheckedDescription, env: RequestEnvironment): SimulatedRequest {
  const { description, target } = checked;
  const version = description.http_version ?? (target.scheme === 'https' ? 'HTTP/2' : 'HTTP/1.1');
  const lowerCaseNames = version === 'HTTP/2' || version === 'HTTP/3';
  const spell = (name: string) => (lowerCaseNames ? name.toLowerCase() : name);
  const given = lines(description.headers);
  const has = (name: string) => given.some(([n]) => n.toLowerCase() === name);
  const body = description.body ?? '';
  const headers: HeaderLine[] = [
    ...(has('host') ? [] : [[spell('Host'), authorityOf(target)] as const]),
    ...given.map(([name, value]) => [spell(name), value] as const),
  ];
  if (description.cookies) {
    headers.push([spell('Cookie'), lines(description.cookies).map(([name, value]) => `${name}=${value}`).join('; ')]);
  }
  if (body !== '' && !has('content-length') && !has('transfer-encoding')) {
    headers.push([spell('Content-Length'), String(new TextEncoder().encode(body).length)]);
  }
  return {
    method: description.method,
    target,
    version,
    headers,
    cookies: parseCookies(headerValues(headers, 'cookie')),
    body,
    clientIp: description.client_ip,
    timestampMs: env.timestampMs,
    rayId: env.rayId,
    response: description.response && { status: description.response.status, headers: lines(description.response.headers) },
  };
}

/** Every value of a header (case-insensitive name), in order. */
export function headerValues(headers: readonly HeaderLine[], name: string): string[] {
  return headers.filter(([n]) => n.toLowerCase() === name).map(([, value]) => value);
}

function lines(map: Readonly<Record<string, HeaderValues>> | undefined): HeaderLine[] {
  return Object.entries(map ?? {}).flatMap(([name, values]) => (typeof values === 'string' ? [values] : values).map((value) => [name, value] as const));
}

function parseCookies(cookieHeaders: readonly string[]): HeaderLine[] {
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
