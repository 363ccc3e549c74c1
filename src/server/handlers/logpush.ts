import { notFound } from '../http/errors';
import type { Handlers } from '../operations';
import { checkDestinationReachable, checkJobFields } from '../logpush/job-checks';
import { toApiJob, updateJob } from '../logpush/job-updates';
import { accountOwners, zoneOwners, type OwnerKind, type TwinContext } from './owners';

/** Dataset of a zone job created without one (an account job always names its dataset). */
const DEFAULT_DATASET = 'http_requests';

/**
 * The log push jobs of a zone or an account (`owners`). Zone and account jobs share one id
 * sequence and never see each other: a zone job's id answers 404 under an account path, and an
 * account job's under a zone path.
 */
function jobOperations(owners: OwnerKind) {
  return {
    async create(context: TwinContext<'createLogpushJob', 'createAccountLogpushJob'>) {
      const owner = await owners.of(context);
      const body = context.body;
      const dataset = body.dataset ?? DEFAULT_DATASET;
      checkJobFields({ logpull_options: body.logpull_options ?? null, output_options: body.output_options, destination_conf: body.destination_conf }, dataset);
      await checkDestinationReachable(body.destination_conf, { credentials: context.bucketCredentials, buckets: context.buckets });
      return { result: toApiJob(await owners.logpushJobs(context.store).create(owner.id, { ...body, dataset })) };
    },

    async list(context: TwinContext<'listLogpushJobs', 'listAccountLogpushJobs'>) {
      const owner = await owners.of(context);
      return { result: (await owners.logpushJobs(context.store).list(owner.id)).map(toApiJob) };
    },

    async get(context: TwinContext<'getLogpushJob', 'getAccountLogpushJob'>) {
      const owner = await owners.of(context);
      const job = await owners.logpushJobs(context.store).get(owner.id, context.params.job_id);
      if (!job) throw notFound(context.path);
      return { result: toApiJob(job) };
    },

    async update(context: TwinContext<'updateLogpushJob', 'updateAccountLogpushJob'>) {
      const owner = await owners.of(context);
      const reachable = (destination: string) => checkDestinationReachable(destination, { credentials: context.bucketCredentials, buckets: context.buckets });
      const job = await updateJob(context.store, owners.logpushJobs, owner.id, context.params.job_id, context.body, context.path, reachable);
      return { result: toApiJob(job) };
    },

    async delete(context: TwinContext<'deleteLogpushJob', 'deleteAccountLogpushJob'>) {
      const owner = await owners.of(context);
      await owners.logpushJobs(context.store).delete(owner.id, context.params.job_id);
      return { result: { id: context.params.job_id } };
    },
  };
}

const zone = jobOperations(zoneOwners);
const account = jobOperations(accountOwners);

export const logpushHandlers: Pick<
  Handlers,
  | 'createLogpushJob'
  | 'listLogpushJobs'
  | 'getLogpushJob'
  | 'updateLogpushJob'
  | 'deleteLogpushJob'
  | 'createAccountLogpushJob'
  | 'listAccountLogpushJobs'
  | 'getAccountLogpushJob'
  | 'updateAccountLogpushJob'
  | 'deleteAccountLogpushJob'
> = {
  createLogpushJob: zone.create,
  listLogpushJobs: zone.list,
  getLogpushJob: zone.get,
  updateLogpushJob: zone.update,
  deleteLogpushJob: zone.delete,
  createAccountLogpushJob: account.create,
  listAccountLogpushJobs: account.list,
  getAccountLogpushJob: account.get,
  updateAccountLogpushJob: account.update,
  deleteAccountLogpushJob: account.delete,
};
