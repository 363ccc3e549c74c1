/** Object metadata between S3 headers and the runtime's HttpMetadata / customMetadata. */
import type { HttpMetadata, StoredObject } from '../bucket';
import { invalidArgument } from './errors';
import type { ReadHeaders } from './request-headers';

const META_PREFIX = 'x-amz-meta-';
/** An HTTP token (RFC 9110): what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HTTP_TEXT_FIELDS = [
  ['contentType', 'content-type'],
  ['contentLanguage', 'content-language'],
  ['contentDisposition', 'content-disposition'],
  ['cacheControl', 'cache-control'],
] as const;

/**
 * The HTTP metadata a write carries, for the runtime: the binding's object form (what `Headers`
 * would give, without building one). `aws-chunked` is a transfer detail, not the object's content
 * encoding, so it is left out. An Expires that is no date is refused as the runtime refuses it.
 */
export function httpMetadataOf(headers: ReadHeaders): HttpMetadata {
  const metadata: HttpMetadata = {};
  for (const [field, name] of HTTP_TEXT_FIELDS) {
    const value = headers.get(name);
    if (value !== null) metadata[field] = value;
  }
  const encoding = headers.get('content-encoding');
  if (encoding !== null) {
    const kept = encoding
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '' && part !== 'aws-chunked')
      .join(', ');
    if (kept !== '') metadata.contentEncoding = kept;
  }
  const expires = headers.get('expires');
  if (expires !== null) {
    const time = Date.parse(expires);
    if (Number.isNaN(time)) throw invalidArgument(`httpMetadata: the Expires header is not a date (${expires}).`);
    metadata.cacheExpiry = new Date(time);
  }
  return metadata;
}

/**
 * `x-amz-meta-*` headers as custom metadata. Header bytes arrive as Latin-1 text; clients send
 * UTF-8, so the bytes are read again as UTF-8 (RFC 2047 encoded words are decoded too).
 */
export function customMetadataOf(headers: ReadHeaders): Record<string, string> {
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

/** HTTP metadata fields by the response header that carries them. */
const HTTP_FIELDS = {
  'content-type': 'contentType',
  'content-language': 'contentLanguage',
  'content-disposition': 'contentDisposition',
  'content-encoding': 'contentEncoding',
  'cache-control': 'cacheControl',
} as const;

/**
 * The headers describing a stored object on GET and HEAD. Values come from the metadata itself,
 * not through Headers, which would refuse text beyond Latin-1 that the binding may have stored.
 */
export function objectHeaders(object: StoredObject): Record<string, string> {
  const headers: Record<string, string> = {
    etag: object.httpEtag,
    'last-modified': object.uploaded.toUTCString(),
    'accept-ranges': 'bytes',
    'content-type': 'application/octet-stream',
  };
  const http = object.httpMetadata ?? {};
  for (const [header, field] of Object.entries(HTTP_FIELDS)) {
    const value = http[field];
    if (value !== undefined) headers[header] = encodeHeaderText(value);
  }
  if (http.cacheExpiry !== undefined) headers.expires = http.cacheExpiry.toUTCString();
  // Names that cannot be header names are left out and counted, as S3 does.
  let missing = 0;
  for (const [name, value] of Object.entries(object.customMetadata ?? {})) {
    if (HEADER_NAME.test(name)) headers[`${META_PREFIX}${name.toLowerCase()}`] = encodeHeaderText(value);
    else missing++;
  }
  if (missing > 0) headers['x-amz-missing-meta'] = String(missing);
  return headers;
}
