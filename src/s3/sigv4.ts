/**
 * AWS Signature Version 4 as S3 uses it: in the Authorization header or in the query string
 * (presigned URLs), over the canonical request. Signatures are compared in constant time.
 */
import { createHmac, createSecretKey, hash, timingSafeEqual, type KeyObject } from 'node:crypto';
import { accessDenied, invalidArgument, invalidRequest, S3Error } from './errors';
import type { ReadHeaders } from './request-headers';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** Largest difference allowed between the request's time and ours, as S3 allows. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
/** Longest validity of a presigned URL: 7 days. */
export const MAX_PRESIGNED_SECONDS = 7 * 24 * 60 * 60;

/** Secret access keys by access key id. */
export type AccessKeys = ReadonlyMap<string, string>;

/** The parts of a request a signature covers. */
export interface SignedParts {
  method: string;
  /** The path as sent, percent-encoded. */
  rawPath: string;
  /** Query parameters, decoded, in the order sent. */
  query: [string, string][];
  headers: ReadHeaders;
}

/** Who signed a request, and what verifying the rest of its body needs. */
export interface Signer {
  accessKeyId: string;
  signingKey: KeyObject;
  /** `YYYYMMDDTHHMMSSZ` */
  amzDate: string;
  /** `<date>/<region>/s3/aws4_request` */
  scope: string;
  /** The request's own signature: the seed of a signed chunked body. */
  signature: string;
  /** The payload hash the signature covers (a hex digest or one of S3's markers). */
  payloadHash: string;
}

const sha256Hex = (data: string | Uint8Array) => hash('sha256', data, 'hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** Text of unreserved characters only: what encoding and decoding leave as it is (most names and values). */
const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
export function uriEncode(text: string): string {
  if (UNRESERVED.test(text)) return text;
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Decodes one percent-encoded path segment or query component; null when malformed. */
export function uriDecode(text: string): string | null {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** A path whose segments are unreserved characters: its canonical form is itself. */
const PLAIN_PATH = /^[A-Za-z0-9\-._~/]*$/;
/** A header value of printable ASCII with no run of spaces: canonical once trimmed. */
const PLAIN_VALUE = /^[\x21-\x7e]+( [\x21-\x7e]+)*$/;

export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/**
 * Signing keys last a day per (secret, date, region, service): derived once (four HMACs) and kept
 * as KeyObjects, so a signature costs one HMAC and no key import. Secrets are in memory anyway
 * (SigV4 needs them); the map holds nothing the access keys do not, and is bounded.
 */
const signingKeys = new Map<string, KeyObject>();
const MAX_CACHED_KEYS = 256;

function cachedSigningKey(secret: string, date: string, region: string, service: string): KeyObject {
  const id = `${date}/${region}/${service}/${secret}`;
  const cached = signingKeys.get(id);
  if (cached) return cached;
  const key = createSecretKey(signingKey(secret, date, region, service));
  if (signingKeys.size >= MAX_CACHED_KEYS) signingKeys.clear();
  signingKeys.set(id, key);
  return key;
}

const byNameThenValue = ([a, x]: [string, string], [b, y]: [string, string]) =>
  a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0;

/** The canonical request: path segments and query re-encoded the one way SigV4 defines. */
export function canonicalRequest(
  parts: SignedParts,
  signedHeaders: string[],
  payloadHash: string,
  omitQuery?: string,
): string {
  const path = PLAIN_PATH.test(parts.rawPath)
    ? parts.rawPath
    : parts.rawPath
        .split('/')
        .map((segment) => uriEncode(uriDecode(segment) ?? segment))
        .join('/');
  const pairs: [string, string][] = [];
  for (const [name, value] of parts.query) if (name !== omitQuery) pairs.push([uriEncode(name), uriEncode(value)]);
  pairs.sort(byNameThenValue);
  let query = '';
  for (const [name, value] of pairs) query += query === '' ? `${name}=${value}` : `&${name}=${value}`;
  // Header values arrive as Latin-1 text of their bytes; clients sign those bytes as UTF-8.
  let headers = '';
  for (const name of signedHeaders) {
    const value = parts.headers.get(name) ?? '';
    const canonical = PLAIN_VALUE.test(value)
      ? value
      : Buffer.from(value, 'latin1').toString('utf8').trim().replace(/\s+/g, ' ');
    headers += `${name}:${canonical}\n`;
  }
  return `${parts.method}\n${path || '/'}\n${query}\n${headers}\n${signedHeaders.join(';')}\n${payloadHash}`;
}

export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return `${ALGORITHM}\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
}

export function sign(key: KeyObject, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

/** Constant-time comparison of two hex signatures. */
export function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

const AMZ_DATE = /^\d{8}T\d{6}Z$/;

function parseAmzDate(value: string, where: string): number {
  if (!AMZ_DATE.test(value)) throw accessDenied(`${where} must be a date written YYYYMMDDTHHMMSSZ, not ${JSON.stringify(value)}.`);
  const digits = (from: number, to: number) => Number(value.slice(from, to));
  return Date.UTC(digits(0, 4), digits(4, 6) - 1, digits(6, 8), digits(9, 11), digits(11, 13), digits(13, 15));
}

interface Credential {
  accessKeyId: string;
  date: string;
  region: string;
  scope: string;
}

function parseCredential(value: string, amzDate: string): Credential {
  const parts = value.split('/');
  if (parts.length !== 5 || parts[3] !== 's3' || parts[4] !== 'aws4_request') {
    throw new S3Error(
      'AuthorizationHeaderMalformed',
      400,
      `The credential must read <access key id>/<YYYYMMDD>/<region>/s3/aws4_request, not ${JSON.stringify(value)}.`,
    );
  }
  const [accessKeyId, date, region] = parts as [string, string, string];
  if (date !== amzDate.slice(0, 8)) {
    throw new S3Error(
      'AuthorizationHeaderMalformed',
      400,
      `The credential's date ${date} is not the date of the request, ${amzDate.slice(0, 8)}.`,
    );
  }
  return { accessKeyId, date, region, scope: parts.slice(1).join('/') };
}

/**
 * The secret that signs for `accessKeyId`. Temporary credentials would be checked here too: the
 * session token (`x-amz-security-token`, or `X-Amz-Security-Token` when presigned) beside the id.
 */
function secretOf(keys: AccessKeys, accessKeyId: string): string {
  const secret = keys.get(accessKeyId);
  if (secret === undefined) {
    throw new S3Error(
      'InvalidAccessKeyId',
      403,
      `The access key id you provided does not exist in our records: ${accessKeyId}.`,
    );
  }
  return secret;
}

function signatureMismatch(): S3Error {
  return new S3Error(
    'SignatureDoesNotMatch',
    403,
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );
}

/**
 * Verifies the request's signature. Null: the request carries none (anonymous). Throws the S3
 * error a client expects otherwise: a malformed header, an unknown key, a time too far from
 * ours, an expired URL, a signature that does not match.
 */
export function verifySignature(parts: SignedParts, keys: AccessKeys, now: number): Signer | null {
  const authorization = parts.headers.get('authorization');
  const fields = presignedFields(parts.query);
  const presigned = fields.algorithm !== undefined;
  if (authorization !== null && presigned) {
    throw invalidArgument(
      'Only one authentication mechanism is allowed: the Authorization header or the query string.',
    );
  }
  if (authorization !== null) return verifyHeader(parts, authorization, keys, now);
  if (presigned) return verifyQuery(parts, fields, keys, now);
  return null;
}

/** The `X-Amz-*` parameters of a presigned URL (the first of each, as sent). */
interface PresignedFields {
  algorithm?: string;
  credential?: string;
  date?: string;
  expires?: string;
  signedHeaders?: string;
  signature?: string;
  contentSha256?: string;
}

const PRESIGNED_FIELDS: Record<string, keyof PresignedFields> = {
  'X-Amz-Algorithm': 'algorithm',
  'X-Amz-Credential': 'credential',
  'X-Amz-Date': 'date',
  'X-Amz-Expires': 'expires',
  'X-Amz-SignedHeaders': 'signedHeaders',
  'X-Amz-Signature': 'signature',
  'X-Amz-Content-Sha256': 'contentSha256',
};

function presignedFields(query: [string, string][]): PresignedFields {
  const fields: PresignedFields = {};
  for (const [name, value] of query) {
    if (!name.startsWith('X-Amz-')) continue;
    const field = Object.hasOwn(PRESIGNED_FIELDS, name) ? PRESIGNED_FIELDS[name]! : undefined;
    if (field !== undefined) fields[field] ??= value;
  }
  return fields;
}

function verifyHeader(parts: SignedParts, authorization: string, keys: AccessKeys, now: number): Signer {
  if (!authorization.startsWith(`${ALGORITHM} `)) {
    throw invalidArgument(
      `Only ${ALGORITHM} (Signature Version 4) is supported in the Authorization header.`,
      'Authorization',
      authorization.split(' ')[0],
    );
  }
  const fields = new Map(
    authorization
      .slice(ALGORITHM.length + 1)
      .split(',')
      .map((field) => field.trim().split('=') as [string, string?])
      .map(([name, value]) => [name, value ?? ''] as const),
  );
  const credentialText = fields.get('Credential');
  const signedHeadersText = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credentialText || !signedHeadersText || !signature) {
    throw new S3Error(
      'AuthorizationHeaderMalformed',
      400,
      'The Authorization header needs Credential, SignedHeaders and Signature.',
    );
  }
  const amzDate = parts.headers.get('x-amz-date');
  if (amzDate === null) throw accessDenied('A signed request needs the x-amz-date header.');
  const time = parseAmzDate(amzDate, 'x-amz-date');
  if (Math.abs(now - time) > MAX_CLOCK_SKEW_MS) {
    throw new S3Error(
      'RequestTimeTooSkewed',
      403,
      'The difference between the request time and the current time is too large (more than 15 minutes).',
      {
        RequestTime: amzDate,
        ServerTime: new Date(now).toISOString(),
      },
    );
  }
  const payloadHash = parts.headers.get('x-amz-content-sha256');
  if (payloadHash === null) throw invalidRequest('Missing required header for this request: x-amz-content-sha256.');
  const credential = parseCredential(credentialText, amzDate);
  const signedHeaders = signedHeadersText.split(';');
  if (!signedHeaders.includes('host')) throw accessDenied('The host header must be signed.');
  return check(parts, keys, credential, amzDate, signedHeaders, payloadHash, signature);
}

function verifyQuery(parts: SignedParts, fields: PresignedFields, keys: AccessKeys, now: number): Signer {
  if (fields.algorithm !== ALGORITHM) {
    throw invalidArgument(`Only ${ALGORITHM} is supported in X-Amz-Algorithm.`, 'X-Amz-Algorithm', fields.algorithm);
  }
  const { credential: credentialText, date: amzDate, expires: expiresText, signedHeaders: signedHeadersText, signature } = fields;
  if (!credentialText || !amzDate || !expiresText || !signedHeadersText || !signature) {
    throw accessDenied(
      'A presigned URL needs X-Amz-Credential, X-Amz-Date, X-Amz-Expires, X-Amz-SignedHeaders and X-Amz-Signature.',
    );
  }
  const time = parseAmzDate(amzDate, 'X-Amz-Date');
  // Zero or negative: the URL expired when it was made (403, as S3 answers); beyond a week or
  // not a number: a malformed URL (400).
  if (/^(-\d+|0+)$/.test(expiresText)) {
    throw accessDenied(`Request has expired: X-Amz-Expires is ${expiresText} seconds.`);
  }
  const expires = /^\d+$/.test(expiresText) ? Number(expiresText) : NaN;
  if (!(expires >= 1 && expires <= MAX_PRESIGNED_SECONDS)) {
    throw new S3Error(
      'AuthorizationQueryParametersError',
      400,
      `X-Amz-Expires must be from 1 to ${MAX_PRESIGNED_SECONDS} seconds, not ${expiresText}.`,
    );
  }
  if (time - now > MAX_CLOCK_SKEW_MS) throw accessDenied('Request is not valid yet: X-Amz-Date is in the future.');
  if (now > time + expires * 1000)
    throw accessDenied(`Request has expired: it was valid until ${new Date(time + expires * 1000).toISOString()}.`);
  const credential = parseCredential(credentialText, amzDate);
  const payloadHash = fields.contentSha256 ?? UNSIGNED_PAYLOAD;
  return check(
    parts,
    keys,
    credential,
    amzDate,
    signedHeadersText.split(';'),
    payloadHash,
    signature,
    'X-Amz-Signature',
  );
}

function check(
  parts: SignedParts,
  keys: AccessKeys,
  credential: Credential,
  amzDate: string,
  signedHeaders: string[],
  payloadHash: string,
  signature: string,
  omitQuery?: string,
): Signer {
  const secret = secretOf(keys, credential.accessKeyId);
  const key = cachedSigningKey(secret, credential.date, credential.region, 's3');
  const canonical = canonicalRequest(parts, signedHeaders, payloadHash, omitQuery);
  const expected = sign(key, stringToSign(amzDate, credential.scope, canonical));
  if (!sameSignature(expected, signature)) throw signatureMismatch();
  return {
    accessKeyId: credential.accessKeyId,
    signingKey: key,
    amzDate,
    scope: credential.scope,
    signature,
    payloadHash,
  };
}

/** The signature of one chunk of a signed `aws-chunked` body, chained on the previous one. */
export function chunkSignature(signer: Signer, previous: string, chunkSha256: string): string {
  return sign(
    signer.signingKey,
    ['AWS4-HMAC-SHA256-PAYLOAD', signer.amzDate, signer.scope, previous, EMPTY_SHA256, chunkSha256].join('\n'),
  );
}

/** The signature of the trailing headers of a signed `aws-chunked` body. */
export function trailerSignature(signer: Signer, previous: string, trailerText: string): string {
  return sign(
    signer.signingKey,
    ['AWS4-HMAC-SHA256-TRAILER', signer.amzDate, signer.scope, previous, sha256Hex(trailerText)].join('\n'),
  );
}

export { signatureMismatch, sha256Hex };
