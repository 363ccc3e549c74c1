/**
 * Log entries of the `http_requests` dataset and their delivery by log push jobs.
 *
 * - `logEntry(jobOutput(job), request)`: the entry of one request for a job: the fields it
 *   selects, in order, with the zone's custom fields (`customFieldValues`: first instance of a
 *   repeated header or cookie, 8 KB at most each).
 */
export { MAX_CUSTOM_FIELD_BYTES, customFieldValues, type CustomFieldValues } from './custom-fields';
export { LOG_DATASET, logEntry, type LiveFacts, type LogEntry, type LoggedRequest } from './log-entry';
export { TIMESTAMP_FORMATS, jobOutput, type JobOutput, type TimestampFormat } from './job-output';
