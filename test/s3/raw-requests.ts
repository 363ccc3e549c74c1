// Hand-made signed requests, for what the SDK never sends (malformed bodies, signed aws-chunked
// streams, broken percent-encoding). Signing follows the AWS SigV4 documentation, written here
// independently of the endpoint's own code.
import { createHash, createHmac } from 'node:crypto';
import { ACCESS_KEY_ID, SECRET } from './support';

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const EMPTY = sha256('');

export interface RawRequest {
  method: string;
  /** Path and query exactly as sent (already percent-encoded). */
  target: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** The x-amz-content-sha256 value; the body's hash by default. */
  payloadHash?: string;
  date?: Date;
  secret?: string;
}

const amzDateOf = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const encode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function signingKeyFor(secret: string, day: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), 'auto'), 's3'), 'aws4_request');
}

/** Signs and sends a request; the seed signature is returned for chunk signing. */
export async function rawFetch(base: string, request: RawRequest): Promise<{ response: Response; text: string }> {
  const { headers, url } = signedHeaders(base, request);
  const response = await fetch(url, {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  return { response, text: await response.text() };
}

export function signedHeaders(
  base: string,
  request: RawRequest,
): { headers: Record<string, string>; url: string; signature: string; amzDate: string } {
  const url = new URL(base);
  const date = request.date ?? new Date();
  const amzDate = amzDateOf(date);
  const day = amzDate.slice(0, 8);
  const payloadHash = request.payloadHash ?? sha256(request.body ?? '');
  const headers: Record<string, string> = {
    host: url.host,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': payloadHash,
    ...request.headers,
  };
  const [path, query = ''] = request.target.split('?', 2) as [string, string?];
  const canonicalPath = path
    .split('/')
    .map((s) => encode(decodeURIComponent(s)))
    .join('/');
  const canonicalQuery = query
    .split('&')
    .filter(Boolean)
    .map((pair) => pair.split('=', 2).map((part) => encode(decodeURIComponent(part ?? ''))) as [string, string])
    .map(([name, value = '']) => `${name}=${value}`)
    .sort()
    .join('&');
  const names = Object.keys(headers)
    .map((n) => n.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), v]));
  const canonical = [
    request.method,
    canonicalPath,
    canonicalQuery,
    names.map((n) => `${n}:${lower[n]!.trim()}\n`).join(''),
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${day}/auto/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const signature = createHmac('sha256', signingKeyFor(request.secret ?? SECRET, day))
    .update(toSign)
    .digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  delete headers.host;
  return { headers, url: `${url.origin}${request.target}`, signature, amzDate };
}

/**
 * A signed aws-chunked body (STREAMING-AWS4-HMAC-SHA256-PAYLOAD): each chunk's signature chains
 * on the previous one, starting from the request's. `corrupt` alters the chunk at that index
 * after signing.
 */
export function signedChunks(
  chunks: string[],
  seed: string,
  amzDate: string,
  corrupt?: number,
  trailer?: string,
): string {
  const day = amzDate.slice(0, 8);
  const scope = `${day}/auto/s3/aws4_request`;
  const key = signingKeyFor(SECRET, day);
  let previous = seed;
  let body = '';
  for (const [index, chunk] of [...chunks, ''].entries()) {
    const toSign = ['AWS4-HMAC-SHA256-PAYLOAD', amzDate, scope, previous, EMPTY, sha256(chunk)].join('\n');
    previous = createHmac('sha256', key).update(toSign).digest('hex');
    const sent = index === corrupt ? chunk.toUpperCase() : chunk;
    body += `${Buffer.byteLength(chunk).toString(16)};chunk-signature=${previous}\r\n${sent}`;
    if (chunk !== '' || trailer === undefined) body += '\r\n';
  }
  if (trailer === undefined) return body;
  // Signed trailing headers: each as "name:value\n", signed on from the last chunk's signature.
  const toSign = ['AWS4-HMAC-SHA256-TRAILER', amzDate, scope, previous, sha256(`${trailer}\n`)].join('\n');
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return `${body}${trailer}\r\nx-amz-trailer-signature:${signature}\r\n\r\n`;
}
