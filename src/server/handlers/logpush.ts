import type { Handlers } from '../http/operations';
import { badRequest } from '../http/errors';
import { requireZone } from './access';
import { checkLogpullOptions } from '../logpush/logpull-options';

export const logpushHandlers: Pick<Handlers, 'createLogpushJob'> = {
  async createLogpushJob(context) {
    const zone = await requireZone(context, context.params.zone_id);
    const body = context.body;
    const dataset = body.dataset ?? 'http_requests';
    const problems = checkLogpullOptions(body.logpull_options ?? null, dataset);
    if (problems.length > 0) throw badRequest(`logpull_options: ${problems.join('; ')}`);
    checkDestination(body.destination_conf);
    const job = await context.store.logpushJobs.create(zone.id, { ...body, dataset });
    const { kind: _kind, created_on: _created, ...result } = job;
    return { result };
  },
};

/** A destination is a URL with a scheme the push supports (storage buckets, HTTPS endpoints...). */
function checkDestination(destination: string): void {
  let url: URL;
  try {
    url = new URL(destination);
  } catch {
    throw badRequest(`destination_conf: "${destination}" is not a URL (e.g. s3://bucket/path?region=us-east-1)`);
  }
  const schemes = ['s3:', 'r2:', 'gs:', 'azure:', 'https:', 'sumo:', 'splunk:', 'datadog:', 'newrelic:'];
  if (!schemes.includes(url.protocol)) {
    throw badRequest(`destination_conf: scheme ${url.protocol.replace(':', '')} is not supported (one of ${schemes.map((s) => s.replace(':', '')).join(', ')})`);
  }
}
