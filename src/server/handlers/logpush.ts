import type { components } from '../../../generated/api';
import type { LogpushJob } from '../../store';
import { notFound } from '../http/errors';
import type { Handlers } from '../http/operations';
import { checkJobFields } from '../logpush/job-checks';
import { requireZone } from './access';

/** A job as the API shows it: without what only the store keeps. */
function toApiJob({ kind: _kind, created_on: _created, ...job }: LogpushJob): components['schemas']['LogpushJob'] {
  return job;
}

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
    const { job_id } = context.params;
    const { ownership_challenge: _challenge, ...patch } = context.body;
    const job = await context.store.transaction(async (tx) => {
      const current = await tx.logpushJobs.get(zone.id, job_id);
      if (!current) throw notFound(context.path);
      checkJobFields(patch, current.dataset);
      return tx.logpushJobs.update(zone.id, job_id, patch);
    });
    return { result: toApiJob(job) };
  },

  async deleteLogpushJob(context) {
    const zone = await requireZone(context, context.params.zone_id);
    await context.store.logpushJobs.delete(zone.id, context.params.job_id);
    return { result: { id: context.params.job_id } };
  },
};
