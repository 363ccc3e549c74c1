import { isConditionalHeaderRefusal, type BucketCatalogue, type OpenBucket } from '../bucket';
import { invalidArgument } from './errors';
import { verifiedBody, type VerifiedBody } from './payload';
import type { ExpirationHeaders } from './expiration-header';
import type { S3Request } from './request';
import type { Signer } from './sigv4';
import { xmlDocument, type XmlElement } from './xml';

/** What an operation answers: a status, headers, and a body (text, bytes, or a byte stream). */
export interface S3Response {
  status: number;
  headers?: Record<string, string>;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
}

/** Everything an operation works with. */
export interface S3Context {
  request: S3Request;
  /** Null for an anonymous request (allowed only where configured). */
  signer: Signer | null;
  /** The buckets, opened with the endpoint's runtime options (part size, clock). */
  catalogue: BucketCatalogue;
  /** Answered by GetBucketLocation. */
  region: string;
  /** `x-amz-expiration` of an object, from its bucket's lifecycle rules. */
  expirations: ExpirationHeaders;
}

/**
 * The request's bucket (kept open by the catalogue, checked to exist on every call); NoSuchBucket
 * when it does not exist.
 */
export function openBucket(context: S3Context, name = context.request.bucket!): Promise<OpenBucket> {
  return context.catalogue.bucket(name);
}

/**
 * Runs a call of the bucket runtime whose arguments come from the request. The runtime refuses
 * argument mistakes with TypeError / RangeError (an Expires that is no date, an If-Match that is
 * no etag list, a part number out of range); here they are the client's, so InvalidArgument.
 * Outside such calls a TypeError is a fault of ours and answers InternalError.
 */
export async function fromRequest<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw clientError(error);
  }
}

/** An error of the bucket runtime, as the client's when it refused the request's arguments (see `fromRequest`). */
export function clientError(error: unknown): unknown {
  if (error instanceof TypeError || error instanceof RangeError || isConditionalHeaderRefusal(error)) {
    return invalidArgument(error.message);
  }
  return error;
}

/** The request's object key (present: the router sends only object requests here). */
export const keyOf = (context: S3Context) => context.request.key!;

/**
 * The request's body, verified. `x-amz-checksum-*` headers are checksums of the body, except on a
 * CompleteMultipartUpload, where they name the object's (`checksumHeaders: false`).
 */
export function bodyOf(context: S3Context, options: { checksumHeaders?: boolean } = {}): VerifiedBody {
  return verifiedBody(context.request, context.signer, options.checksumHeaders ?? true);
}

export function xmlResponse(root: string, content: XmlElement, status = 200): S3Response {
  return { status, headers: { 'content-type': 'application/xml' }, body: xmlDocument(root, content) };
}

/** A whole-number query parameter within bounds, or its default. */
export function numberParam(context: S3Context, name: string, fallback: number, min: number, max: number): number {
  const text = context.request.params.get(name);
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text))
    throw invalidArgument(`${name} must be a whole number, not ${JSON.stringify(text)}.`, name, text);
  const value = Number(text);
  if (value < min) throw invalidArgument(`${name} must be at least ${min}, not ${text}.`, name, text);
  return Math.min(value, max);
}

/** Part numbers run from 1 to 10,000. */
export const MAX_PART_NUMBER = 10_000;

/** The `partNumber` query parameter: 1 to 10,000. */
export function partNumberOf(context: S3Context): number {
  const text = context.request.params.get('partNumber')!;
  const number = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(number >= 1 && number <= MAX_PART_NUMBER)) {
    throw invalidArgument(
      `Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive, not ${JSON.stringify(text)}.`,
      'partNumber',
      text,
    );
  }
  return number;
}

/** Object listings may ask for keys URL-encoded (`encoding-type=url`), for keys XML cannot carry. */
export function keyEncoder(context: S3Context): (text: string) => string {
  const type = context.request.params.get('encoding-type');
  if (type === undefined) return (text) => text;
  if (type !== 'url')
    throw invalidArgument(`encoding-type must be url, not ${JSON.stringify(type)}.`, 'encoding-type', type);
  return (text) => encodeURIComponent(text).replace(/%2F/g, '/');
}

export const iso = (date: Date) => date.toISOString();

/** Most entries of one listing page, as S3 caps them. */
export const MAX_LISTED = 1000;
/** Largest request document (DeleteObjects, CompleteMultipartUpload) read. */
export const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
/** Buckets here have one owner; listings that name one name it. */
export const OWNER = { ID: 'local', DisplayName: 'local' };

/** Keys compare as the runtime lists them: by their UTF-8 bytes. */
export const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
