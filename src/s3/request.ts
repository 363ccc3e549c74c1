import type { IncomingMessage } from 'node:http';
import { S3Error } from './errors';
import { RequestHeaders } from './request-headers';
import { uriDecode, type SignedParts } from './sigv4';

/** A request as the endpoint reads it: path-style addressing, `/<bucket>/<key>`. */
export interface S3Request extends SignedParts {
  /** Absent for the service itself (`/`). */
  bucket?: string;
  /** Absent for the bucket itself (`/<bucket>` or `/<bucket>/`). */
  key?: string;
  /** The first value of each query parameter. */
  params: Map<string, string>;
  body: AsyncIterable<Uint8Array>;
  /** The path as sent, for error documents. */
  resource: string;
  /** The names of the headers, lower-case, in the order sent (a name sent twice, twice). */
  headerNames: string[];
  /**
   * Whether customer keys (SSE-C) may travel on this connection: S3 takes them over TLS only; the
   * endpoint takes them over TLS (when it serves TLS) or from this machine (a loopback address,
   * which no network sees).
   */
  secure: boolean;
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 addresses. */
const isLoopback = (address: string | undefined) =>
  address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address));

const invalidUri = (path: string) =>
  new S3Error('InvalidURI', 400, `Could not parse the specified URI: ${path} is not valid percent-encoded UTF-8.`);

const plusAsSpace = (text: string) => (text.includes('+') ? text.replace(/\+/g, ' ') : text);

/** Reads method, path, query and headers; a path or query that does not decode is InvalidURI. */
export function readRequest(incoming: IncomingMessage): S3Request {
  const target = incoming.url ?? '/';
  const queryStart = target.indexOf('?');
  const rawPath = queryStart < 0 ? target : target.slice(0, queryStart);
  const rawQuery = queryStart < 0 ? '' : target.slice(queryStart + 1);
  if (!rawPath.startsWith('/')) throw invalidUri(rawPath);
  const query: [string, string][] = [];
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    // Query strings may encode spaces as "+" (form encoding); paths never do.
    const name = uriDecode(plusAsSpace(equals < 0 ? pair : pair.slice(0, equals)));
    const value = uriDecode(plusAsSpace(equals < 0 ? '' : pair.slice(equals + 1)));
    if (name === null || value === null) throw invalidUri(target);
    query.push([name, value]);
  }
  const params = new Map<string, string>();
  for (const [name, value] of query) if (!params.has(name)) params.set(name, value);

  const headers = new RequestHeaders(incoming.rawHeaders);

  const slash = rawPath.indexOf('/', 1);
  const rawBucket = slash < 0 ? rawPath.slice(1) : rawPath.slice(1, slash);
  const rawKey = slash < 0 ? '' : rawPath.slice(slash + 1);
  const bucket = uriDecode(rawBucket);
  const key = uriDecode(rawKey);
  if (bucket === null || key === null) throw invalidUri(rawPath);
  return {
    method: incoming.method ?? 'GET',
    rawPath,
    query,
    headers,
    params,
    body: incoming,
    resource: rawPath,
    headerNames: headers.names,
    secure: (incoming.socket as { encrypted?: boolean }).encrypted === true || isLoopback(incoming.socket.remoteAddress),
    ...(bucket === '' ? {} : { bucket }),
    ...(key === '' ? {} : { key }),
  };
}
