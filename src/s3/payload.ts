/**
 * A request body as the runtime should see it: aws-chunked framing removed, and every integrity
 * claim the client made checked (`x-amz-content-sha256`, `Content-MD5`, `x-amz-checksum-*` in a
 * header or a trailer, the decoded length). A failed check errors the stream before its end, so
 * the runtime stores nothing.
 */
import {
  CHECKSUM_ALGORITHMS,
  declareStreamLength,
  hashDigest,
  isChecksumAlgorithm,
  newDigest,
  type ChecksumAlgorithm,
  type ByteSource,
  type ChecksumClaim,
  type Digest,
} from '../bucket';
import { decodeAwsChunked } from './aws-chunked';
import { badDigest, invalidArgument, invalidRequest, S3Error } from './errors';
import type { Signer } from './sigv4';
import { UNSIGNED_PAYLOAD } from './sigv4';
import type { ReadHeaders } from './request-headers';

const SIGNED_STREAMING = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
const SIGNED_STREAMING_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
const UNSIGNED_STREAMING_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';

const CHECKSUM_HEADER = /^x-amz-checksum-(.+)$/;

/** A check made once every byte has passed. */
interface Claim {
  digest: Digest;
  /** The expected value, base64; read late for trailers. */
  expected: () => string | undefined;
  mismatch: () => S3Error;
  header?: string;
  /** The S3 checksum algorithm, for `x-amz-checksum-*` claims. */
  algorithm?: ChecksumAlgorithm;
}

/**
 * The body in the form it reaches the bucket's engine in (a ByteSource): its decoded chunks,
 * erroring with an S3Error when a check fails, and `knownSize`, the number of decoded bytes when
 * the request says it (Content-Length, or x-amz-decoded-content-length).
 */
export interface VerifiedBody extends ByteSource {
  chunks: AsyncGenerator<Uint8Array>;
  /** The `x-amz-checksum-*` values verified, to echo in the response (once the body is read). */
  checksums: () => Record<string, string>;
  /** The S3 checksum the client named (header or trailer), to keep: its value once verified. */
  checksum: ChecksumClaim | undefined;
}

export interface BodyRequest {
  headers: ReadHeaders;
  body: AsyncIterable<Uint8Array>;
}

/** Plans the decoding and the checks of a body from the request's headers; bad headers throw here. */
export function verifiedBody(request: BodyRequest, signer: Signer | null, checksumHeaders = true): VerifiedBody {
  const { headers } = request;
  const payloadHash = signer?.payloadHash ?? headers.get('x-amz-content-sha256') ?? UNSIGNED_PAYLOAD;
  const encoding = headers.get('content-encoding') ?? '';
  const chunked = payloadHash.startsWith('STREAMING-') || /(^|,)\s*aws-chunked\s*(,|$)/.test(encoding);
  const trailers = new Map<string, string>();
  const claims: Claim[] = [];

  if (/^[0-9a-f]{64}$/.test(payloadHash)) {
    claims.push({
      digest: hashDigest('sha256'),
      expected: () => Buffer.from(payloadHash, 'hex').toString('base64'),
      mismatch: () =>
        new S3Error(
          'XAmzContentSHA256Mismatch',
          400,
          'The provided x-amz-content-sha256 header does not match what was computed.',
        ),
    });
  } else if (
    ![UNSIGNED_PAYLOAD, SIGNED_STREAMING, SIGNED_STREAMING_TRAILER, UNSIGNED_STREAMING_TRAILER].includes(payloadHash)
  ) {
    throw invalidArgument(
      'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, a STREAMING-... marker or the hex SHA-256 of the body.',
      'x-amz-content-sha256',
      payloadHash,
    );
  }
  if (payloadHash.startsWith('STREAMING-AWS4') && signer === null) {
    throw invalidRequest('A signed streaming body needs a signed request.');
  }

  const contentMd5 = headers.get('content-md5');
  if (contentMd5 !== null) {
    const bytes = Buffer.from(contentMd5, 'base64');
    if (bytes.length !== 16 || bytes.toString('base64') !== contentMd5.trim()) {
      throw new S3Error(
        'InvalidDigest',
        400,
        `The Content-MD5 you specified is not the base64 of 16 bytes: ${JSON.stringify(contentMd5)}.`,
      );
    }
    claims.push({
      digest: hashDigest('md5'),
      expected: () => contentMd5.trim(),
      mismatch: () => badDigest('Content-MD5'),
    });
  }

  for (const [name, value] of checksumHeaders ? headers : []) {
    const algorithm = CHECKSUM_HEADER.exec(name)?.[1];
    if (algorithm === undefined || algorithm === 'type' || algorithm === 'algorithm' || algorithm === 'mode') continue;
    claims.push(checksumClaim(algorithm, () => value, `${name}`));
  }
  const trailerNames = (headers.get('x-amz-trailer') ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  for (const name of trailerNames) {
    const algorithm = CHECKSUM_HEADER.exec(name)?.[1];
    if (algorithm === undefined) throw invalidRequest(`Unsupported trailing header in x-amz-trailer: ${name}.`);
    if (!chunked) throw invalidRequest('x-amz-trailer needs an aws-chunked body.');
    claims.push(checksumClaim(algorithm, () => trailers.get(name), name));
  }

  const contentLength = headers.get('content-length');
  let declaredLength: number | undefined = contentLength !== null && /^\d+$/.test(contentLength) ? Number(contentLength) : undefined;
  if (chunked) {
    const decoded = headers.get('x-amz-decoded-content-length');
    if (decoded === null || !/^\d+$/.test(decoded)) {
      throw new S3Error(
        'MissingContentLength',
        411,
        'An aws-chunked body needs x-amz-decoded-content-length, the size of the decoded bytes.',
      );
    }
    declaredLength = Number(decoded);
  }

  const source = chunked
    ? decodeAwsChunked(
        request.body,
        payloadHash.startsWith('STREAMING-AWS4') ? signer : null,
        trailers,
        payloadHash === SIGNED_STREAMING_TRAILER,
      )
    : request.body;
  const verified: Record<string, string> = {};
  async function* checked(): AsyncGenerator<Uint8Array> {
    let size = 0;
    for await (const chunk of source) {
      size += chunk.byteLength;
      for (const claim of claims) claim.digest.update(chunk);
      yield chunk;
    }
    if (declaredLength !== undefined && size !== declaredLength) throw incompleteBody(declaredLength, size);
    for (const claim of claims) {
      const actual = claim.digest.base64();
      const expected = claim.expected();
      if (expected === undefined)
        throw invalidRequest(`The trailing header ${claim.header} announced in x-amz-trailer is missing.`);
      if (expected !== actual) throw claim.mismatch();
      if (claim.header) verified[claim.header] = actual;
    }
  }
  const named = claims.find((claim) => claim.algorithm !== undefined);
  const checksum: ChecksumClaim | undefined = named && {
    algorithm: named.algorithm!,
    value: () => verified[named.header!],
  };
  const chunks = checked();
  return {
    chunks,
    ...(declaredLength === undefined ? {} : { knownSize: declaredLength }),
    // Stops reading: the request's stream is destroyed when the reading had begun.
    cancel: async () => void (await chunks.return(undefined)),
    checksums: () => ({ ...verified }),
    checksum,
  };
}

/**
 * The body as a stream the bucket runtime stores: the runtime, like the platform, stores only
 * streams whose length is known, and S3 itself refuses an upload that does not say its length.
 */
export function storableStream(body: VerifiedBody): ReadableStream<Uint8Array> {
  const stream = ReadableStream.from(storable(body).chunks);
  declareStreamLength(stream, body.knownSize!);
  return stream;
}

/** The body as the bucket stores it, when its length is known (see `storableStream`). */
export function storable(body: VerifiedBody): VerifiedBody {
  if (body.knownSize === undefined) {
    throw new S3Error('MissingContentLength', 411, 'You must provide the Content-Length HTTP header.');
  }
  return body;
}

const incompleteBody = (declared: number, size: number) =>
  new S3Error('IncompleteBody', 400, `x-amz-decoded-content-length says ${declared} bytes; the body has ${size}.`);

/** Bodies up to this size are handled whole: read before they are stored (`wholeBody`), answered in one write. */
export const WHOLE_BODY_BYTES = 64 * 1024;

/**
 * A small body read whole, verified, as one buffer: what the runtime stores in one piece, without
 * the stream machinery a body of any size needs (which cost more than the bytes of a 1 KiB PUT).
 * Only for a body whose length is known and at most WHOLE_BODY_BYTES; a body longer than it said
 * is refused as soon as it is, so memory holds no more than that.
 */
export async function wholeBody(body: VerifiedBody): Promise<Buffer> {
  const declared = body.knownSize!;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body.chunks) {
    size += chunk.byteLength;
    if (size > declared) throw incompleteBody(declared, size);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength) : Buffer.concat(chunks, size);
}

function checksumClaim(algorithm: string, expected: () => string | undefined, header: string): Claim {
  if (!isChecksumAlgorithm(algorithm)) {
    throw invalidRequest(`Unsupported checksum algorithm ${algorithm}; use one of ${CHECKSUM_ALGORITHMS.join(', ')}.`);
  }
  return {
    digest: newDigest(algorithm),
    expected,
    mismatch: () => badDigest(`${algorithm.toUpperCase()} checksum`),
    header,
    algorithm,
  };
}

/** Reads a small body whole (an XML request document), refusing more than `limit` bytes. */
export async function readSmallBody(body: VerifiedBody, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body.chunks) {
    size += chunk.byteLength;
    if (size > limit)
      throw new S3Error('MaxMessageLengthExceeded', 400, `The request document is larger than ${limit} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
