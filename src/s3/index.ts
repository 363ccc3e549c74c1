/**
 * An S3-compatible endpoint over the buckets of a data directory: a second front door onto the
 * bucket runtime, beside the worker host, sharing its storage (an object written through one is
 * readable through the other at once, across processes).
 *
 * - `startS3Server({ accessKeys, dataDir, port, hostname, publicRead, region, runtime, tls })` serves
 *   path-style requests (`http://host:port/<bucket>/<key>`, or `https://` with `tls`) signed with
 *   AWS Signature Version 4 (Authorization header or presigned query), answering S3's XML and
 *   errors.
 * - Customer-provided keys (SSE-C, `customer-keys.ts`) on the object and multipart operations;
 *   taken over TLS, or over plain HTTP from this machine only.
 * - `loadAccessKeys(environment, credentialsFile?)`: the keys from `S3_ACCESS_KEY_ID` /
 *   `S3_SECRET_ACCESS_KEY` and/or a file of `ACCESS_KEY_ID=secret` lines; `S3ConfigError`
 *   when they cannot be used.
 * - Operations: ListBuckets, HeadBucket, CreateBucket, DeleteBucket, GetBucketLocation,
 *   ListObjects (version 1) and ListObjectsV2, HeadObject, GetObject, PutObject, CopyObject,
 *   DeleteObject, DeleteObjects, CreateMultipartUpload, UploadPart, UploadPartCopy, ListParts,
 *   ListMultipartUploads, CompleteMultipartUpload, AbortMultipartUpload. Others answer
 *   NotImplemented.
 * - Temporary credentials issued by the management API (`temporary-credentials.ts`): the session
 *   token's seal, scope and expiry are checked; nothing is stored.
 * - CORS from the bucket's rules (`cors.ts`): preflights answered, headers added to answers.
 * - `account` picks whose buckets are served (names are per account).
 * - `checkS3FaultRules(list, source)`: fault rules checked as the endpoint installs them, before it starts.
 */
export { ACCESS_KEY_ID_VARIABLE, loadAccessKeys, S3ConfigError, SECRET_ACCESS_KEY_VARIABLE } from './access-keys';
export { checkS3FaultRules } from './faults';
export { DEFAULT_S3_PORT, startS3Server, type RunningS3Server, type S3ServerOptions } from './server';
export type { AccessKeys } from './sigv4';
