/**
 * The request a description stands for, as it reaches the edge: the description's headers in
 * order (with the Host, Cookie and Content-Length headers a client adds), its cookies and body,
 * and what the origin answers when the description says.
 */
import { type EdgeRequest, type HeaderLine, type ResponseHead, authorityOf, headerValues, parseCookies } from '../judge';
import type { CheckedDescription, HeaderValues } from './description';

export interface RequestEnvironment {
  timestampMs: number;
  rayId: string;
}

export interface DescribedRequest {
  request: EdgeRequest;
  /** What the origin answers, when the description says. */
  response: ResponseHead | undefined;
}

export function buildRequest(checked: CheckedDescription, env: RequestEnvironment): DescribedRequest {
  const { description, target } = checked;
  const version = description.http_version ?? (target.scheme === 'https' ? 'HTTP/2' : 'HTTP/1.1');
  const lowerCaseNames = version === 'HTTP/2' || version === 'HTTP/3';
  const spell = (name: string) => (lowerCaseNames ? name.toLowerCase() : name);
  const given = lines(description.headers);
  const has = (name: string) => given.some(([n]) => n.toLowerCase() === name);
  const body = description.body ?? '';
  const bodySize = Buffer.byteLength(body);
  const headers: HeaderLine[] = [
    ...(has('host') ? [] : [[spell('Host'), authorityOf(target)] as const]),
    ...given.map(([name, value]) => [spell(name), value] as const),
  ];
  if (description.cookies) {
    headers.push([spell('Cookie'), lines(description.cookies).map(([name, value]) => `${name}=${value}`).join('; ')]);
  }
  if (body !== '' && !has('content-length') && !has('transfer-encoding')) {
    headers.push([spell('Content-Length'), String(bodySize)]);
  }
  return {
    request: {
      method: description.method,
      target,
      version,
      headers,
      cookies: parseCookies(headerValues(headers, 'cookie')),
      body,
      bodySize,
      clientIp: description.client_ip,
      timestampMs: env.timestampMs,
      rayId: env.rayId,
    },
    response: description.response && { status: description.response.status, headers: lines(description.response.headers) },
  };
}

function lines(map: Readonly<Record<string, HeaderValues>> | undefined): HeaderLine[] {
  return Object.entries(map ?? {}).flatMap(([name, values]) => (typeof values === 'string' ? [values] : values).map((value) => [name, value] as const));
}
