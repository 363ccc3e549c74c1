import { CUSTOM_FIELD_GROUPS, HTTP_REQUESTS_FIELDS } from './http-requests-fields';

const timestampFormats = ['rfc3339', 'unix', 'unixnano'];
const knownFields = new Set<string>(HTTP_REQUESTS_FIELDS);

/**
 * Problems with a job's `logpull_options` (`fields=<names>&timestamps=rfc3339`), or none.
 * Field names are checked against the dataset where this service knows its fields.
 */
export function checkLogpullOptions(options: string | null, dataset: string): string[] {
  if (options === null || options === '') return [];
  const problems: string[] = [];
  const params = new URLSearchParams(options);
  for (const key of new Set(params.keys())) {
    if (key !== 'fields' && key !== 'timestamps' && key !== 'sample') problems.push(`unknown option "${key}" (expected fields, timestamps, sample)`);
    if (params.getAll(key).length > 1) problems.push(`option "${key}" is given more than once`);
  }
  const fields = params.get('fields');
  if (fields === null || fields === '') problems.push('fields must list at least one field: fields=<comma separated names>&timestamps=rfc3339');
  problems.push(...checkFieldNames(fields ? fields.split(',') : [], dataset));
  const timestamps = params.get('timestamps');
  if (timestamps !== null && !timestampFormats.includes(timestamps)) {
    problems.push(`timestamps must be one of ${timestampFormats.join(', ')}, not "${timestamps}"`);
  }
  const sample = params.get('sample');
  if (sample !== null && !(Number(sample) > 0 && Number(sample) <= 1)) problems.push(`sample must be a number in (0, 1], not "${sample}"`);
  return problems;
}

/** Problems with a list of field names of `dataset`: repeated, unknown to it, or not names at all. */
export function checkFieldNames(fields: readonly string[], dataset: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field)) problems.push(`field ${field} is listed twice`);
    seen.add(field);
    if (dataset === 'http_requests') {
      if (!knownFields.has(field)) problems.push(`${field || '(empty)'} is not a field of the http_requests dataset`);
    } else if ((CUSTOM_FIELD_GROUPS as readonly string[]).includes(field)) {
      problems.push(`${field} carries custom fields, which only the http_requests dataset has`);
    } else if (!/^[A-Z][A-Za-z0-9]*$/.test(field)) {
      problems.push(`"${field}" is not a field name`);
    }
  }
  return problems;
}
