/** Object metadata between S3 headers and the runtime's HttpMetadata / customMetadata. */
import type { StoredObject } from '../bucket';

const META_PREFIX = 'x-amz-meta-';
const HTTP_HEADERS = ['content-type', 'content-language', 'content-disposition', 'cache-control', 'expires'] as const;

/**
 * The HTTP metadata a write carries, as Headers for the runtime. `aws-chunked` is a transfer
 * detail, not the object's content encoding, so it is left out.
 */
export function httpMetadataOf(headers: Headers): Headers {
  const metadata = new Headers();
  for (const name of HTTP_HEADERS) {
    const value = headers.get(name);
    if (value !== null) metadata.set(name, value);
  }
  const encoding = (headers.get('content-encoding') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '' && part !== 'aws-chunked')
    .join(', ');
  if (encoding !== '') metadata.set('content-encoding', encoding);
  return metadata;
}

/**
 * `x-amz-meta-*` headers as custom metadata. Header bytes arrive as Latin-1 text; clients send
 * UTF-8, so the bytes are read again as UTF-8 (RFC 2047 encoded words are decoded too).
 */
export function customMetadataOf(headers: Headers): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (name.startsWith(META_PREFIX)) metadata[name.slice(META_PREFIX.length)] = decodeHeaderText(value);
  }
  return metadata;
}

function decodeHeaderText(value: string): string {
  const word = /^=\?UTF-8\?([BQ])\?(.*)\?=$/i.exec(value);
  if (word) {
    const [, kind, text] = word as unknown as [string, string, string];
    if (kind.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
    return Buffer.from(
      text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return Buffer.from(value, 'latin1').toString('utf8');
}

/** Printable ASCII goes as is; anything else as an RFC 2047 encoded word, as S3 does. */
function encodeHeaderText(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The headers describing a stored object on GET and HEAD. */
export function objectHeaders(object: StoredObject): Record<string, string> {
  const http = new Headers();
  object.writeHttpMetadata(http);
  const headers: Record<string, string> = {
    etag: object.httpEtag,
    'last-modified': object.uploaded.toUTCString(),
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
  };
  for (const [name, value] of http) headers[name] = encodeHeaderText(value);
  for (const [name, value] of Object.entries(object.customMetadata ?? {}))
    headers[`${META_PREFIX}${name}`] = encodeHeaderText(value);
  return headers;
}
