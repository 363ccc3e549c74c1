/**
 * GetObjectAttributes (`GET /<bucket>/<key>?attributes`): what HEAD and ListParts would tell of an
 * object, in one document and without its bytes, limited to the attributes the request names.
 */
import type { ObjectAttributes } from '../bucket';
import { checksumElement, checksumElements, objectChecksum } from './checksum-headers';
import { conditionsOf } from './conditions';
import { customerKeyOf } from './customer-keys';
import { fromRequest, keyOf, MAX_LISTED, MAX_PART_NUMBER, openBucket, xmlResponse, type S3Context, type S3Response } from './context';
import { invalidArgument, noSuchKey } from './errors';
import { conditionFailed } from './object-operations';
import type { ReadHeaders } from './request-headers';

/** The attributes S3 answers, in the order its document lists them. */
const ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
type Attribute = (typeof ATTRIBUTES)[number];

const ATTRIBUTES_HEADER = 'x-amz-object-attributes';

/** The attributes `x-amz-object-attributes` names (comma-separated, case as S3 spells them). */
function requestedAttributes(headers: ReadHeaders): Set<Attribute> {
  const header = headers.get(ATTRIBUTES_HEADER);
  const names = (header ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) {
    throw invalidArgument(
      `${ATTRIBUTES_HEADER} must name one or more of ${ATTRIBUTES.join(', ')}, comma-separated.`,
      ATTRIBUTES_HEADER,
      header ?? '',
    );
  }
  for (const name of names) {
    if (!(ATTRIBUTES as readonly string[]).includes(name)) {
      throw invalidArgument(
        `Invalid attribute name specified: ${name}; ${ATTRIBUTES_HEADER} names one or more of ${ATTRIBUTES.join(', ')}.`,
        ATTRIBUTES_HEADER,
        header!,
      );
    }
  }
  return new Set(names as Attribute[]);
}

/** A whole-number request header within bounds, or its default (`x-amz-max-parts` is capped at 1000, as S3 caps it). */
function numberHeader(headers: ReadHeaders, name: string, fallback: number, max: number, cap: boolean): number {
  const text = headers.get(name)?.trim();
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw invalidArgument(`${name} must be a whole number, not ${JSON.stringify(text)}.`, name, text);
  const value = Number(text);
  if (value > max && !cap) throw invalidArgument(`${name} must be at most ${max}, not ${text}.`, name, text);
  return Math.min(value, max);
}

/** The ObjectParts element: one page of at most `maxParts` parts after the part numbered `marker`. */
function objectParts(parts: NonNullable<ObjectAttributes['parts']>, maxParts: number, marker: number) {
  const after = parts.filter((part) => part.partNumber > marker);
  const page = after.slice(0, maxParts);
  return {
    // S3's documents call it TotalPartsCount; on the wire (and in the SDKs' models) it is PartsCount.
    PartsCount: parts.length,
    PartNumberMarker: marker,
    NextPartNumberMarker: page.length > 0 ? page[page.length - 1]!.partNumber : undefined,
    MaxParts: maxParts,
    IsTruncated: after.length > page.length,
    Part: page.map((part) => ({
      ...(part.checksum ? { [checksumElement(part.checksum.algorithm)]: part.checksum.value } : {}),
      PartNumber: part.partNumber,
      Size: part.size,
    })),
  };
}

export async function getObjectAttributes(context: S3Context): Promise<S3Response> {
  const { headers } = context.request;
  const wanted = requestedAttributes(headers);
  const bucket = await openBucket(context);
  const key = keyOf(context);
  const conditions = conditionsOf(headers);
  // Paging headers are checked whether or not ObjectParts is asked for, before the object is read.
  const maxParts = numberHeader(headers, 'x-amz-max-parts', MAX_LISTED, MAX_LISTED, true);
  const marker = numberHeader(headers, 'x-amz-part-number-marker', 0, MAX_PART_NUMBER, false);
  const ssecKey = customerKeyOf(context.request)?.toString('hex');
  const found = await fromRequest(() =>
    bucket.attributes(key, { ...(conditions ? { onlyIf: conditions } : {}), ...(ssecKey ? { ssecKey } : {}) }),
  );
  if (found === null) throw noSuchKey(key);
  const { object, parts, conditionsHeld } = found;
  if (!conditionsHeld) return conditionFailed(conditions!, object);
  const checksum = objectChecksum(bucket, object);
  const response = xmlResponse('GetObjectAttributesResponse', {
    // Without quotes, as S3 answers it here.
    ETag: wanted.has('ETag') ? object.etag : undefined,
    Checksum: wanted.has('Checksum') && checksum ? checksumElements(checksum) : undefined,
    // An object stored by a single put has no parts to tell of, as on S3.
    ObjectParts: wanted.has('ObjectParts') && parts ? objectParts(parts, maxParts, marker) : undefined,
    StorageClass: wanted.has('StorageClass') ? 'STANDARD' : undefined,
    ObjectSize: wanted.has('ObjectSize') ? object.size : undefined,
  });
  response.headers!['last-modified'] = object.uploaded.toUTCString();
  return response;
}
