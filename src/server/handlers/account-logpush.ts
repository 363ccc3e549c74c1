import { notFound } from '../http/errors';
import type { Handlers } from '../http/operations';
import { checkJobFields } from '../logpush/job-checks';
import { toApiJob, updateJob } from '../logpush/job-updates';
import { requireAccount } from './access';

/**
 * Log push jobs of an account: the zone jobs' operations over the account's own jobs (a zone
 * job's id answers 404 here, and an account job's under a zone path).
 */
export const accountLogpushHandlers: Pick<
  Handlers,
  'createAccountLogpushJob' | 'listAccountLogpushJobs' | 'getAccountLogpushJob' | 'updateAccountLogpushJob' | 'deleteAccountLogpushJob'
> = {
  async createAccountLogpushJob(context) {
    const account = await requireAccount(context, context.params.account_id);
    const body = context.body;
    checkJobFields({ logpull_options: body.logpull_options ?? null, destination_conf: body.destination_conf }, body.dataset);
    return { result: toApiJob(await context.store.accountLogpushJobs.create(account.id, body)) };
  },

  async listAccountLogpushJobs(context) {
    const account = await requireAccount(context, context.params.account_id);
    return { result: (await context.store.accountLogpushJobs.list(account.id)).map(toApiJob) };
  },

  async getAccountLogpushJob(context) {
    const account = await requireAccount(context, context.params.account_id);
    const job = await context.store.accountLogpushJobs.get(account.id, context.params.job_id);
    if (!job) throw notFound(context.path);
    return { result: toApiJob(job) };
  },

  async updateAccountLogpushJob(context) {
    const account = await requireAccount(context, context.params.account_id);
    const { job_id } = context.params;
    const job = await updateJob(context.store, (tx) => tx.accountLogpushJobs, account.id, job_id, context.body, context.path);
    return { result: toApiJob(job) };
  },

  async deleteAccountLogpushJob(context) {
    const account = await requireAccount(context, context.params.account_id);
    await context.store.accountLogpushJobs.delete(account.id, context.params.job_id);
    return { result: { id: context.params.job_id } };
  },
};
