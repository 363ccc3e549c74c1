import { BucketCatalogueError, CatalogueCode, type BucketCatalogue } from '../../bucket';
import { type BucketCredentials, DestinationError, parseDestination } from '../../logpush';
import { Codes, badRequest } from '../http/errors';
import type { LogpushOutputOptions } from '../../store';
import { checkFieldNames, checkLogpullOptions } from './logpull-options';

const DESTINATION_SCHEMES = ['s3:', 'r2:', 'gs:', 'azure:', 'https:', 'sumo:', 'splunk:', 'datadog:', 'newrelic:'];

/**
 * The checks a job's fields get on creation and on update (only the fields sent): the
 * `logpull_options` and `output_options` against the job's dataset, the destination's form and scheme.
 */
export function checkJobFields(
  fields: { logpull_options?: string | null; output_options?: LogpushOutputOptions | null; destination_conf?: string },
  dataset: string,
): void {
  if (fields.logpull_options !== undefined) {
    const problems = checkLogpullOptions(fields.logpull_options, dataset);
    if (problems.length > 0) throw badRequest(`logpull_options: ${problems.join('; ')}`);
  }
  if (fields.output_options !== undefined && fields.output_options !== null) {
    const problems = checkOutputOptions(fields.output_options, dataset);
    if (problems.length > 0) throw badRequest(`output_options: ${problems.join('; ')}`);
  }
  if (fields.destination_conf !== undefined) checkDestination(fields.destination_conf);
}

/** A record template's placeholders: `{{.FieldName}}` only (the platform's Go template, its other constructs refused). */
const PLACEHOLDER = /\{\{\s*\.([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

/**
 * Problems with a job's `output_options` (their shape was checked against the schema): the field
 * names against the dataset (at least one), the record template's constructs.
 */
function checkOutputOptions(options: LogpushOutputOptions, dataset: string): string[] {
  const fields = options.field_names ?? [];
  const problems = fields.length === 0 ? ['field_names must list at least one field'] : checkFieldNames(fields, dataset).map((problem) => `field_names: ${problem}`);
  const template = options.record_template;
  if (template !== undefined && template !== null) {
    const rest = template.replace(PLACEHOLDER, '');
    if (rest.includes('{{') || rest.includes('}}')) {
      problems.push('record_template: only {{.FieldName}} placeholders are served (no other template actions)');
    }
  }
  return problems;
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

/**
 * A destination in one of this platform's buckets is checked as the platform checks it when a job
 * is written: its S3 credentials must be accepted and its bucket must exist (400, code 1002,
 * `error validating destination: ...`, never naming the secret). Destinations outside are taken
 * as they are; their deliveries are reported failing on the job.
 */
export async function checkDestinationReachable(destinationConf: string, where: { credentials: BucketCredentials | null; buckets: BucketCatalogue }): Promise<void> {
  let destination;
  try {
    destination = parseDestination(destinationConf);
  } catch (error) {
    if (error instanceof DestinationError) throw badRequest(`error validating destination: ${error.message}`, Codes.destinationInvalid);
    throw error;
  }
  if (destination.kind !== 'bucket') return;
  const refused = where.credentials === null ? 'this platform serves no S3 access keys (its S3 endpoint is off)' : where.credentials.problem(destination);
  if (refused !== null) throw badRequest(`error validating destination: access denied: ${refused}`, Codes.destinationInvalid);
  try {
    await where.buckets.account(destination.accountId).get(destination.bucket);
  } catch (error) {
    if (error instanceof BucketCatalogueError && (error.code === CatalogueCode.noSuchBucket || error.code === CatalogueCode.invalidName)) {
      throw badRequest(`error validating destination: bucket ${destination.bucket} does not exist in account ${destination.accountId}`, Codes.destinationInvalid);
    }
    throw error;
  }
}
