/** Operations on one object: read, write, copy, delete, and deleting many. */
import { byteSource, bytesInMemory, CustomerKeyError, type OpenBucket, type StoredObject, type StoredObjectBody } from '../bucket';
import {
  checksumElements,
  checksumModeEnabled,
  checksumResponseHeaders,
  objectChecksum,
  requestedAlgorithmOf,
} from './checksum-headers';
import { conditionsOf, failedReadCondition, rangeOf, writeConditions } from './conditions';
import { customerKeyHeaders, customerKeyOf } from './customer-keys';
import {
  bodyOf,
  clientError,
  fromRequest,
  iso,
  keyOf,
  MAX_DOCUMENT_BYTES,
  openBucket,
  partNumberOf,
  xmlResponse,
  type S3Context,
  type S3Response,
} from './context';
import {
  invalidArgument,
  invalidRequest,
  malformedXml,
  noSuchKey,
  notImplemented,
  preconditionFailed,
  toS3Error,
} from './errors';
import { customMetadataOf, httpMetadataOf, objectHeaders } from './metadata-headers';
import { readSmallBody, storable, verifiedBody, WHOLE_BODY_BYTES, wholeBody } from './payload';
import { uriDecode } from './sigv4';
import { parseXmlBody } from './xml';
import type { ReadHeaders } from './request-headers';

/** Query parameters that override response headers of a GET, by the header they set. */
const RESPONSE_OVERRIDES = {
  'response-content-type': 'content-type',
  'response-content-language': 'content-language',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
  'response-cache-control': 'cache-control',
  'response-expires': 'expires',
} as const;

const MAX_DELETE_KEYS = 1000;
const MAX_KEY_BYTES = 1024;
/** The version id S3 gives objects of a bucket that never had versioning. */
export const NULL_VERSION = 'null';

function overridesOf(context: S3Context): Headers | undefined {
  let overrides: Headers | undefined;
  for (const [param, header] of Object.entries(RESPONSE_OVERRIDES)) {
    const value = context.request.params.get(param);
    if (value !== undefined) (overrides ??= new Headers()).set(header, value);
  }
  return overrides;
}

/**
 * The checksum a PutObject names in a header, kept with the object: the runtime stores one of
 * SHA-256 or SHA-1 (as the binding's `put` does) and checks it again. A value of the wrong size is
 * left to the endpoint's own check, which answers BadDigest.
 */
function keptChecksumOf(headers: ReadHeaders): { sha256: string } | { sha1: string } | Record<string, never> {
  for (const [name, field, bytes] of [
    ['x-amz-checksum-sha256', 'sha256', 32],
    ['x-amz-checksum-sha1', 'sha1', 20],
  ] as const) {
    const value = headers.get(name);
    const binary = value === null ? undefined : Buffer.from(value, 'base64');
    if (binary?.length === bytes) return { [field]: binary.toString('hex') } as { sha256: string } | { sha1: string };
  }
  return {};
}

/** With `x-amz-checksum-mode: ENABLED`, the checksum the object answers (see `objectChecksum`). */
function checksumHeaders(context: S3Context, bucket: OpenBucket, object: StoredObject): Record<string, string> {
  if (!checksumModeEnabled(context.request.headers)) return {};
  const checksum = objectChecksum(bucket, object);
  return checksum ? checksumResponseHeaders(checksum) : {};
}

/** A read whose conditions failed: 304 with the validators, or the 412 error. */
export function conditionFailed(conditions: Headers, object: StoredObject): S3Response {
  const outcome = failedReadCondition(conditions, object);
  if (outcome !== 'not-modified') throw outcome;
  return { status: 304, headers: { etag: object.httpEtag, 'last-modified': object.uploaded.toUTCString() } };
}


/** GET's answer: 206 with Content-Range whenever a range was asked for and served. */
async function served(object: StoredObjectBody, ranged: boolean): Promise<S3Response> {
  const headers = objectHeaders(object);
  const { offset, length } = (object.range as { offset: number; length: number } | undefined) ?? {
    offset: 0,
    length: object.size,
  };
  headers['content-length'] = String(length);
  // Small bodies are answered as one buffer (one write), larger ones streamed.
  const body = length <= WHOLE_BODY_BYTES ? await object.bytes() : object.body;
  if (!ranged) return { status: 200, headers, body };
  headers['content-range'] = `bytes ${offset}-${offset + length - 1}/${object.size}`;
  return { status: 206, headers, body };
}

/** The part of a `?partNumber=` read: the part's bytes (206 when the object has parts), its count. */
async function partRead(context: S3Context, head: boolean): Promise<S3Response> {
  const bucket = await openBucket(context);
  const key = keyOf(context);
  const { headers } = context.request;
  if (headers.has('range')) throw invalidRequest('Cannot specify both Range header and partNumber query parameter.');
  const partNumber = partNumberOf(context);
  const conditions = conditionsOf(headers);
  const httpMetadata = overridesOf(context);
  const ssecKey = customerKeyOf(context.request)?.toString('hex');
  const read = await fromRequest(() =>
    bucket.getPart(key, partNumber, {
      ...(conditions ? { onlyIf: conditions } : {}),
      ...(httpMetadata ? { httpMetadata } : {}),
      ...(ssecKey ? { ssecKey } : {}),
    }),
  );
  if (read === null) throw noSuchKey(key);
  const { object, partsCount } = read;
  if (!('body' in object)) return conditionFailed(conditions!, object);
  const response = await served(object, partsCount !== undefined);
  Object.assign(response.headers!, customerKeyHeaders(object), await expirationOf(context, object));
  if (partsCount !== undefined) response.headers!['x-amz-mp-parts-count'] = String(partsCount);
  if (read.checksum && checksumModeEnabled(headers)) Object.assign(response.headers!, checksumResponseHeaders(read.checksum));
  if (head && response.body instanceof ReadableStream) await response.body.cancel();
  return head ? { ...response, body: undefined } : response;
}

/**
 * GetObject, one path: the read's headers into the bucket's options, one call to the bucket (which
 * reads its engine once), the answer's headers from the object.
 */
export async function getObject(context: S3Context): Promise<S3Response> {
  if (context.request.params.has('partNumber')) return partRead(context, false);
  const key = keyOf(context);
  const { headers } = context.request;
  const conditions = conditionsOf(headers);
  const range = rangeOf(headers.get('range'));
  const httpMetadata = overridesOf(context);
  const ssecKey = customerKeyOf(context.request)?.toString('hex');
  const options = {
    ...(conditions ? { onlyIf: conditions } : {}),
    ...(range ? { range } : {}),
    ...(httpMetadata ? { httpMetadata } : {}),
    ...(ssecKey ? { ssecKey } : {}),
  };
  const { bucket, value: object } = await onLastFoundBucket(context, (bucket) => bucket.get(key, options), (object) => object !== null);
  if (object === null) throw noSuchKey(key);
  if (!('body' in object)) return conditionFailed(conditions!, object);
  const response = await served(object, range !== undefined);
  if (range === undefined) Object.assign(response.headers!, checksumHeaders(context, bucket, object));
  if (ssecKey) Object.assign(response.headers!, customerKeyHeaders(object));
  Object.assign(response.headers!, await expirationOf(context, object));
  return response;
}

export async function headObject(context: S3Context): Promise<S3Response> {
  if (context.request.params.has('partNumber')) return partRead(context, true);
  const key = keyOf(context);
  const conditions = conditionsOf(context.request.headers);
  const ssecKey = customerKeyOf(context.request)?.toString('hex');
  let bucket: OpenBucket;
  let object: StoredObject | StoredObjectBody | null;
  if (!conditions && !ssecKey) {
    ({ bucket, value: object } = await onLastFoundBucket(context, (bucket) => bucket.head(key), (object) => object !== null));
    if (object === null) throw noSuchKey(key);
    // The binding's head needs no key; S3's HEAD of an encrypted object does, as its GET.
    if (object.ssecKeyMd5 !== undefined) throw new CustomerKeyError('head', 'missing');
  } else {
    const options = { ...(conditions ? { onlyIf: conditions } : {}), ...(ssecKey ? { ssecKey } : {}) };
    ({ bucket, value: object } = await onLastFoundBucket(context, (bucket) => bucket.get(key, options), (object) => object !== null));
    if (object === null) throw noSuchKey(key);
    if (!('body' in object)) return conditionFailed(conditions!, object);
    await object.body.cancel();
  }
  return {
    status: 200,
    headers: {
      ...objectHeaders(object),
      ...checksumHeaders(context, bucket, object),
      ...(ssecKey ? customerKeyHeaders(object) : {}),
      ...(await expirationOf(context, object)),
      'content-length': String(object.size),
    },
  };
}

/**
 * Runs one call of the bucket runtime on the request's bucket as the catalogue last found it,
 * without the check that it still exists (a `stat`, as dear as the read itself), when the outcome
 * tells whether that check could matter (see `AccountBuckets.lastFound`): an outcome `settled`
 * accepts (an object read) is final; one it does not (nothing found) or NoSuchBucket (a write
 * refused: the bucket was deleted since) is checked, and the call runs again on the bucket found
 * now when it is another one (deleted and created again by another process). So the call may run
 * twice: only reads, and writes whose body is in memory, are run this way. A bucket not found
 * before is checked first. Arguments the runtime refuses are the client's (see `clientError`).
 */
async function onLastFoundBucket<T>(
  context: S3Context,
  call: (bucket: OpenBucket) => Promise<T>,
  settled: (value: T) => boolean,
): Promise<{ bucket: OpenBucket; value: T }> {
  const run = (bucket: OpenBucket) =>
    call(bucket).then(
      (value) => ({ bucket, value }),
      (error: unknown) => Promise.reject(clientError(error)),
    );
  const known = context.catalogue.lastFound(context.request.bucket!);
  if (known === undefined) return run(await openBucket(context));
  let outcome: { bucket: OpenBucket; value: T } | { error: unknown };
  try {
    outcome = await run(known);
    if (settled(outcome.value)) return outcome;
  } catch (error) {
    if (toS3Error(error)?.code !== 'NoSuchBucket') throw error;
    outcome = { error };
  }
  const current = await openBucket(context);
  if (current !== known) return run(current);
  if ('error' in outcome) throw outcome.error;
  return outcome;
}

/** A write refused by its conditions: 412, naming the header that failed. */
function writeRefused(conditions: Headers | undefined): never {
  throw preconditionFailed(conditions!.has('if-match') ? 'If-Match' : 'If-None-Match');
}

/** The headers of a PutObject's answer. */
async function putAnswer(context: S3Context, stored: StoredObject, checksums: Record<string, string>): Promise<Record<string, string>> {
  return { etag: stored.httpEtag, ...checksums, ...customerKeyHeaders(stored), ...(await expirationOf(context, stored)) };
}

/** `x-amz-expiration` for an object of the request's bucket, when its lifecycle rules delete it. */
export const expirationOf = (context: S3Context, object: StoredObject) =>
  context.expirations.of(context.request.bucket!, object.key, object.uploaded);

/**
 * PutObject, one path: the write's headers into the bucket's options, the body verified as it
 * arrives (payload.ts) and handed on in that one form (a ByteSource), one call to the bucket,
 * which calls its engine once.
 */
export async function putObject(context: S3Context): Promise<S3Response> {
  const { headers } = context.request;
  const key = keyOf(context);
  // A bucket not found before is checked first: NoSuchBucket before the body is read.
  const checked = context.catalogue.lastFound(context.request.bucket!) ? undefined : await openBucket(context);
  const ssecKey = customerKeyOf(context.request)?.toString('hex');
  const body = verifiedBody(context.request, context.signer);
  const conditions = writeConditions(headers);
  const options = {
    httpMetadata: httpMetadataOf(headers),
    customMetadata: customMetadataOf(headers),
    ...keptChecksumOf(headers),
    ...(body.checksum ? { checksum: body.checksum } : {}),
    ...(ssecKey ? { ssecKey } : {}),
    ...(conditions ? { onlyIf: conditions } : {}),
  };
  let stored: StoredObject | null;
  // A small body is read whole first, unless conditions could refuse it unread (412 before a
  // bad body's own error, as with a streamed body). In memory, it can be stored again in the
  // bucket created since, should the bucket last found be refused as deleted.
  if (conditions === undefined && body.knownSize !== undefined && body.knownSize <= WHOLE_BODY_BYTES) {
    const bytes = await wholeBody(body);
    ({ value: stored } = await onLastFoundBucket(context, (bucket) => bucket.putWith(key, bytesInMemory(bytes), options), () => true));
  } else {
    // A streamed body cannot be sent again: its bucket is checked before it is read.
    const bucket = checked ?? (await openBucket(context));
    stored = await fromRequest(() => bucket.putWith(key, storable(body), options));
  }
  if (stored === null) writeRefused(conditions);
  return { status: 200, headers: await putAnswer(context, stored, body.checksums()) };
}

/** The bucket and key of `x-amz-copy-source` (`[/]<bucket>/<key>`, URL-encoded). */
export function copySourceOf(context: S3Context): { bucket: string; key: string } {
  const header = context.request.headers.get('x-amz-copy-source')!;
  const [path, query] = header.split('?', 2) as [string, string?];
  if (query !== undefined && query !== '' && query !== `versionId=${NULL_VERSION}`) {
    throw invalidArgument('Invalid version id specified: objects here have only version null.', 'x-amz-copy-source', header);
  }
  const text = uriDecode(path.replace(/^\//, ''));
  const slash = text?.indexOf('/') ?? -1;
  if (text === null || slash <= 0 || slash === text.length - 1) {
    throw invalidArgument('x-amz-copy-source must read <bucket>/<key>, URL-encoded.', 'x-amz-copy-source', header);
  }
  return { bucket: text.slice(0, slash), key: text.slice(slash + 1) };
}

/**
 * Reads the copy source under its `x-amz-copy-source-if-*` conditions (412 when they fail), with
 * the key its `x-amz-copy-source-server-side-encryption-customer-*` headers name.
 */
export async function readCopySource(
  context: S3Context,
  range?: { offset: number; length: number },
): Promise<StoredObjectBody> {
  const source = copySourceOf(context);
  const ssecKey = customerKeyOf(context.request, 'x-amz-copy-source-')?.toString('hex');
  const bucket = await openBucket(context, source.bucket);
  const conditions = conditionsOf(context.request.headers, 'x-amz-copy-source-');
  const object = await fromRequest(() =>
    bucket.get(source.key, {
      ...(conditions ? { onlyIf: conditions } : {}),
      ...(range ? { range } : {}),
      ...(ssecKey ? { ssecKey } : {}),
    }),
  );
  if (object === null) throw noSuchKey(source.key);
  if (!('body' in object)) throw preconditionFailed('x-amz-copy-source-If-*');
  return object;
}

/**
 * CopyObject, with S3's checksum rule: the copy gets a checksum of the algorithm
 * `x-amz-checksum-algorithm` names, else of the source's algorithm when the source has one,
 * computed over the bytes copied (the copy is one part: a FULL_OBJECT checksum).
 */
export async function copyObject(context: S3Context): Promise<S3Response> {
  const { headers } = context.request;
  const directive = (headers.get('x-amz-metadata-directive') ?? 'COPY').toUpperCase();
  if (directive !== 'COPY' && directive !== 'REPLACE') {
    throw invalidArgument('x-amz-metadata-directive must be COPY or REPLACE.', 'x-amz-metadata-directive', directive);
  }
  const requested = requestedAlgorithmOf(headers);
  const source = copySourceOf(context);
  const key = keyOf(context);
  const ssecKey = customerKeyOf(context.request)?.toString('hex');
  // A copy onto itself is allowed when it changes the object's encryption, as S3 allows it.
  const changesEncryption = ssecKey !== undefined || customerKeyOf(context.request, 'x-amz-copy-source-') !== undefined;
  if (directive === 'COPY' && source.bucket === context.request.bucket && source.key === key && !changesEncryption) {
    throw invalidRequest(
      "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata. Use x-amz-metadata-directive: REPLACE.",
    );
  }
  const bucket = await openBucket(context);
  const object = await readCopySource(context);
  let stored;
  try {
    const metadata =
      directive === 'COPY'
        ? { httpMetadata: object.httpMetadata ?? {}, customMetadata: object.customMetadata ?? {} }
        : { httpMetadata: httpMetadataOf(headers), customMetadata: customMetadataOf(headers) };
    const algorithm = requested ?? objectChecksum(bucket, object)?.algorithm;
    const options = { ...metadata, ...(algorithm ? { checksum: { algorithm } } : {}), ...(ssecKey ? { ssecKey } : {}) };
    const conditions = writeConditions(headers);
    stored = await fromRequest(() =>
      bucket.putWith(key, byteSource(object.body, true), conditions ? { ...options, onlyIf: conditions } : options),
    );
    if (stored === null) writeRefused(conditions);
  } finally {
    if (!object.bodyUsed) await object.body.cancel();
  }
  const response = xmlResponse('CopyObjectResult', {
    LastModified: iso(stored.uploaded),
    ETag: stored.httpEtag,
    ...checksumElements(objectChecksum(bucket, stored)),
  });
  Object.assign(response.headers!, customerKeyHeaders(stored), await expirationOf(context, stored));
  return response;
}

export async function deleteObject(context: S3Context): Promise<S3Response> {
  const bucket = await openBucket(context);
  await fromRequest(() => bucket.delete(keyOf(context)));
  return { status: 204 };
}

/** The keys of a Delete document: at most 1000 `Object` elements, each with a `Key`. */
interface DeleteEntry {
  key: string;
  /** `null` (the one version objects here have) when the document names it. */
  versionId?: string;
}

function keysToDelete(document: Record<string, unknown>): { entries: DeleteEntry[]; quiet: boolean } {
  const objects = (document.Object ?? []) as unknown[];
  if (objects.length === 0) throw malformedXml('a Delete document needs at least one Object.');
  if (objects.length > MAX_DELETE_KEYS)
    throw malformedXml(`a Delete document names at most ${MAX_DELETE_KEYS} objects, not ${objects.length}.`);
  const entries = objects.map((object, index) => {
    const { Key, VersionId } = (object ?? {}) as { Key?: unknown; VersionId?: unknown };
    if (typeof Key !== 'string') throw malformedXml(`Object ${index + 1} has no Key.`);
    return typeof VersionId === 'string' ? { key: Key, versionId: VersionId } : { key: Key };
  });
  const quiet = String(document.Quiet ?? 'false')
    .trim()
    .toLowerCase();
  if (quiet !== 'true' && quiet !== 'false')
    throw malformedXml(`Quiet must be true or false, not ${JSON.stringify(document.Quiet)}.`);
  return { entries, quiet: quiet === 'true' };
}

/** Why one entry of a Delete document cannot be deleted, or undefined when it can. */
function refusalOf(entry: DeleteEntry): { Code: string; Message: string } | undefined {
  if (Buffer.byteLength(entry.key, 'utf8') > MAX_KEY_BYTES) {
    return { Code: 'KeyTooLongError', Message: 'Your key is too long: at most 1024 bytes of UTF-8.' };
  }
  if (entry.versionId !== undefined && entry.versionId !== NULL_VERSION) {
    return { Code: 'NoSuchVersion', Message: 'The specified version does not exist: objects here have only version null.' };
  }
  return undefined;
}

export async function deleteObjects(context: S3Context): Promise<S3Response> {
  const bucket = await openBucket(context);
  const { entries, quiet } = keysToDelete(
    parseXmlBody(await readSmallBody(bodyOf(context), MAX_DOCUMENT_BYTES), 'Delete'),
  );
  const valid = entries.filter((entry) => refusalOf(entry) === undefined);
  try {
    await fromRequest(() => bucket.delete(valid.map((entry) => entry.key)));
  } catch (error) {
    const s3 = toS3Error(error);
    if (!s3) throw error;
    return xmlResponse('DeleteResult', {
      Error: entries.map((entry) => ({ Key: entry.key, Code: s3.code, Message: s3.message })),
    });
  }
  return xmlResponse('DeleteResult', {
    Deleted: quiet ? undefined : valid.map((entry) => ({ Key: entry.key, VersionId: entry.versionId })),
    Error: entries.flatMap((entry) => {
      const refusal = refusalOf(entry);
      return refusal ? [{ Key: entry.key, VersionId: entry.versionId, ...refusal }] : [];
    }),
  });
}
