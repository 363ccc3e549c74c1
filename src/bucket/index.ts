/**
 * The bucket binding: the contract worker code is written against, and a durable runtime for it.
 *
 * Contract (`./contract.d.ts`): `Bucket` and its family, assignable to the edge platform's own
 * bucket typings.
 *
 * Runtime:
 * - `createBucket({ directory, ...options })` opens a bucket kept in a directory: metadata in
 *   SQLite (write-ahead log, flushed on commit), bodies as files flushed and renamed into place
 *   before their metadata commits. Crash-safe; several instances or processes on one directory
 *   stay strongly consistent. `close()` releases it.
 * - `createBucket({ engine: new MemoryEngine(), ...options })` keeps everything in memory (tests);
 *   buckets given the same engine share its objects.
 * - On PostgreSQL: `const buckets = await openPostgresBuckets({ connectionString })` (or `{ pool }`)
 *   opens a database's buckets for this process: one pool shared by all of them, the bucket
 *   tables migrated (schema `bucket_storage`; a database migrated by a newer version is refused
 *   with `BucketSchemaTooNewError`). `createBucket({ engine: buckets.storage(name), ...options })`
 *   then opens the bucket `name` (the same engine for the same name); any number of processes
 *   and machines may open one bucket and stay strongly consistent. `buckets.close()` releases
 *   the pool. Which buckets exist is the catalogue's business, not the engine's.
 * - Options (`RuntimeOptions`): `compatibilityDate` / `compatibilityFlags` (whether `list`
 *   honours `include`: from 2022-08-04 or with `r2_list_honor_include`; honoured when no date is
 *   given), `minimumPartSize` (5 MiB by default), `clock` (epoch milliseconds, for upload times
 *   and the lifecycle's expiries), `lifecycle` (the bucket's lifecycle rules: uploads aborted at
 *   their age, objects deleted; the platform's 7-day abort rule by default).
 * - Customer-provided keys (SSE-C), as the platform's typings declare them: `ssecKey` (64 lower-case
 *   hex characters or a 32-byte ArrayBuffer) on `put`, `get`, `createMultipartUpload` and
 *   `uploadPart`; the bytes are stored encrypted (AES-256-CTR, `ctr-cipher.ts`), the key never
 *   (`customer-key.ts`: a salted HMAC checks it); objects show `ssecKeyMd5`. A read without the
 *   key, with another or with one for a plain object is `CustomerKeyError` (10029).
 * - A ReadableStream is stored only when its length is known, as on the platform: the readable
 *   half of a `FixedLengthStream`, or a stream a host vouched for with `declareStreamLength`
 *   (an incoming request body with a Content-Length). Any other stream is a `TypeError`.
 * - Beyond the binding (`OwnerCalls`, for the S3 endpoint): `listMultipartUploads({ prefix })`
 *   and `listParts(key, uploadId)` show the uploads in progress and their stored parts;
 *   `getPart(key, partNumber)` reads an object part by part as it was uploaded;
 *   `completeUpload(key, uploadId, parts, { onlyIf, repeatable })` completes under conditions,
 *   and answers a repeated completion with the object it made.
 * - Storage failures reject with `BucketError` (`code`, `action`, message
 *   `"<operation>: <text> (<code>)"`); argument mistakes with `TypeError` / `RangeError`.
 *   Storage out of reach (a database restarting, failing files) is code 10043, the platform's
 *   ServiceUnavailable: nothing was done, retry in a moment; storage full is 10001 with a message
 *   saying so: nothing was stored, free space. Either carries the engine's `StorageUnavailableError`
 *   or `StorageFullError` as its `cause` (`storageTroubleOf` finds it), which catalogue calls
 *   reject with as they are. Reads, lists and deletes keep working while the storage is full.
 *
 * Catalogue, the one owner of bucket state (the management API, the worker host, the S3
 * endpoint and `npm run bucket` all go through it): `new BucketCatalogue(dataDir, options?)`
 * manages the buckets of every account of a data directory. Bucket names are per account; the
 * home account's buckets are `<dataDir>/buckets/<name>/` (the layout data directories always
 * had), any other account's `<dataDir>/accounts/<id>/buckets/<name>/`.
 * - `account(id?)`: that account's buckets (`AccountBuckets`): `create(name, {locationHint,
 *   jurisdiction, storageClass})`, `get`, `list({nameContains, startAfter, perPage, direction,
 *   cursor, jurisdiction})`, `setStorageClass`, `cors`/`setCors`, `lifecycle`/`setLifecycle`,
 *   `open(name, options?)` (an `OpenBucket` honouring the bucket's lifecycle rules), `delete`.
 * - `create`, `list`, `open`, `delete` on the catalogue itself act on the home account.
 * - `close()` releases the storage of every bucket opened.
 * Every change is atomic and visible to other processes at once. Names have 3 to 63 characters
 * of lower-case letters, digits and hyphens, neither starting nor ending with a hyphen. Failures
 * are `BucketCatalogueError` with the platform's codes: 10004 exists, 10005 invalid name, 10006
 * no such bucket, 10008 not empty. Where buckets are kept is a `CatalogueStorage` (the data
 * directory's by default).
 * - `await openBucketCatalogue({ dataDir, databaseUrl?, defaultAccount?, defaults?, pool? })`:
 *   the one way front doors open it. With a PostgreSQL URL the catalogue and every bucket's
 *   objects live in that database (schema `bucket_storage`, migrated at opening), shared by every
 *   process and machine given the same URL; without one, the data directory. A bad URL, a
 *   database out of reach or migrated by a newer version is a `BucketStorageError`.
 */
export type * from './contract';
export * from './catalogue';
export { corsRulesProblem, matchCorsRule, type CorsMethod, type CorsRule } from './settings';
export {
  DEFAULT_LIFECYCLE_RULES,
  lifecyclePolicy,
  lifecycleRulesProblem,
  type LifecycleAge,
  type LifecycleDate,
  type LifecycleRule,
  type LifecycleSource,
  type S3RuleForm,
} from './settings';
export {
  BucketError,
  ChecksumRuleError,
  CustomerKeyError,
  ErrorCode,
  isConditionalHeaderRefusal,
  StorageDeletedError,
  StorageFullError,
  StorageUnavailableError,
  storageTroubleAnswer,
  storageTroubleOf,
  type BucketAction,
  type CustomerKeyReason,
} from './shared';
export { declareStreamLength, FixedLengthStream, streamLength } from './objects';
export { byteSource, fixed as bytesInMemory, type ByteSource } from './objects';
export type { StoredPart, UploadInProgress, UploadInventory } from './listing';
export type { CompleteOptions, ObjectAttributes, OwnerCalls, PartRead } from './owner-calls';
export { MemoryEngine } from './engine';
export {
  CHECKSUM_ALGORITHMS,
  hashDigest,
  isChecksumAlgorithm,
  isChecksumValue,
  newDigest,
  uploadChecksumType,
  type ChecksumAlgorithm,
  type ChecksumClaim,
  type ChecksumType,
  type Digest,
  type FlexibleChecksum,
  type NamedPartChecksums,
  type UploadChecksum,
} from './checksums';
export { openPostgresBuckets, type PostgresBuckets, type PostgresBucketsOptions, type PostgresPool } from './postgres/buckets';
export { BucketSchemaTooNewError } from './postgres/errors';
export { createBucket, type BucketStorage, type OpenBucket } from './open';
export type { RuntimeOptions } from './settings';
export type {
  CustomerKeyCheck,
  EngineSnapshot,
  ObjectEncryption,
  ObjectRecord,
  PartRecord,
  SnapshotObject,
  SnapshotUpload,
  StorageEngine,
  UploadRecord,
} from './engine';
export {
  grantRefusal,
  issueTemporaryCredentials,
  openSessionToken,
  TemporaryCredentialsError,
  type ScopedAccess,
  type TemporaryCredentials,
  type TemporaryGrant,
  type TemporaryPermission,
} from './temporary-credentials';
