/**
 * Request headers S3 defines for the operations the endpoint serves, which it does not serve: each
 * is refused as the platform refuses it (its S3 compatibility page marks them not implemented;
 * the answer is `NotImplemented`, 501, "Header '<name>' with value '<value>' not implemented", as
 * the platform words it), or a value is refused where only some values are served. Nothing a
 * client asks for is accepted and dropped: docs/s3-endpoint.md lists every header, served,
 * refused or ignored (only `x-amz-request-payer`, which the platform ignores too: nothing is
 * billed here).
 */
import type { OperationName } from './router';
import { S3Error } from './errors';
import type { ReadHeaders } from './request-headers';

/** The longest header value an error message repeats. */
const SHOWN_VALUE = 100;

const notImplemented = (name: string, value: string) =>
  new S3Error(
    'NotImplemented',
    501,
    `Header '${name}' with value '${value.length > SHOWN_VALUE ? `${value.slice(0, SHOWN_VALUE)}...` : value}' not implemented`,
  );

/** Refuses a header whatever its value. */
const refused = (name: string, value: string) => notImplemented(name, value);

/** A header some of whose values are served: a check answers the refusal of the others. */
type Check = (name: string, value: string) => S3Error | undefined;

/**
 * Canned ACLs: objects and buckets here are private to the account (the platform has no ACLs;
 * public access is a bucket setting), so `private`, and `bucket-owner-full-control` (one owner),
 * say what is true and are taken; any other grant is refused.
 */
const acl: Check = (name, value) =>
  value === 'private' || value === 'bucket-owner-full-control' ? undefined : notImplemented(name, value);

/** SSE-S3 (`AES256`) is what the platform does to every object; KMS is not implemented. */
const serverSideEncryption: Check = (name, value) => (value === 'AES256' ? undefined : notImplemented(name, value));

const STORAGE_CLASSES = new Set([
  'STANDARD',
  'REDUCED_REDUNDANCY',
  'STANDARD_IA',
  'ONEZONE_IA',
  'INTELLIGENT_TIERING',
  'GLACIER',
  'DEEP_ARCHIVE',
  'OUTPOSTS',
  'GLACIER_IR',
  'SNOW',
  'EXPRESS_ONEZONE',
]);

/**
 * Objects here are `STANDARD`. The platform also has Infrequent Access (`STANDARD_IA`), which this
 * endpoint does not store yet: refused as not implemented rather than stored as STANDARD. Any
 * other class is not the platform's: `InvalidStorageClass`, as it answers.
 */
const storageClass: Check = (name, value) => {
  if (value === 'STANDARD') return undefined;
  if (value === 'STANDARD_IA') return notImplemented(name, value);
  return new S3Error(
    'InvalidStorageClass',
    400,
    `The storage class you specified is not valid: ${name} ${STORAGE_CLASSES.has(value) ? 'names' : 'is'} ${value}; the platform stores STANDARD and STANDARD_IA.`,
    { StorageClassRequested: value },
  );
};

/** A bucket with object lock is not implemented; saying it has none is true. */
const objectLockEnabled: Check = (name, value) => (value.trim().toLowerCase() === 'false' ? undefined : notImplemented(name, value));

/** Without ACLs the bucket owner owns every object: `BucketOwnerEnforced` is true, other settings are not implemented. */
const objectOwnership: Check = (name, value) => (value === 'BucketOwnerEnforced' ? undefined : notImplemented(name, value));

type Rules = Readonly<Record<string, Check>>;

const BUCKET_OWNER: Rules = { 'x-amz-expected-bucket-owner': refused };
const SOURCE_BUCKET_OWNER: Rules = { 'x-amz-source-expected-bucket-owner': refused };
const GRANTS: Rules = {
  'x-amz-grant-full-control': refused,
  'x-amz-grant-read': refused,
  'x-amz-grant-read-acp': refused,
  'x-amz-grant-write': refused,
  'x-amz-grant-write-acp': refused,
};
/** What a write that makes an object may ask for beyond what is stored here. */
const OBJECT_WRITE: Rules = {
  ...BUCKET_OWNER,
  ...GRANTS,
  'x-amz-acl': acl,
  'x-amz-tagging': refused,
  'x-amz-website-redirect-location': refused,
  'x-amz-object-lock-mode': refused,
  'x-amz-object-lock-retain-until-date': refused,
  'x-amz-object-lock-legal-hold': refused,
  'x-amz-server-side-encryption': serverSideEncryption,
  'x-amz-server-side-encryption-aws-kms-key-id': refused,
  'x-amz-server-side-encryption-context': refused,
  'x-amz-server-side-encryption-bucket-key-enabled': refused,
  'x-amz-storage-class': storageClass,
};
const DELETE: Rules = { ...BUCKET_OWNER, 'x-amz-mfa': refused, 'x-amz-bypass-governance-retention': refused };

/** The headers refused, by operation; an operation not listed takes none beyond what it serves. */
const RULE_TABLE: Partial<Record<OperationName, Rules>> = {
  ListBuckets: {},
  HeadBucket: BUCKET_OWNER,
  CreateBucket: {
    ...BUCKET_OWNER,
    ...GRANTS,
    'x-amz-acl': acl,
    'x-amz-bucket-object-lock-enabled': objectLockEnabled,
    'x-amz-object-ownership': objectOwnership,
  },
  DeleteBucket: BUCKET_OWNER,
  GetBucketLocation: BUCKET_OWNER,
  ListObjects: BUCKET_OWNER,
  ListObjectsV2: BUCKET_OWNER,
  ListObjectVersions: BUCKET_OWNER,
  ListMultipartUploads: BUCKET_OWNER,
  HeadObject: BUCKET_OWNER,
  GetObject: BUCKET_OWNER,
  GetObjectAttributes: BUCKET_OWNER,
  PutObject: { ...OBJECT_WRITE, 'x-amz-write-offset-bytes': refused },
  CopyObject: { ...OBJECT_WRITE, ...SOURCE_BUCKET_OWNER, 'x-amz-tagging-directive': refused },
  DeleteObject: {
    ...DELETE,
    'if-match': refused,
    'x-amz-if-match-last-modified-time': refused,
    'x-amz-if-match-size': refused,
  },
  DeleteObjects: DELETE,
  CreateMultipartUpload: OBJECT_WRITE,
  UploadPart: { ...BUCKET_OWNER, 'x-amz-server-side-encryption': refused },
  UploadPartCopy: { ...BUCKET_OWNER, ...SOURCE_BUCKET_OWNER },
  ListParts: BUCKET_OWNER,
  CompleteMultipartUpload: BUCKET_OWNER,
  AbortMultipartUpload: { ...BUCKET_OWNER, 'x-amz-if-match-initiated-time': refused },
  GetBucketCors: BUCKET_OWNER,
  PutBucketCors: BUCKET_OWNER,
  DeleteBucketCors: BUCKET_OWNER,
  GetBucketLifecycleConfiguration: BUCKET_OWNER,
  PutBucketLifecycleConfiguration: { ...BUCKET_OWNER, 'x-amz-transition-default-minimum-object-size': refused },
  DeleteBucketLifecycle: BUCKET_OWNER,
  GetBucketEncryption: BUCKET_OWNER,
};

/** As maps: a header named like an Object property (`constructor`) is just a name. */
const RULES = new Map(Object.entries(RULE_TABLE).map(([operation, rules]) => [operation, new Map(Object.entries(rules))]));

/**
 * Refuses the first header of the request that the operation does not serve. `names` are the
 * request's header names, lower-case, as they came: a request's few headers are looked up in the
 * operation's rules, not the rules in the request.
 */
export function refuseUnservedHeaders(operation: OperationName, names: readonly string[], headers: ReadHeaders): void {
  const rules = RULES.get(operation);
  if (rules === undefined) return;
  for (const name of names) {
    const check = rules.get(name);
    if (check === undefined) continue;
    const refusal = check(name, headers.get(name) ?? '');
    if (refusal) throw refusal;
  }
}

/** The headers refused or checked for an operation (for documentation and tests). */
export const screenedHeaders = (operation: OperationName): string[] => [...(RULES.get(operation)?.keys() ?? [])];
