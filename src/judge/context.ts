/**
 * The rules-language context of a request: every field the request determines, the platform's
 * defaults, and the fields the platform computes elsewhere (geolocation, bot score...), given as
 * overrides: by the simulator's description, or by the edge's table of clients. Response fields
 * are separate: rules of request phases do not see them.
 */
import { bodyFields, groupValues, mediaType } from './body';
import { type EdgeRequest, type HeaderLine, type ResponseHead, headerValues } from './request';
import type { ContextValue } from './trace';
import { authorityOf, extensionOf, normalizePath, splitPairs } from './url';

/** Values of fields the request alone does not determine, by rules-language field name. */
export type FieldOverrides = Readonly<Record<string, ContextValue>>;

/** The deprecated `ip.geoip.*` fields carry the same values as their `ip.src.*` successors. */
export const GEOIP_ALIASES: ReadonlyMap<string, string> = new Map(
  ['asnum', 'continent', 'country', 'is_in_european_union', 'subdivision_1_iso_code', 'subdivision_2_iso_code'].map((name) => [
    `ip.geoip.${name}`,
    `ip.src.${name}`,
  ]),
);

export type ContextFields = Record<string, ContextValue>;

/** What the edge reports for TLS 1.3 connections unless the description overrides it. */
const DEFAULT_TLS = { version: 'TLSv1.3', cipher: 'AEAD-AES128-GCM-SHA256' };

export function requestFields(request: EdgeRequest, overrides: FieldOverrides): ContextFields {
  const { target, headers } = request;
  const query = target.rawQuery ?? '';
  const withQuery = (path: string) => (target.rawQuery === null ? path : `${path}?${target.rawQuery}`);
  const path = normalizePath(target.rawPath);
  const args = splitPairs(query);
  const fields: ContextFields = {
    true: true,
    'http.request.method': request.method,
    'http.request.version': request.version,
    'http.host': target.host,
    ssl: target.scheme === 'https',
    'cf.edge.server_port': target.port,
    ...uriFields('', path, query, args, withQuery(path), `${target.scheme}://${authorityOf(target)}${withQuery(path)}`),
    ...uriFields('raw.', target.rawPath, query, args, withQuery(target.rawPath), `${target.scheme}://${authorityOf(target)}${withQuery(target.rawPath)}`),
    ...headerFields('http.request.', headers),
    'http.request.headers.truncated': false,
    'http.user_agent': headerValues(headers, 'user-agent')[0] ?? '',
    'http.referer': headerValues(headers, 'referer')[0] ?? '',
    'http.x_forwarded_for': headerValues(headers, 'x-forwarded-for').join(', '),
    'http.request.accepted_languages': acceptedLanguages(headerValues(headers, 'accept-language')),
    'http.cookie': headerValues(headers, 'cookie').join('; '),
    'http.request.cookies': groupValues(request.cookies),
    ...bodyFields(request.body, request.bodySize, headers),
    'http.request.timestamp.sec': Math.floor(request.timestampMs / 1000),
    'http.request.timestamp.msec': request.timestampMs,
    'cf.ray_id': request.rayId,
    ...(request.clientIp === undefined ? {} : { 'ip.src': request.clientIp }),
    ...(target.scheme === 'https' ? { 'cf.tls_version': DEFAULT_TLS.version, 'cf.tls_cipher': DEFAULT_TLS.cipher } : {}),
    ...overrides,
  };
  for (const [alias, successor] of GEOIP_ALIASES) {
    const value = overrides[successor];
    if (value !== undefined && overrides[alias] === undefined) fields[alias] = value;
  }
  return fields;
}

export function responseFields(response: ResponseHead): ContextFields {
  const headers = headerFields('http.response.', response.headers);
  return {
    'http.response.code': response.status,
    ...headers,
    'raw.http.response.headers': headers['http.response.headers']!,
    'raw.http.response.headers.names': headers['http.response.headers.names']!,
    'raw.http.response.headers.values': headers['http.response.headers.values']!,
    'http.response.content_type.media_type': mediaType(headerValues(response.headers, 'content-type')[0] ?? ''),
  };
}

function uriFields(prefix: string, path: string, query: string, args: [string, string][], uri: string, fullUri: string): ContextFields {
  return {
    [`${prefix}http.request.uri`]: uri,
    [`${prefix}http.request.full_uri`]: fullUri,
    [`${prefix}http.request.uri.path`]: path,
    [`${prefix}http.request.uri.path.extension`]: extensionOf(path),
    [`${prefix}http.request.uri.query`]: query,
    [`${prefix}http.request.uri.args`]: groupValues(args),
    [`${prefix}http.request.uri.args.names`]: args.map(([name]) => name),
    [`${prefix}http.request.uri.args.values`]: args.map(([, value]) => value),
  };
}

/** The header map (lower-case names), and the names (as sent) and values in order. */
function headerFields(prefix: string, headers: readonly HeaderLine[]): ContextFields {
  return {
    [`${prefix}headers`]: groupValues(headers.map(([name, value]) => [name.toLowerCase(), value] as const)),
    [`${prefix}headers.names`]: headers.map(([name]) => name),
    [`${prefix}headers.values`]: headers.map(([, value]) => value),
  };
}

/** Language tags of Accept-Language, by weight (`;q=`, default 1) from highest, ties in order. */
function acceptedLanguages(values: readonly string[]): string[] {
  return values
    .flatMap((value) => value.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item, index) => {
      const [tag, ...parameters] = item.split(';');
      const q = parameters.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag!.trim(), weight: q === undefined ? 1 : Number(q), index };
    })
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((item) => item.tag);
}
