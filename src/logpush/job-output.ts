/**
 * What a job's entries hold and how they are written: the fields it selects, in order, the
 * timestamp format, the share of requests logged, and the record and batch framing. From its
 * `output_options` when it has them (the platform then ignores `logpull_options`), else from
 * `logpull_options` (`fields=RayID,ClientIP&timestamps=rfc3339&sample=0.1`), written as
 * newline-delimited JSON. The server checked both when the job was written.
 */
import type { LogpushJob } from '../store';

export const TIMESTAMP_FORMATS = ['rfc3339', 'unix', 'unixnano'] as const;
export type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];

/** The structured options of a job, as the API takes them (every key optional). */
export interface OutputOptions {
  field_names?: string[];
  output_type?: 'ndjson' | 'csv';
  timestamp_format?: TimestampFormat;
  sample_rate?: number;
  batch_prefix?: string | null;
  batch_suffix?: string | null;
  record_prefix?: string | null;
  record_suffix?: string | null;
  record_delimiter?: string | null;
  field_delimiter?: string | null;
  record_template?: string | null;
  'CVE-2021-44228'?: boolean;
}

export interface JobOutput {
  fields: string[];
  timestamps: TimestampFormat;
  /** The share of requests logged, in (0, 1]. */
  sampleRate: number;
  format: RecordFormat;
}

export interface RecordFormat {
  type: 'ndjson' | 'csv';
  batchPrefix: string;
  batchSuffix: string;
  recordPrefix: string;
  recordSuffix: string;
  recordDelimiter: string;
  fieldDelimiter: string;
  /** `{{.Field}}` placeholders filled with each field's value instead of the framing above. */
  template: string | null;
  /** Every `${` of a file becomes `x{` (the platform's Log4Shell guard). */
  cve202144228: boolean;
}

/** The platform's defaults per output type. */
const DEFAULTS: Record<RecordFormat['type'], Omit<RecordFormat, 'type' | 'template' | 'cve202144228'>> = {
  ndjson: { batchPrefix: '', batchSuffix: '', recordPrefix: '{', recordSuffix: '}\n', recordDelimiter: '', fieldDelimiter: ',' },
  csv: { batchPrefix: '', batchSuffix: '', recordPrefix: '', recordSuffix: '\n', recordDelimiter: '', fieldDelimiter: ',' },
};

export function jobOutput(job: Pick<LogpushJob, 'logpull_options'> & { output_options?: OutputOptions | null }): JobOutput {
  const options = job.output_options;
  if (options) {
    const type = options.output_type ?? 'ndjson';
    const defaults = DEFAULTS[type];
    const sample = options.sample_rate ?? 1;
    return {
      fields: [...(options.field_names ?? [])],
      timestamps: options.timestamp_format ?? 'unixnano',
      sampleRate: sample > 0 && sample <= 1 ? sample : 1,
      format: {
        type,
        batchPrefix: options.batch_prefix ?? defaults.batchPrefix,
        batchSuffix: options.batch_suffix ?? defaults.batchSuffix,
        recordPrefix: options.record_prefix ?? defaults.recordPrefix,
        recordSuffix: options.record_suffix ?? defaults.recordSuffix,
        recordDelimiter: options.record_delimiter ?? defaults.recordDelimiter,
        fieldDelimiter: options.field_delimiter ?? defaults.fieldDelimiter,
        template: options.record_template ?? null,
        cve202144228: options['CVE-2021-44228'] ?? false,
      },
    };
  }
  const query = new URLSearchParams(job.logpull_options ?? '');
  const timestamps = query.get('timestamps');
  const sample = Number(query.get('sample') ?? '1');
  return {
    fields: (query.get('fields') ?? '').split(',').filter((name) => name !== ''),
    // Without the option, the platform writes nanoseconds since the epoch.
    timestamps: (TIMESTAMP_FORMATS as readonly string[]).includes(timestamps ?? '') ? (timestamps as TimestampFormat) : 'unixnano',
    sampleRate: sample > 0 && sample <= 1 ? sample : 1,
    format: { type: 'ndjson', ...DEFAULTS.ndjson, template: null, cve202144228: false },
  };
}

/** One record, framed as the job's format says (with its suffix; records are joined by the delimiter). */
export function formatRecord(format: RecordFormat, fields: readonly string[], entry: Readonly<Record<string, unknown>>): string {
  if (format.template !== null) {
    return format.template.replace(/\{\{\s*\.([A-Za-z][A-Za-z0-9]*)\s*\}\}/g, (_, name: string) => templateValue(entry[name]));
  }
  const values =
    format.type === 'ndjson'
      ? fields.map((name) => `${JSON.stringify(name)}:${JSON.stringify(entry[name] ?? null)}`)
      : fields.map((name) => csvValue(entry[name], format.fieldDelimiter));
  return `${format.recordPrefix}${values.join(format.fieldDelimiter)}${format.recordSuffix}`;
}

/** A batch's file content: its records joined, framed by the batch prefix and suffix. */
export function formatBatch(format: RecordFormat, records: readonly string[]): string {
  const text = `${format.batchPrefix}${records.join(format.recordDelimiter)}${format.batchSuffix}`;
  return format.cve202144228 ? text.replaceAll('${', 'x{') : text;
}

/** A template field the entry lacks reads null, as the platform documents. */
function templateValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A CSV value: objects as JSON, quoted when it holds the delimiter, a quote or a line break. */
function csvValue(value: unknown, delimiter: string): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
