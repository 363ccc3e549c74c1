/**
 * Objects over HTTP in the API: the request headers that become an object's HTTP metadata (as
 * wrangler sends them), the request body as a stream of known length, and the headers a download
 * answers with.
 */
import type { IncomingMessage } from 'node:http';
import { declareStreamLength, type StoredObject } from '../../bucket';
import { ApiError, Codes } from '../http/errors';

/** The API's limit on an object body, wrangler's too (300 MiB). */
export const MAX_API_OBJECT_BYTES = 300 * 1024 * 1024;

const METADATA_HEADERS = ['content-type', 'content-language', 'content-disposition', 'content-encoding', 'cache-control', 'expires'];

/** The headers that become the object's HTTP metadata. */
export function metadataHeaders(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name of METADATA_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') headers.set(name, value);
  }
  return headers;
}

/**
 * The request body as a stream of declared length, read as the bucket stores it (never held
 * whole). A chunked body has no length to declare: 411, as the platform cannot store it either.
 */
export function uploadBody(request: IncomingMessage): ReadableStream<Uint8Array> | string {
  const declared = request.headers['content-length'];
  if (declared === undefined) {
    if (request.headers['transfer-encoding'] !== undefined) {
      throw ApiError.of(411, Codes.invalidRequest, "Content-Length is required: the object's size must be known before it is stored");
    }
    return '';
  }
  const length = Number(declared);
  if (length > MAX_API_OBJECT_BYTES) {
    throw ApiError.of(
      413,
      Codes.payloadTooLarge,
      `Object bodies sent through the API are limited to 300 MiB (${MAX_API_OBJECT_BYTES} bytes); this one has ${length}. Use the S3 endpoint's multipart upload for larger objects`,
    );
  }
  if (length === 0) return '';
  // Pulled chunk by chunk from the request (Readable.toWeb reads ahead without bound).
  const stream = ReadableStream.from(request as AsyncIterable<Uint8Array>);
  declareStreamLength(stream, length);
  return stream;
}

/** The headers a download answers with: the stored HTTP metadata, the etag and the dates. */
export function downloadHeaders(object: StoredObject): Record<string, string> {
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  if (!headers.has('content-type')) headers.set('content-type', 'application/octet-stream');
  headers.set('etag', object.httpEtag);
  headers.set('last-modified', object.uploaded.toUTCString());
  return Object.fromEntries(headers);
}
