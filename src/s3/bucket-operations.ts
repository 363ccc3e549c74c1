/** Operations on the service and on buckets: the catalogue, and object listings. */
import type { ListOptions } from '../bucket';
import {
  byteOrder,
  fromRequest,
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

/** What every listing says of an object after its key (and version), in S3's order. */
function listedFields(object: { uploaded: Date; httpEtag: string; size: number }) {
  return { LastModified: iso(object.uploaded), ETag: object.httpEtag, Size: object.size, StorageClass: 'STANDARD' };
}

/** Most buckets one ListBuckets page holds, as S3 caps `max-buckets`. */
const MAX_BUCKETS = 10_000;

/**
 * ListBuckets, paged with `max-buckets` (1 to 10,000) and `continuation-token` (the last name of
 * the previous page), filtered by `prefix`.
 */
export async function listBuckets(context: S3Context): Promise<S3Response> {
  const { params } = context.request;
  const prefix = params.get('prefix') ?? '';
  const token = params.get('continuation-token');
  const paged = params.has('max-buckets');
  const maxBuckets = numberParam(context, 'max-buckets', MAX_BUCKETS, 1, MAX_BUCKETS);
  const after = token === undefined || token === '' ? undefined : Buffer.from(token, 'base64url').toString('utf8');
  const buckets = (await context.catalogue.list()).filter(
    (bucket) => bucket.name.startsWith(prefix) && (after === undefined || bucket.name > after),
  );
  const page = buckets.slice(0, maxBuckets);
  const more = paged && buckets.length > page.length;
  return xmlResponse('ListAllMyBucketsResult', {
    Owner: OWNER,
    Buckets: { Bucket: page.map((bucket) => ({ Name: bucket.name, CreationDate: iso(bucket.createdAt) })) },
    ContinuationToken: more ? Buffer.from(page[page.length - 1]!.name, 'utf8').toString('base64url') : undefined,
    Prefix: params.has('prefix') ? prefix : undefined,
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

/**
 * DeleteBucket. S3 deletes a bucket that holds only multipart uploads in progress, dropping them;
 * the catalogue refuses such a bucket (the platform's rule for its other doors), so they are
 * aborted first. Objects still make it BucketNotEmpty.
 */
export async function deleteBucket(context: S3Context): Promise<S3Response> {
  const name = context.request.bucket!;
  const bucket = await openBucket(context);
  const objects = await bucket.list({ limit: 1, include: [] });
  if (objects.objects.length === 0) {
    for (const upload of await bucket.listMultipartUploads()) {
      await bucket.resumeMultipartUpload(upload.key, upload.uploadId).abort();
    }
  }
  await context.catalogue.delete(name);
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
  // An empty token starts from the beginning, as S3 answers it (and echoes it back).
  const token = params.get('continuation-token');
  const options: ListOptions = { limit: maxKeys, prefix, include: [] };
  if (delimiter !== undefined) options.delimiter = delimiter;
  if (token) options.cursor = token;
  else if (startAfter) options.startAfter = startAfter;
  const page =
    maxKeys === 0 ? { objects: [], delimitedPrefixes: [], truncated: false as const } : await fromRequest(() => bucket.list(options));
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
      ...listedFields(object),
      ...(params.get('fetch-owner') === 'true' ? { Owner: OWNER } : {}),
    })),
    CommonPrefixes: page.delimitedPrefixes.map((p) => ({ Prefix: encode(p) })),
  });
}

/**
 * A version 1 page (ListObjects, and ListObjectVersions of a bucket without versions): `marker` is
 * a key to start after. A marker inside a delimited group (as NextMarker is when the last entry
 * was a common prefix) resumes after the whole group, so paging never repeats a page.
 */
async function listPageV1(context: S3Context, marker: string | undefined) {
  const { params } = context.request;
  const bucket = await openBucket(context);
  const maxKeys = numberParam(context, 'max-keys', MAX_LISTED, 0, MAX_LISTED);
  const prefix = params.get('prefix') ?? '';
  const delimiter = params.get('delimiter') || undefined;
  const cut =
    marker !== undefined && delimiter !== undefined && marker.startsWith(prefix)
      ? marker.indexOf(delimiter, prefix.length)
      : -1;
  const markerGroup = cut < 0 ? undefined : marker!.slice(0, cut + delimiter!.length);
  const options: ListOptions = { limit: maxKeys, prefix, include: [] };
  if (delimiter !== undefined) options.delimiter = delimiter;
  if (markerGroup !== undefined) options.startAfter = afterGroup(markerGroup);
  else if (marker !== undefined) options.startAfter = marker;
  const page =
    maxKeys === 0 ? { objects: [], delimitedPrefixes: [], truncated: false as const } : await fromRequest(() => bucket.list(options));
  const last = [page.objects[page.objects.length - 1]?.key, page.delimitedPrefixes[page.delimitedPrefixes.length - 1]]
    .filter((entry): entry is string => entry !== undefined)
    .sort(byteOrder)
    .pop();
  return { page, prefix, delimiter, maxKeys, last };
}

/**
 * A key after every key of a group: the group followed by the highest code point, repeated past
 * the longest key (1024 bytes of UTF-8, 4 bytes each).
 */
const afterGroup = (group: string) => group + '\u{10FFFF}'.repeat(257);

export async function listObjects(context: S3Context): Promise<S3Response> {
  const { params } = context.request;
  const encode = keyEncoder(context);
  const marker = params.get('marker') || undefined;
  const { page, prefix, delimiter, maxKeys, last } = await listPageV1(context, marker);
  return xmlResponse('ListBucketResult', {
    Name: context.request.bucket!,
    // Version 1 answers the prefix as given, even with encoding-type=url (S3 does; clients decode
    // Marker, NextMarker, Delimiter and keys, not the prefix).
    Prefix: prefix,
    Marker: encode(marker ?? ''),
    NextMarker: page.truncated && delimiter !== undefined && last !== undefined ? encode(last) : undefined,
    MaxKeys: maxKeys,
    Delimiter: delimiter === undefined ? undefined : encode(delimiter),
    EncodingType: params.get('encoding-type'),
    IsTruncated: page.truncated,
    Contents: page.objects.map((object) => ({
      Key: encode(object.key),
      ...listedFields(object),
      Owner: OWNER,
    })),
    CommonPrefixes: page.delimitedPrefixes.map((p) => ({ Prefix: encode(p) })),
  });
}

/**
 * ListObjectVersions. Buckets here keep no versions (as on the platform), so this is S3's answer
 * for a bucket that never had versioning: every object once, as its latest version, id `null`.
 */
export async function listObjectVersions(context: S3Context): Promise<S3Response> {
  const { params } = context.request;
  const encode = keyEncoder(context);
  const keyMarker = params.get('key-marker') || undefined;
  const versionIdMarker = params.get('version-id-marker');
  if (versionIdMarker && keyMarker === undefined) {
    throw invalidArgument('A version-id-marker cannot be specified without a key-marker.', 'version-id-marker', versionIdMarker);
  }
  const { page, prefix, delimiter, maxKeys, last } = await listPageV1(context, keyMarker);
  const lastIsKey = last !== undefined && last === page.objects[page.objects.length - 1]?.key;
  return xmlResponse('ListVersionsResult', {
    Name: context.request.bucket!,
    Prefix: encode(prefix),
    KeyMarker: encode(keyMarker ?? ''),
    VersionIdMarker: versionIdMarker ?? '',
    NextKeyMarker: page.truncated && last !== undefined ? encode(last) : undefined,
    NextVersionIdMarker: page.truncated && lastIsKey ? 'null' : undefined,
    MaxKeys: maxKeys,
    Delimiter: delimiter === undefined ? undefined : encode(delimiter),
    EncodingType: params.get('encoding-type'),
    IsTruncated: page.truncated,
    Version: page.objects.map((object) => ({
      Key: encode(object.key),
      VersionId: 'null',
      IsLatest: true,
      ...listedFields(object),
      Owner: OWNER,
    })),
    CommonPrefixes: page.delimitedPrefixes.map((p) => ({ Prefix: encode(p) })),
  });
}
