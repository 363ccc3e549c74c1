import type { HttpMetadata } from '../contract';
import { metadataTooLarge, type BucketAction } from './errors';
import { describe } from './keys';
import { MAX_CUSTOM_METADATA_BYTES } from './limits';

/** HTTP metadata as stored: plain JSON, with the expiry in epoch milliseconds. */
export interface StoredHttpMetadata {
  contentType?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  contentEncoding?: string;
  cacheControl?: string;
  cacheExpiry?: number;
}

const TEXT_FIELDS = [
  ['contentType', 'content-type'],
  ['contentLanguage', 'content-language'],
  ['contentDisposition', 'content-disposition'],
  ['contentEncoding', 'content-encoding'],
  ['cacheControl', 'cache-control'],
] as const;

/** Reads `httpMetadata`: an HttpMetadata object or request Headers. */
export function parseHttpMetadata(input: unknown): StoredHttpMetadata {
  if (input === undefined) return {};
  const stored: StoredHttpMetadata = {};
  if (input instanceof Headers) {
    for (const [field, header] of TEXT_FIELDS) {
      const value = input.get(header);
      if (value !== null) stored[field] = value;
    }
    const expires = input.get('expires');
    if (expires !== null) {
      const time = Date.parse(expires);
      if (Number.isNaN(time)) throw new TypeError(`httpMetadata: the Expires header is not a date (${expires}).`);
      stored.cacheExpiry = time;
    }
    return stored;
  }
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`httpMetadata must be an object or Headers, not ${describe(input)}.`);
  }
  const given = input as Record<string, unknown>;
  for (const [field] of TEXT_FIELDS) {
    const value = given[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      throw new TypeError(`httpMetadata.${field} must be a string, not ${describe(value)}.`);
    }
    stored[field] = value;
  }
  const expiry = given.cacheExpiry;
  if (expiry !== undefined) {
    if (!(expiry instanceof Date) || Number.isNaN(expiry.getTime())) {
      throw new TypeError('httpMetadata.cacheExpiry must be a valid Date.');
    }
    stored.cacheExpiry = expiry.getTime();
  }
  return stored;
}

/** The HttpMetadata a caller sees: fresh objects, so callers cannot alter what is stored. */
export function toHttpMetadata(stored: StoredHttpMetadata): HttpMetadata {
  const { cacheExpiry, ...text } = stored;
  return cacheExpiry === undefined ? { ...text } : { ...text, cacheExpiry: new Date(cacheExpiry) };
}

/** Applies HTTP metadata as response headers. */
export function writeHttpHeaders(metadata: HttpMetadata, headers: Headers): void {
  for (const [field, header] of TEXT_FIELDS) {
    const value = metadata[field];
    if (value !== undefined) headers.set(header, value);
  }
  if (metadata.cacheExpiry !== undefined) headers.set('expires', metadata.cacheExpiry.toUTCString());
}

/** Reads `customMetadata`: string values only, at most 8,192 bytes of keys plus values. */
export function parseCustomMetadata(input: unknown, action: BucketAction): Record<string, string> {
  if (input === undefined) return {};
  if (input === null || typeof input !== 'object' || Array.isArray(input) || input instanceof Headers) {
    throw new TypeError(`customMetadata must be an object of strings, not ${describe(input)}.`);
  }
  const stored: Record<string, string> = {};
  let bytes = 0;
  for (const [name, value] of Object.entries(input)) {
    if (typeof value !== 'string') {
      throw new TypeError(`customMetadata.${name} must be a string, not ${describe(value)}.`);
    }
    stored[name] = value;
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  if (bytes > MAX_CUSTOM_METADATA_BYTES) throw metadataTooLarge(action);
  return stored;
}
