/**
 * What a job's entries hold and how: the fields it selects, in order, and the timestamp format,
 * from its `logpull_options` (`fields=RayID,ClientIP&timestamps=rfc3339&sample=0.1`). The server
 * checked the options when the job was written.
 */
import type { LogpushJob } from '../store';

export const TIMESTAMP_FORMATS = ['rfc3339', 'unix', 'unixnano'] as const;
export type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];

export interface JobOutput {
  fields: string[];
  timestamps: TimestampFormat;
  /** The share of requests logged, in (0, 1]. */
  sampleRate: number;
}

export function jobOutput(job: Pick<LogpushJob, 'logpull_options'>): JobOutput {
  const options = new URLSearchParams(job.logpull_options ?? '');
  const timestamps = options.get('timestamps');
  const sample = Number(options.get('sample') ?? '1');
  return {
    fields: (options.get('fields') ?? '').split(',').filter((name) => name !== ''),
    // Without the option, the platform writes nanoseconds since the epoch.
    timestamps: (TIMESTAMP_FORMATS as readonly string[]).includes(timestamps ?? '') ? (timestamps as TimestampFormat) : 'unixnano',
    sampleRate: sample > 0 && sample <= 1 ? sample : 1,
  };
}
