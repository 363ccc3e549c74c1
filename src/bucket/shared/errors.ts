/**
 * Storage errors of the bucket binding. Messages follow the platform: `"<operation>: <text> (<code>)"`,
 * with the numeric code also on `code`. Argument mistakes are plain `TypeError` / `RangeError`.
 * Engines report a storage deleted under a write with `StorageDeletedError`, which the runtime
 * answers as one of these.
 */

/** Operation names as they appear at the start of error messages. */
export type BucketAction =
  | 'head'
  | 'get'
  | 'put'
  | 'delete'
  | 'list'
  | 'createMultipartUpload'
  | 'uploadPart'
  | 'completeMultipartUpload'
  | 'abortMultipartUpload'
  | 'listMultipartUploads'
  | 'listParts';

const refusalMark = Symbol('conditional header refusal');

/**
 * The refusal of a conditional header (If-Match, If-None-Match) that is not an entity-tag list:
 * a plain Error, as the platform throws (not a TypeError, which worker code tells apart), marked
 * (non-enumerably) so that front doors such as the S3 endpoint can recognise it.
 */
export function conditionalHeaderRefusal(message: string): Error {
  const error = new Error(message);
  Object.defineProperty(error, refusalMark, { value: true });
  return error;
}

export function isConditionalHeaderRefusal(error: unknown): error is Error {
  return error instanceof Error && Object.hasOwn(error, refusalMark);
}

export class BucketError extends Error {
  override readonly name = 'BucketError';

  constructor(
    /** The operation that failed. */
    readonly action: BucketAction,
    /** The platform's error code. */
    readonly code: number,
    text: string,
    options?: ErrorOptions,
  ) {
    super(`${action}: ${text} (${code})`, options);
  }
}

export const ErrorCode = {
  internal: 10001,
  serviceUnavailable: 10043,
  noSuchBucket: 10006,
  entityTooSmall: 10011,
  metadataTooLarge: 10012,
  invalidObjectName: 10020,
  invalidMaxKeys: 10022,
  noSuchUpload: 10024,
  invalidPart: 10025,
  badDigest: 10037,
  invalidRange: 10039,
  invalidArgument: 10029,
  badUpload: 10048,
  entityTooLarge: 100100,
} as const;

/**
 * The engine's storage was deleted (its bucket deleted elsewhere) before a write could store
 * anything: nothing was stored. An engine shared with a catalogue that deletes buckets rejects a
 * write with this rather than store what no one could read; the runtime answers it as the
 * binding's "no such bucket" (10006).
 */
export class StorageDeletedError extends Error {
  override readonly name = 'StorageDeletedError';

  constructor(readonly storage: string) {
    super(`The bucket whose storage is ${storage} was deleted; nothing was stored.`);
  }
}

/**
 * The engine's storage could not be reached (its database restarting or stopped, the network
 * gone, a file failing to read or write), and the same call may succeed in a moment (a write
 * whose commit the outage cut may have been stored: the binding cannot know). Engines classify
 * their own failures into this (and `StorageFullError`); the runtime answers it as the binding's
 * 10043, and front doors as a 503 to retry.
 */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';

  constructor(
    /** Where the storage is: a directory, a database URL without its password. */
    readonly storage: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`The bucket storage ${storage} is unavailable: ${reason}.`, options);
  }
}

/**
 * The engine's storage had no room for a write (its file system or its database's disk full):
 * nothing was stored, and nothing half-written stays. Reads, lists and deletes go on, so that
 * space can be freed. Front doors answer it as insufficient storage (S3's 507).
 */
export class StorageFullError extends Error {
  override readonly name = 'StorageFullError';

  constructor(
    readonly storage: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`The bucket storage ${storage} is full: ${reason}.`, options);
  }
}

/**
 * The binding's answer to storage out of reach (10043, retry) or full (the internal error's code:
 * the platform's storage never fills, so it has none of its own for this), its message saying
 * which and what to do; undefined for any other error. Also for callers outside a binding call
 * (a bucket opened for one), which answer with the same code and words.
 */
export function storageTroubleAnswer(error: unknown): { code: number; message: string } | undefined {
  if (error instanceof StorageUnavailableError) {
    return { code: ErrorCode.serviceUnavailable, message: `The bucket's storage is temporarily unavailable (${error.reason}); retry in a moment.` };
  }
  if (error instanceof StorageFullError) {
    return { code: ErrorCode.internal, message: `There is no room left in the bucket's storage (${error.reason}); nothing was stored. Delete objects or free space, then retry.` };
  }
  return undefined;
}

/** The bucket was deleted while the call was on its way (see `StorageDeletedError`). */
export const noSuchBucket = (action: BucketAction) =>
  new BucketError(action, ErrorCode.noSuchBucket, 'The specified bucket does not exist.');

/**
 * Runs work of an engine for the binding's `action`: a storage deleted meanwhile is the binding's
 * "no such bucket"; a storage out of reach or full is the binding's error of that operation, its
 * message saying which and what to do (the engine's error is its `cause`).
 */
export async function storing<T>(action: BucketAction, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof StorageDeletedError) throw noSuchBucket(action);
    const trouble = storageTroubleAnswer(error);
    if (trouble) throw new BucketError(action, trouble.code, trouble.message, { cause: error });
    throw error;
  }
}

/**
 * The storage error behind `error` (itself, or its cause, as the binding's error carries it): what
 * front doors answer as 503 (out of reach) or 507 (full). Undefined for anything else.
 */
export function storageTroubleOf(error: unknown): StorageUnavailableError | StorageFullError | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    if (at instanceof StorageUnavailableError || at instanceof StorageFullError) return at;
  }
  return undefined;
}

/**
 * Makes each listed async method of `type` run as `storing` runs work, under the operation it
 * names: every call of the binding then answers storage out of reach or full as its own error,
 * whichever engine call inside it met that.
 */
export function storingEach<T extends object>(type: { prototype: T }, actions: Partial<Record<keyof T, BucketAction>>): void {
  const prototype = type.prototype as Record<string, unknown>;
  for (const [method, action] of Object.entries(actions) as [string, BucketAction][]) {
    const run = prototype[method] as (...args: unknown[]) => Promise<unknown>;
    prototype[method] = function (this: unknown, ...args: unknown[]) {
      return storing(action, () => run.apply(this, args));
    };
  }
}

export const invalidObjectName = (action: BucketAction) =>
  new BucketError(action, ErrorCode.invalidObjectName, 'The specified object name is not valid.');

export const metadataTooLarge = (action: BucketAction) =>
  new BucketError(
    action,
    ErrorCode.metadataTooLarge,
    'Your metadata headers exceed the maximum allowed metadata size.',
  );

export const entityTooLarge = (action: BucketAction) =>
  new BucketError(
    action,
    ErrorCode.entityTooLarge,
    'Your proposed upload exceeds the maximum allowed object size.',
  );

export const invalidMaxKeys = () =>
  new BucketError('list', ErrorCode.invalidMaxKeys, 'MaxKeys params must be positive integer <= 1000.');

export const invalidRange = () =>
  new BucketError('get', ErrorCode.invalidRange, 'The requested range is not satisfiable');

export const badDigest = (algorithm: string, expectedHex: string, actualHex: string) =>
  new BucketError(
    'put',
    ErrorCode.badDigest,
    [
      `The ${algorithm} checksum you specified did not match what we received.`,
      `You provided a ${algorithm} checksum with value: ${expectedHex}`,
      `Actual ${algorithm} was: ${actualHex}`,
    ].join('\n'),
  );

export const noSuchUpload = (action: BucketAction) =>
  new BucketError(action, ErrorCode.noSuchUpload, 'The specified multipart upload does not exist.');

export const unknownUpload = (action: BucketAction) =>
  new BucketError(
    action,
    ErrorCode.internal,
    'The upload id is not known for this key; use the id that createMultipartUpload returned for it.',
  );

export const duplicatePart = (partNumber: number) =>
  new BucketError(
    'completeMultipartUpload',
    ErrorCode.internal,
    `Part number ${partNumber} is listed more than once.`,
  );

export const invalidPart = (partNumber: number) =>
  new BucketError(
    'completeMultipartUpload',
    ErrorCode.invalidPart,
    `One or more of the specified parts could not be found. Part ${partNumber} was not uploaded or its etag is outdated.`,
  );

export const noSuchPart = (partNumber: number, count: number) =>
  new BucketError(
    'get',
    ErrorCode.invalidPart,
    `The object has ${count} part${count === 1 ? '' : 's'}; part ${partNumber} does not exist.`,
  );

export const entityTooSmall = (partNumber: number, size: number, minimum: number) =>
  new BucketError(
    'completeMultipartUpload',
    ErrorCode.entityTooSmall,
    `Your proposed upload is smaller than the minimum allowed object size. Part ${partNumber} has ${size} bytes; every part but the last needs at least ${minimum}.`,
  );

export const badUpload = (detail: string) =>
  new BucketError(
    'completeMultipartUpload',
    ErrorCode.badUpload,
    `There was a problem with the multipart upload. ${detail}`,
  );

/** Why a customer key (SSE-C) was refused. */
export type CustomerKeyReason = 'missing' | 'mismatch' | 'not-encrypted' | 'upload-missing' | 'upload-not-encrypted';

const CUSTOMER_KEY_TEXTS: Record<CustomerKeyReason, string> = {
  missing:
    'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.',
  mismatch: 'The provided encryption parameters did not match the ones used originally.',
  'not-encrypted': 'The encryption parameters are not applicable to this object.',
  'upload-missing':
    'The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.',
  'upload-not-encrypted': 'The multipart upload initiate did not request encryption: the encryption parameters are not applicable to its parts.',
};

/**
 * A customer key (SSE-C) that does not fit the object or upload: none for an encrypted one,
 * another key, or one for an object or upload stored without encryption. Nothing is read or
 * stored. The platform does not publish its codes for these: they carry InvalidArgument's.
 */
export class CustomerKeyError extends BucketError {
  constructor(
    action: BucketAction,
    readonly reason: CustomerKeyReason,
  ) {
    super(action, ErrorCode.invalidArgument, CUSTOMER_KEY_TEXTS[reason]);
  }
}

export const customerKeyRefusal = (action: BucketAction, reason: CustomerKeyReason) => new CustomerKeyError(action, reason);

/**
 * A rule of the platform's S3 interface that the binding never meets (its calls carry no S3
 * checksums, and a completion names no size): front doors answer it with the code `reason` names.
 */
export class ChecksumRuleError extends Error {
  override readonly name = 'ChecksumRuleError';

  constructor(
    /**
     * `mismatch`: a part's checksum of another algorithm than its upload's; `missing`: a completion
     * naming no checksum for a part; `order`: a completion whose parts are not numbered 1, 2, 3,
     * ...; `size`: a completion whose parts do not add up to the object size it names.
     */
    readonly reason: 'mismatch' | 'missing' | 'order' | 'size',
    message: string,
  ) {
    super(message);
  }
}
