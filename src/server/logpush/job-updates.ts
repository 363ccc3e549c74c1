import type { components } from '../../../generated/api';
import type { LogpushJob, LogpushJobRepository, Repositories, Store } from '../../store';
import { notFound } from '../http/errors';
import { checkJobFields } from './job-checks';

type JobUpdate = components['schemas']['LogpushJobUpdate'];

/** A job as the API shows it: without what only the store keeps. */
export function toApiJob({ kind: _kind, created_on: _created, ...job }: LogpushJob): components['schemas']['LogpushJob'] {
  return job;
}

/**
 * Updates the fields sent of an owner's job (zone or account, as `jobs` picks), checked
 * against the job's dataset read in the same transaction, a new destination by `checkDestination`;
 * 404 (on `path`) when the owner has no such job.
 */
export async function updateJob(
  store: Store,
  jobs: (repositories: Repositories) => LogpushJobRepository,
  ownerId: string,
  jobId: number,
  body: JobUpdate,
  path: string,
  checkDestination: (destinationConf: string) => Promise<void>,
): Promise<LogpushJob> {
  const { ownership_challenge: _challenge, ...patch } = body;
  return store.transaction(async (tx) => {
    const current = await jobs(tx).get(ownerId, jobId);
    if (!current) throw notFound(path);
    checkJobFields(patch, current.dataset);
    if (patch.destination_conf !== undefined) await checkDestination(patch.destination_conf);
    return jobs(tx).update(ownerId, jobId, patch);
  });
}
