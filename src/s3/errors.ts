import { BucketCatalogueError, BucketError, ChecksumRuleError, CustomerKeyError, StorageFullError, storageTroubleOf } from '../bucket';

/** An S3 error: the code and status S3 clients act on, and a message naming what and where. */
export class S3Error extends Error {
  override readonly name = 'S3Error';

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    /** Extra elements of the error document (e.g. the range asked for). */
    readonly details: Record<string, string> = {},
    /** Extra headers of the answer (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const accessDenied = (message = 'Access Denied.') => new S3Error('AccessDenied', 403, message);
export const invalidArgument = (message: string, name?: string, value?: string) =>
  new S3Error(
    'InvalidArgument',
    400,
    message,
    name === undefined ? {} : { ArgumentName: name, ArgumentValue: value ?? '' },
  );
export const invalidRequest = (message: string) => new S3Error('InvalidRequest', 400, message);
export const malformedXml = (detail: string) =>
  new S3Error(
    'MalformedXML',
    400,
    `The XML you provided was not well-formed or did not validate against our published schema: ${detail}`,
  );
export const noSuchBucket = (bucket: string) =>
  new S3Error('NoSuchBucket', 404, `The specified bucket does not exist: ${bucket}.`, { BucketName: bucket });
export const noSuchKey = (key: string) =>
  new S3Error('NoSuchKey', 404, 'The specified key does not exist.', { Key: key });
export const noSuchUpload = () =>
  new S3Error(
    'NoSuchUpload',
    404,
    'The specified multipart upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
  );
export const preconditionFailed = (condition: string) =>
  new S3Error(
    'PreconditionFailed',
    412,
    `At least one of the pre-conditions you specified did not hold: ${condition}.`,
    {
      Condition: condition,
    },
  );
export const badDigest = (what: string) =>
  new S3Error('BadDigest', 400, `The ${what} you specified did not match the calculated checksum.`);
/** The answer to an OPTIONS request that is no complete CORS preflight, as S3 answers. */
export const preflightRefusal = (headers: { has(name: string): boolean }) =>
  headers.has('origin')
    ? new S3Error('AccessForbidden', 403, 'CORSResponse: This CORS request is not allowed: a preflight names its method in Access-Control-Request-Method.')
    : new S3Error('BadRequest', 400, 'Insufficient information. Origin request header needed.');
export const notImplemented = (what: string) =>
  new S3Error('NotImplemented', 501, `${what} is not implemented by this endpoint.`);

/** Seconds a client is asked to wait before trying a request the storage could not serve. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * Storage out of reach: S3's throttling answer, which the AWS SDKs retry with back-off (and which
 * costs their retry budget less than ServiceUnavailable), waiting what Retry-After says.
 */
export const storageUnavailable = (reason: string) =>
  new S3Error(
    'SlowDown',
    503,
    `Please reduce your request rate: the storage is temporarily unavailable (${reason}); retry in a moment.`,
    {},
    { 'retry-after': String(RETRY_AFTER_SECONDS) },
  );

/** Storage full: MinIO's answer to a full disk, which clients do not retry. */
export const insufficientStorage = (reason: string) =>
  new S3Error(
    'InsufficientStorage',
    507,
    `The storage is full: ${reason}. Nothing was stored; delete objects or free space, then retry.`,
  );

/** Storage codes of the bucket runtime, as S3 names them. */
const BUCKET_ERRORS: Record<number, [code: string, status: number]> = {
  10001: ['NoSuchUpload', 404],
  10006: ['NoSuchBucket', 404],
  10011: ['EntityTooSmall', 400],
  10012: ['MetadataTooLarge', 400],
  10020: ['KeyTooLongError', 400],
  10022: ['InvalidArgument', 400],
  10024: ['NoSuchUpload', 404],
  10025: ['InvalidPart', 400],
  10037: ['BadDigest', 400],
  10039: ['InvalidRange', 416],
  10048: ['InvalidPart', 400],
  100100: ['EntityTooLarge', 400],
};

const CATALOGUE_ERRORS: Record<number, [code: string, status: number]> = {
  10004: ['BucketAlreadyOwnedByYou', 409],
  10005: ['InvalidBucketName', 400],
  10006: ['NoSuchBucket', 404],
  10008: ['BucketNotEmpty', 409],
};

const customerKeyText = (error: BucketError) => error.message.replace(/^\w+: /, '').replace(/ \(\d+\)$/, '');

/**
 * The S3 error for a failure of the bucket runtime or the catalogue, or null when it is not one
 * they report (then it is an internal error).
 */
export function toS3Error(error: unknown): S3Error | null {
  if (error instanceof S3Error) return error;
  const trouble = storageTroubleOf(error);
  if (trouble instanceof StorageFullError) return insufficientStorage(trouble.reason);
  if (trouble) return storageUnavailable(trouble.reason);
  // A customer key that does not fit the object or upload: S3's InvalidRequest, as S3 words it.
  if (error instanceof CustomerKeyError) return new S3Error('InvalidRequest', 400, customerKeyText(error));
  if (error instanceof BucketError) {
    const [code, status] = BUCKET_ERRORS[error.code] ?? ['InternalError', 500];
    // The runtime's message without its "<operation>: " prefix and "(<code>)" suffix.
    const text = error.message.replace(/^\w+: /, '').replace(/ \(\d+\)$/, '');
    return new S3Error(code, status, text);
  }
  if (error instanceof ChecksumRuleError) {
    return new S3Error(error.reason === 'order' ? 'InvalidPartOrder' : 'InvalidRequest', 400, error.message);
  }
  if (error instanceof BucketCatalogueError) {
    const [code, status] = CATALOGUE_ERRORS[error.code] ?? ['InternalError', 500];
    return new S3Error(code, status, error.message);
  }
  return null;
}
