/**
 * Log entries of the `http_requests` dataset and their delivery by log push jobs.
 *
 * - `logEntry(jobOutput(job), request)`: the entry of one request for a job: the fields it
 *   selects, in order, with the zone's custom fields (`customFieldValues`: first instance of a
 *   repeated header or cookie, 8 KB at most each).
 * - `logRequest(delivery, deployment, facts)`: a live request's entries, for each enabled job of
 *   its zone; `LogDelivery` batches them (ndjson, gzip) and writes them to the job's bucket
 *   (`r2://bucket/path/{DATE}?account-id=...&access-key-id=...&secret-access-key=...`, its S3
 *   credentials checked by `BucketCredentials`), recording each delivery on the job.
 * - `parseDestination(destination_conf)`: the bucket a job writes to, or a destination outside
 *   this platform (kept, reported failing).
 */
export { MAX_CUSTOM_FIELD_BYTES, customFieldValues, type CustomFieldValues } from './custom-fields';
export { LOG_DATASET, logEntry, type LiveFacts, type LogEntry, type LoggedRequest } from './log-entry';
export { TIMESTAMP_FORMATS, formatBatch, formatRecord, jobOutput, type JobOutput, type OutputOptions, type RecordFormat, type TimestampFormat } from './job-output';
export { BucketCredentials, DestinationError, describeDestination, parseDestination, type BucketDestination, type Destination } from './destination';
export { DEFAULT_UPLOAD_INTERVAL_MS, LogDelivery, objectKey, type DeliveryOptions } from './delivery';
export { logRequest, logsRequests } from './request-log';
