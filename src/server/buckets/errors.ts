/**
 * The bucket family's failures as the API answers them: the catalogue's and the runtime's
 * codes, with the real service's statuses (10004 and 10008 are 409, 10006 and 10007 are 404).
 */
import { BucketCatalogueError, BucketError, isConditionalHeaderRefusal, StorageFullError, storageTroubleOf } from '../../bucket';
import { ApiError, Codes, insufficientStorage, serviceUnavailable } from '../http/errors';

const CATALOGUE_STATUS: Record<number, number> = { 10004: 409, 10005: 400, 10006: 404, 10008: 409 };
/**
 * Runtime codes (storage errors) whose cause is the request: 400, 413 for a body too large, 404
 * for a bucket deleted while the request was on its way.
 */
const RUNTIME_STATUS: Record<number, number> = { 10006: 404, 10012: 400, 10020: 400, 10022: 400, 10037: 400, 10039: 416, 100100: 413 };

export const BucketCodes = { noSuchKey: 10007, noCorsPolicy: 10059 } as const;

/** The API's answer for a failure of the catalogue or the runtime; anything else as it is. */
export function asApiError(error: unknown): unknown {
  const trouble = storageTroubleOf(error);
  if (trouble instanceof StorageFullError) return insufficientStorage(`the bucket storage is full: ${trouble.reason}`);
  if (trouble) return serviceUnavailable(`the bucket storage cannot be reached (${trouble.reason})`);
  if (error instanceof BucketCatalogueError) {
    return ApiError.of(CATALOGUE_STATUS[error.code] ?? 500, error.code, error.message);
  }
  if (error instanceof BucketError) {
    const status = RUNTIME_STATUS[error.code];
    if (status === undefined) return error;
    const why = error.code === 10020 ? ': keys are at most 1024 bytes of UTF-8' : '';
    return ApiError.of(status, error.code, `${error.message}${why}`);
  }
  // The runtime refuses argument mistakes; here the arguments come from the request (a header).
  if (error instanceof TypeError || error instanceof RangeError || isConditionalHeaderRefusal(error)) {
    return ApiError.of(400, Codes.invalidRequest, error.message);
  }
  return error;
}

/** Runs a handler's work with the family's failures answered as the API answers them. */
export async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asApiError(error);
  }
}

export function noSuchKey(key: string): ApiError {
  return ApiError.of(404, BucketCodes.noSuchKey, `The specified key does not exist: ${key}.`);
}
