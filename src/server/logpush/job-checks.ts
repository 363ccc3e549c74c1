import { badRequest } from '../http/errors';
import { checkLogpullOptions } from './logpull-options';

const DESTINATION_SCHEMES = ['s3:', 'r2:', 'gs:', 'azure:', 'https:', 'sumo:', 'splunk:', 'datadog:', 'newrelic:'];

/**
 * The checks a job's fields get on creation and on update (only the fields sent): the
 * `logpull_options` against the job's dataset, the destination's form and scheme.
 */
export function checkJobFields(fields: { logpull_options?: string | null; destination_conf?: string }, dataset: string): void {
  if (fields.logpull_options !== undefined) {
    const problems = checkLogpullOptions(fields.logpull_options, dataset);
    if (problems.length > 0) throw badRequest(`logpull_options: ${problems.join('; ')}`);
  }
  if (fields.destination_conf !== undefined) checkDestination(fields.destination_conf);
}

/** A destination is a URL with a scheme the push supports (storage buckets, HTTPS endpoints...). */
function checkDestination(destination: string): void {
  let url: URL;
  try {
    url = new URL(destination);
  } catch {
    throw badRequest(`destination_conf: "${destination}" is not a URL (e.g. s3://bucket/path?region=us-east-1)`);
  }
  if (!DESTINATION_SCHEMES.includes(url.protocol)) {
    const schemes = DESTINATION_SCHEMES.map((s) => s.replace(':', '')).join(', ');
    throw badRequest(`destination_conf: scheme ${url.protocol.replace(':', '')} is not supported (one of ${schemes})`);
  }
}
