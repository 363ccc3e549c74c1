import { notFound } from '../http/errors';
import type { Handlers } from '../http/operations';
import { checkJobFields } from '../logpush/job-checks';
import { toApiJob, updateJob } from '../logpush/job-updates';
import { requireZone } from './access';

export const logpushHandlers: Pick<Handlers, 'createLogpushJob' | 'listLogpushJobs' | 'getLogpushJob' | 'updateLogpushJob' | 'deleteLogpushJob'> = {
  async createLogpushJob(context) {
    const zone = await requireZone(context, context.params.zone_id);
    const body = context.body;
    const dataset = body.dataset ?? 'http_requests';
    checkJobFields({ logpull_options: body.logpull_options ?? null, destination_conf: body.destination_conf }, dataset);
    return { result: toApiJob(await context.store.logpushJobs.create(zone.id, { ...body, dataset })) };
  },

  async listLogpushJobs(context) {
    const zone = await requireZone(context, context.params.zone_id);
    return { result: (await context.store.logpushJobs.list(zone.id)).map(toApiJob) };
  },

  async getLogpushJob(context) {
    const zone = await requireZone(context, context.params.zone_id);
    const job = await context.store.logpushJobs.get(zone.id, context.params.job_id);
    if (!job) throw notFound(context.path);
    return { result: toApiJob(job) };
  },

  async updateLogpushJob(context) {
    const zone = await requireZone(context, context.params.zone_id);
    const job = await updateJob(context.store, (tx) => tx.logpushJobs, zone.id, context.params.job_id, context.body, context.path);
    return { result: toApiJob(job) };
  },

  async deleteLogpushJob(context) {
    const zone = await requireZone(context, context.params.zone_id);
    await context.store.logpushJobs.delete(zone.id, context.params.job_id);
    return { result: { id: context.params.job_id } };
  },
};
