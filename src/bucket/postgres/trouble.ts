import { isPostgresFull, isPostgresUnreachable, unreachableReason } from '../../postgres-outages';
import { healthOf } from '../../storage-health';
import { StorageFullError, StorageUnavailableError } from '../shared';

/** What pg-pool says when every connection stayed checked out for the whole connection timeout. */
const POOL_EXHAUSTED_MESSAGE = 'timeout exceeded when trying to connect';

/**
 * What a failure of the PostgreSQL engine means: the server out of reach or every connection busy
 * (try again in a moment), its disk full, or neither (the error as it was).
 */
export function postgresTrouble(error: unknown, location: string): unknown {
  if (isPostgresUnreachable(error)) return new StorageUnavailableError(location, unreachableReason(error), { cause: error });
  if (error instanceof Error && error.message === POOL_EXHAUSTED_MESSAGE) {
    return new StorageUnavailableError(location, 'every connection stayed busy for the whole connection timeout', { cause: error });
  }
  if (isPostgresFull(error)) {
    const reason = 'the database server has no space left on its disk';
    healthOf(location).full(reason);
    return new StorageFullError(location, reason, { cause: error });
  }
  return error;
}
