/** Operations on the service and on buckets: the catalogue, and object listings. */
import type { ListOptions } from '../bucket';
import {
  byteOrder,
  iso,
  keyEncoder,
  MAX_LISTED,
  numberParam,
  openBucket,
  OWNER,
  xmlResponse,
  type S3Context,
  type S3Response,
} from './context';
import { invalidArgument } from './errors';

export async function listBuckets(context: S3Context): Promise<S3Response> {
  const buckets = await context.catalogue.list();
  return xmlResponse('ListAllMyBucketsResult', {
    Owner: OWNER,
    Buckets: { Bucket: buckets.map((bucket) => ({ Name: bucket.name, CreationDate: iso(bucket.createdAt) })) },
  });
}

export async function headBucket(context: S3Context): Promise<S3Response> {
  await openBucket(context);
  return { status: 200, headers: { 'x-amz-bucket-region': context.region } };
}

export async function getBucketLocation(context: S3Context): Promise<S3Response> {
  await openBucket(context);
  return xmlResponse('LocationConstraint', { '#text': context.region });
}

export async function createBucket(context: S3Context): Promise<S3Response> {
  // A CreateBucketConfiguration body names a region; buckets here have none to choose.
  await context.catalogue.create(context.request.bucket!);
  return { status: 200, headers: { location: `/${context.request.bucket}` } };
}

export async function deleteBucket(context: S3Context): Promise<S3Response> {
  await context.catalogue.delete(context.request.bucket!);
  return { status: 204 };
}

export async function listObjectsV2(context: S3Context): Promise<S3Response> {
  const { params } = context.request;
  const bucket = await openBucket(context);
  const encode = keyEncoder(context);
  const maxKeys = numberParam(context, 'max-keys', MAX_LISTED, 0, MAX_LISTED);
  const prefix = params.get('prefix') ?? '';
  const delimiter = params.get('delimiter') || undefined;
  const startAfter = params.get('start-after');
  const token = params.get('continuation-token');
  if (token === '') throw invalidArgument('The continuation token provided is incorrect.', 'continuation-token', token);
  const options: ListOptions = { limit: maxKeys, prefix, include: [] };
  if (delimiter !== undefined) options.delimiter = delimiter;
  if (token !== undefined) options.cursor = token;
  else if (startAfter) options.startAfter = startAfter;
  const page =
    maxKeys === 0 ? { objects: [], delimitedPrefixes: [], truncated: false as const } : await bucket.list(options);
  return xmlResponse('ListBucketResult', {
    Name: context.request.bucket!,
    Prefix: encode(prefix),
    Delimiter: delimiter === undefined ? undefined : encode(delimiter),
    StartAfter: startAfter === undefined ? undefined : encode(startAfter),
    ContinuationToken: token,
    NextContinuationToken: page.truncated ? page.cursor : undefined,
    KeyCount: page.objects.length + page.delimitedPrefixes.length,
    MaxKeys: maxKeys,
    EncodingType: params.get('encoding-type'),
    IsTruncated: page.truncated,
    Contents: page.objects.map((object) => ({
      Key: encode(object.key),
      LastModified: iso(object.uploaded),
      ETag: object.httpEtag,
      Size: object.size,
      StorageClass: 'STANDARD',
      ...(params.get('fetch-owner') === 'true' ? { Owner: OWNER } : {}),
    })),
    CommonPrefixes: page.delimitedPrefixes.map((p) => ({ Prefix: encode(p) })),
  });
}

/**
 * ListObjects (version 1): `marker` is a key to start after. A marker inside a delimited group
 * (as NextMarker is when the last entry was a common prefix) resumes after the whole group.
 */
export async function listObjects(context: S3Context): Promise<S3Response> {
  const { params } = context.request;
  const bucket = await openBucket(context);
  const encode = keyEncoder(context);
  const maxKeys = numberParam(context, 'max-keys', MAX_LISTED, 0, MAX_LISTED);
  const prefix = params.get('prefix') ?? '';
  const delimiter = params.get('delimiter') || undefined;
  const marker = params.get('marker') || undefined;
  const cut =
    marker !== undefined && delimiter !== undefined && marker.startsWith(prefix)
      ? marker.indexOf(delimiter, prefix.length)
      : -1;
  const markerGroup = cut < 0 ? undefined : marker!.slice(0, cut + delimiter!.length);
  const options: ListOptions = { limit: maxKeys, prefix, include: [] };
  if (delimiter !== undefined) options.delimiter = delimiter;
  if (marker !== undefined) options.startAfter = marker;
  const page =
    maxKeys === 0 ? { objects: [], delimitedPrefixes: [], truncated: false as const } : await bucket.list(options);
  const prefixes = page.delimitedPrefixes.filter((p) => p !== markerGroup);
  const last = [page.objects[page.objects.length - 1]?.key, page.delimitedPrefixes[page.delimitedPrefixes.length - 1]]
    .filter((entry): entry is string => entry !== undefined)
    .sort(byteOrder)
    .pop();
  return xmlResponse('ListBucketResult', {
    Name: context.request.bucket!,
    Prefix: encode(prefix),
    Marker: encode(marker ?? ''),
    NextMarker: page.truncated && delimiter !== undefined && last !== undefined ? encode(last) : undefined,
    MaxKeys: maxKeys,
    Delimiter: delimiter === undefined ? undefined : encode(delimiter),
    EncodingType: params.get('encoding-type'),
    IsTruncated: page.truncated,
    Contents: page.objects.map((object) => ({
      Key: encode(object.key),
      LastModified: iso(object.uploaded),
      ETag: object.httpEtag,
      Size: object.size,
      StorageClass: 'STANDARD',
      Owner: OWNER,
    })),
    CommonPrefixes: prefixes.map((p) => ({ Prefix: encode(p) })),
  });
}
