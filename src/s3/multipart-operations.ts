/** Multipart uploads: create, parts (uploaded or copied), listings, complete, abort. */
import { createHash } from 'node:crypto';
import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  type NamedPartChecksums,
  type UploadedPart,
  type UploadInProgress,
} from '../bucket';
import { checksumElement, namedChecksum, uploadChecksumOf } from './checksum-headers';
import { writeConditions } from './conditions';
import { customerKeyHeaders, customerKeyOf } from './customer-keys';
import {
  bodyOf,
  byteOrder,
  fromRequest,
  iso,
  keyEncoder,
  keyOf,
  MAX_DOCUMENT_BYTES,
  MAX_LISTED,
  numberParam,
  MAX_PART_NUMBER,
  openBucket,
  OWNER,
  partNumberOf,
  xmlResponse,
  type S3Context,
  type S3Response,
} from './context';
import { invalidArgument, malformedXml, preconditionFailed, S3Error } from './errors';
import { customMetadataOf, httpMetadataOf } from './metadata-headers';
import { expirationOf, readCopySource } from './object-operations';
import { readSmallBody, storableStream } from './payload';
import { parseXmlBody } from './xml';
import type { ReadHeaders } from './request-headers';


const uploadIdOf = (context: S3Context) => context.request.params.get('uploadId')!;
const quoted = (etag: string) => `"${etag}"`;
const unquoted = (etag: string) => etag.trim().replace(/^"(.*)"$/, '$1');

export async function createMultipartUpload(context: S3Context): Promise<S3Response> {
  const { headers } = context.request;
  const bucket = await openBucket(context);
  const checksum = uploadChecksumOf(headers);
  const key = customerKeyOf(context.request);
  const upload = await fromRequest(() =>
    bucket.createUpload(keyOf(context), {
      httpMetadata: httpMetadataOf(headers),
      customMetadata: customMetadataOf(headers),
      ...(checksum ? { checksum } : {}),
      ...(key ? { ssecKey: key.toString('hex') } : {}),
    }),
  );
  const response = xmlResponse('InitiateMultipartUploadResult', {
    Bucket: context.request.bucket!,
    Key: upload.key,
    UploadId: upload.uploadId,
  });
  Object.assign(response.headers!, keyEcho(key));
  if (checksum) {
    response.headers!['x-amz-checksum-algorithm'] = checksum.algorithm.toUpperCase();
    response.headers!['x-amz-checksum-type'] = checksum.type;
  }
  return response;
}


/** The answer's SSE-C headers for a key the request named (and the runtime accepted). */
const keyEcho = (key: Buffer | undefined) =>
  key ? customerKeyHeaders({ ssecKeyMd5: createHash('md5').update(key).digest('base64') }) : {};

export async function uploadPart(context: S3Context): Promise<S3Response> {
  const bucket = await openBucket(context);
  const partNumber = partNumberOf(context);
  const key = customerKeyOf(context.request);
  const body = bodyOf(context);
  const stream = storableStream(body);
  const part = await fromRequest(() =>
    bucket.uploadPartWith(keyOf(context), uploadIdOf(context), partNumber, stream, body.checksum, key && { ssecKey: key.toString('hex') }),
  );
  return { status: 200, headers: { etag: quoted(part.etag), ...body.checksums(), ...keyEcho(key) } };
}

/** `x-amz-copy-source-range: bytes=<first>-<last>`, both given. */
function copyRangeOf(context: S3Context): { offset: number; length: number } | undefined {
  const header = context.request.headers.get('x-amz-copy-source-range');
  if (header === null) return undefined;
  const match = /^bytes=(\d+)-(\d+)$/.exec(header.trim());
  if (!match || Number(match[2]) < Number(match[1])) {
    throw invalidArgument('x-amz-copy-source-range must read bytes=<first>-<last>.', 'x-amz-copy-source-range', header);
  }
  return { offset: Number(match[1]), length: Number(match[2]) - Number(match[1]) + 1 };
}

export async function uploadPartCopy(context: S3Context): Promise<S3Response> {
  const bucket = await openBucket(context);
  const partNumber = partNumberOf(context);
  const range = copyRangeOf(context);
  const key = customerKeyOf(context.request);
  const source = await readCopySource(context, range);
  try {
    if (range && source.range && (source.range as { length: number }).length !== range.length) {
      throw new S3Error(
        'InvalidRange',
        416,
        `The range ${range.offset}-${range.offset + range.length - 1} is not within the ${source.size} bytes of the source.`,
      );
    }
    // An upload created with a checksum algorithm gets the copied part's checksum computed.
    const part = await fromRequest(() =>
      bucket.uploadPartWith(keyOf(context), uploadIdOf(context), partNumber, source.body, undefined, key && { ssecKey: key.toString('hex') }),
    );
    const response = xmlResponse('CopyPartResult', {
      LastModified: iso(new Date()),
      ETag: quoted(part.etag),
      ...(part.checksum ? { [checksumElement(part.checksum.algorithm)]: part.checksum.value } : {}),
    });
    Object.assign(response.headers!, keyEcho(key));
    return response;
  } finally {
    if (!source.bodyUsed) await source.body.cancel();
  }
}

/**
 * The parts of a CompleteMultipartUpload document, by ascending part number, and the checksums it
 * names for them (`<ChecksumCRC32>` and so on in a `<Part>`). A part number named again right
 * after itself counts once, with the etag and checksums named last (S3 accepts such lists: a
 * client that sent a part twice may name both answers); a lower number after a higher one is
 * InvalidPartOrder.
 */
function partsToComplete(document: Record<string, unknown>): { parts: UploadedPart[]; checksums: NamedPartChecksums } {
  const parts = (document.Part ?? []) as unknown[];
  if (parts.length === 0) throw malformedXml('a CompleteMultipartUpload document needs at least one Part.');
  const chosen: UploadedPart[] = [];
  const checksums = new Map<number, Partial<Record<ChecksumAlgorithm, string>>>();
  for (const [index, part] of parts.entries()) {
    const element = (part ?? {}) as Record<string, unknown>;
    const { PartNumber, ETag } = element;
    if (typeof PartNumber !== 'string' || !/^\s*\d+\s*$/.test(PartNumber) || typeof ETag !== 'string') {
      throw malformedXml(`Part ${index + 1} needs a numeric PartNumber and an ETag.`);
    }
    const partNumber = Number(PartNumber);
    if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
      throw invalidArgument(
        `Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive, not ${partNumber}.`,
        'PartNumber',
        String(partNumber),
      );
    }
    const previous = chosen[chosen.length - 1]?.partNumber ?? 0;
    if (partNumber < previous) {
      throw new S3Error(
        'InvalidPartOrder',
        400,
        `The list of parts was not in ascending order: part ${partNumber} follows part ${previous}.`,
      );
    }
    if (partNumber === previous) chosen.pop();
    chosen.push({ partNumber, etag: unquoted(ETag) });
    const named: Partial<Record<ChecksumAlgorithm, string>> = {};
    for (const algorithm of CHECKSUM_ALGORITHMS) {
      const value = element[checksumElement(algorithm)];
      if (value === undefined) continue;
      if (typeof value !== 'string') throw malformedXml(`Part ${index + 1} names ${checksumElement(algorithm)} more than once.`);
      named[algorithm] = value.trim();
    }
    checksums.set(partNumber, named);
  }
  return { parts: chosen, checksums };
}

/** `x-amz-mp-object-size`: the size the completed object must have, a whole number of bytes. */
function objectSizeOf(headers: ReadHeaders): { objectSize?: number } {
  const text = headers.get('x-amz-mp-object-size');
  if (text === null) return {};
  if (!/^\d{1,16}$/.test(text.trim())) {
    throw invalidArgument(`x-amz-mp-object-size must be a whole number of bytes, not ${JSON.stringify(text)}.`, 'x-amz-mp-object-size', text);
  }
  return { objectSize: Number(text.trim()) };
}

export async function completeMultipartUpload(context: S3Context): Promise<S3Response> {
  const { headers } = context.request;
  const bucket = await openBucket(context);
  const conditions = writeConditions(headers);
  const key = customerKeyOf(context.request);
  const document = parseXmlBody(
    await readSmallBody(bodyOf(context, { checksumHeaders: false }), MAX_DOCUMENT_BYTES),
    'CompleteMultipartUpload',
  );
  const { parts, checksums: partChecksums } = partsToComplete(document);
  const checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const value = namedChecksum(headers, algorithm);
    if (value !== undefined) checksums[algorithm] = value;
  }
  const object = await fromRequest(() =>
    bucket.completeUpload(keyOf(context), uploadIdOf(context), parts, {
      ...(conditions ? { onlyIf: conditions } : {}),
      repeatable: true,
      checksums,
      partChecksums,
      ssecKey: key ? key.toString('hex') : null,
      ...objectSizeOf(headers),
    }),
  );
  if (object === null) throw preconditionFailed(conditions!.has('if-match') ? 'If-Match' : 'If-None-Match');
  const checksum = bucket.checksumOf(object);
  const response = xmlResponse('CompleteMultipartUploadResult', {
    Location: `/${context.request.bucket}/${encodeURIComponent(object.key).replace(/%2F/g, '/')}`,
    Bucket: context.request.bucket!,
    Key: object.key,
    ETag: object.httpEtag,
    ...(checksum ? { [checksumElement(checksum.algorithm)]: checksum.value, ChecksumType: checksum.type } : {}),
  });
  Object.assign(response.headers!, await expirationOf(context, object));
  return response;
}

export async function abortMultipartUpload(context: S3Context): Promise<S3Response> {
  const bucket = await openBucket(context);
  await fromRequest(() => bucket.resumeMultipartUpload(keyOf(context), uploadIdOf(context)).abort());
  return { status: 204 };
}

export async function listParts(context: S3Context): Promise<S3Response> {
  const bucket = await openBucket(context);
  const maxParts = numberParam(context, 'max-parts', MAX_LISTED, 0, MAX_LISTED);
  const marker = numberParam(context, 'part-number-marker', 0, 0, MAX_PART_NUMBER);
  const { upload, parts } = await fromRequest(() => bucket.listParts(keyOf(context), uploadIdOf(context)));
  const after = parts.filter((part) => part.partNumber > marker);
  const page = after.slice(0, maxParts);
  const truncated = after.length > page.length;
  return xmlResponse('ListPartsResult', {
    Bucket: context.request.bucket!,
    Key: upload.key,
    UploadId: upload.uploadId,
    Initiator: OWNER,
    Owner: OWNER,
    StorageClass: 'STANDARD',
    PartNumberMarker: marker,
    NextPartNumberMarker: page.length > 0 ? page[page.length - 1]!.partNumber : marker,
    MaxParts: maxParts,
    IsTruncated: truncated,
    ...(upload.checksum
      ? { ChecksumAlgorithm: upload.checksum.algorithm.toUpperCase(), ChecksumType: upload.checksum.type }
      : {}),
    Part: page.map((part) => ({
      PartNumber: part.partNumber,
      // Parts keep no time of their own; the upload's start stands for it.
      LastModified: iso(upload.initiated),
      ETag: quoted(part.etag),
      Size: part.size,
      ...(part.checksum ? { [checksumElement(part.checksum.algorithm)]: part.checksum.value } : {}),
    })),
  });
}

/** The uploads after the markers: later keys, or later uploads of the marker key. */
function afterMarkers(uploads: UploadInProgress[], keyMarker: string | undefined, uploadIdMarker: string | undefined) {
  if (keyMarker === undefined) return uploads;
  const marked =
    uploadIdMarker === undefined ? -1 : uploads.findIndex((u) => u.key === keyMarker && u.uploadId === uploadIdMarker);
  if (marked >= 0) return uploads.slice(marked + 1);
  return uploads.filter((u) => byteOrder(u.key, keyMarker) > 0);
}

export async function listMultipartUploads(context: S3Context): Promise<S3Response> {
  const { params } = context.request;
  const bucket = await openBucket(context);
  const encode = keyEncoder(context);
  const maxUploads = numberParam(context, 'max-uploads', MAX_LISTED, 0, MAX_LISTED);
  const prefix = params.get('prefix') ?? '';
  const delimiter = params.get('delimiter') || undefined;
  const keyMarker = params.get('key-marker') || undefined;
  const uploadIdMarker = params.get('upload-id-marker') || undefined;
  const all = afterMarkers(
    await fromRequest(() => bucket.listMultipartUploads({ prefix })),
    keyMarker,
    uploadIdMarker,
  );
  const uploads: UploadInProgress[] = [];
  const prefixes: string[] = [];
  let truncated = false;
  let last: { key: string; uploadId?: string } | undefined;
  for (const upload of all) {
    const cut = delimiter === undefined ? -1 : upload.key.indexOf(delimiter, prefix.length);
    const group = cut < 0 ? undefined : upload.key.slice(0, cut + delimiter!.length);
    if (group !== undefined && group === prefixes[prefixes.length - 1]) continue;
    if (uploads.length + prefixes.length === maxUploads) {
      truncated = true;
      break;
    }
    if (group !== undefined) {
      prefixes.push(group);
      // Resuming after a whole group: the largest key it can hold.
      last = { key: `${group}\u{10FFFF}` };
    } else {
      uploads.push(upload);
      last = { key: upload.key, uploadId: upload.uploadId };
    }
  }
  return xmlResponse('ListMultipartUploadsResult', {
    Bucket: context.request.bucket!,
    KeyMarker: keyMarker ?? '',
    UploadIdMarker: uploadIdMarker ?? '',
    NextKeyMarker: truncated && last ? encode(last.key) : undefined,
    NextUploadIdMarker: truncated && last?.uploadId ? last.uploadId : undefined,
    Prefix: encode(prefix),
    Delimiter: delimiter === undefined ? undefined : encode(delimiter),
    MaxUploads: maxUploads,
    EncodingType: params.get('encoding-type'),
    IsTruncated: truncated,
    Upload: uploads.map((upload) => ({
      Key: encode(upload.key),
      UploadId: upload.uploadId,
      Initiator: OWNER,
      Owner: OWNER,
      StorageClass: 'STANDARD',
      Initiated: iso(upload.initiated),
      ...(upload.checksum
        ? { ChecksumAlgorithm: upload.checksum.algorithm.toUpperCase(), ChecksumType: upload.checksum.type }
        : {}),
    })),
    CommonPrefixes: prefixes.map((p) => ({ Prefix: encode(p) })),
  });
}
