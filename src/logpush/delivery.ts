/**
 * Log push delivery: each enabled job's records gathered in batches (newline-delimited JSON, or
 * the job's output options, gzipped) and written to its destination at most `uploadIntervalMs` after a batch's first entry
 * (sooner when it is full), as files named by the batch's first and last times under the
 * destination's path, `{DATE}` expanded (`logs/20261121/20261121T100000Z_20261121T100003Z_
 * 9f86d081.log.gz`). How each delivery went is recorded on the job (`last_complete`, or
 * `last_error` and `error_message`). A delivery that fails is tried again at the next interval,
 * up to a bound; what is given up is said in the job's error message, never dropped silently.
 * `close()` writes every open batch (a SIGTERM loses nothing accepted); a killed process loses
 * the batches still open.
 */
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { BucketCatalogueError, type BucketCatalogue } from '../bucket';
import type { LogpushJob, Store } from '../store';
import { type BucketCredentials, type Destination, DestinationError, describeDestination, parseDestination } from './destination';
import { formatBatch, jobOutput } from './job-output';

const gzipAsync = promisify(gzip);

/** A batch is written this long after its first entry at the latest, unless told otherwise. */
export const DEFAULT_UPLOAD_INTERVAL_MS = 3_000;
/** The platform's smallest `max_upload_bytes`: a batch this large (uncompressed) is written at once. */
const MAX_BATCH_BYTES = 5_000_000;
/** The platform's default `max_upload_records`. */
const MAX_BATCH_RECORDS = 100_000;
/** Failed batches kept per job for another try; older ones are given up (and said so). */
const MAX_PENDING_BATCHES = 20;

export interface DeliveryOptions {
  store: Store;
  catalogue: BucketCatalogue;
  /** The S3 credentials this platform accepts; null when it serves no S3 keys (no bucket destination is reachable). */
  credentials: BucketCredentials | null;
  uploadIntervalMs?: number;
  /** Told about each failed delivery (the message never holds a secret). */
  onFailure?: (job: { id: number; zoneId: string }, message: string) => void;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

interface Batch {
  readonly job: LogpushJob;
  readonly zoneId: string;
  readonly records: string[];
  bytes: number;
  firstMs: number;
  lastMs: number;
  timer: NodeJS.Timeout | undefined;
  attempts: number;
}

export class LogDelivery {
  readonly #options: Required<Omit<DeliveryOptions, 'onFailure'>> & Pick<DeliveryOptions, 'onFailure'>;
  /** The batch taking entries, per job id. */
  readonly #open = new Map<number, Batch>();
  /** Batches whose delivery failed, per job id, oldest first. */
  readonly #pending = new Map<number, Batch[]>();
  readonly #writing = new Set<Promise<void>>();
  #closed = false;

  constructor(options: DeliveryOptions) {
    this.#options = { uploadIntervalMs: DEFAULT_UPLOAD_INTERVAL_MS, now: Date.now, ...options };
  }

  /** Takes one record of a zone's job (formatted as the job says), logged at `atMs`. */
  add(zoneId: string, job: LogpushJob, record: string, atMs: number): void {
    if (this.#closed) throw new Error('log delivery is closed');
    let batch = this.#open.get(job.id);
    // A job changed since its batch began (another destination, other fields or format) starts a new batch.
    if (batch !== undefined && (batch.job !== job || batch.zoneId !== zoneId)) {
      this.#seal(batch);
      batch = undefined;
    }
    if (batch === undefined) {
      batch = { job, zoneId, records: [], bytes: 0, firstMs: atMs, lastMs: atMs, timer: undefined, attempts: 0 };
      const opened = batch;
      batch.timer = setTimeout(() => this.#seal(opened), this.#options.uploadIntervalMs);
      this.#open.set(job.id, batch);
    }
    batch.records.push(record);
    batch.bytes += record.length;
    batch.lastMs = Math.max(batch.lastMs, atMs);
    if (batch.bytes >= MAX_BATCH_BYTES || batch.records.length >= MAX_BATCH_RECORDS) this.#seal(batch);
  }

  /** Writes every open batch and tries the failed ones again; resolves when all writes are done. */
  async flush(): Promise<void> {
    for (const batch of [...this.#open.values()]) this.#seal(batch);
    for (const [jobId, batches] of [...this.#pending]) {
      this.#pending.delete(jobId);
      for (const batch of batches) this.#write(batch);
    }
    while (this.#writing.size > 0) await Promise.all([...this.#writing]);
  }

  /** Writes what is open and stops taking entries. */
  async close(): Promise<void> {
    if (this.#closed) return;
    for (const batch of [...this.#open.values()]) this.#seal(batch);
    this.#closed = true;
    await this.flush();
  }

  /** Closes a batch to new entries and writes it. */
  #seal(batch: Batch): void {
    clearTimeout(batch.timer);
    if (this.#open.get(batch.job.id) === batch) this.#open.delete(batch.job.id);
    this.#write(batch);
  }

  #write(batch: Batch): void {
    const writing = this.#deliver(batch).finally(() => this.#writing.delete(writing));
    this.#writing.add(writing);
  }

  async #deliver(batch: Batch): Promise<void> {
    batch.attempts += 1;
    let error: string | null;
    let retry = false;
    try {
      error = await this.#upload(batch);
    } catch (failure) {
      error = `error uploading logs: ${failure instanceof Error ? failure.message : String(failure)}`;
    }
    if (error !== null) {
      const destination = tryParse(batch.job.destination_conf);
      retry = destination?.kind === 'bucket';
      if (!retry) error += `; ${batch.records.length} entries not delivered`;
      else if (this.#closed) error += `; ${batch.records.length} entries not delivered (the platform stopped)`;
    }
    if (error !== null && retry && !this.#closed) this.#keepForRetry(batch, (given) => (error = `${error}; ${given}`));
    await this.#record(batch, error);
  }

  /** Keeps a failed batch for the next interval; past the bound, gives up the oldest and says so. */
  #keepForRetry(batch: Batch, report: (given: string) => void): void {
    const pending = this.#pending.get(batch.job.id) ?? [];
    pending.push(batch);
    if (pending.length > MAX_PENDING_BATCHES) {
      const given = pending.shift()!;
      report(`${given.records.length} older entries given up after ${given.attempts} attempts`);
    }
    this.#pending.set(batch.job.id, pending);
    if (pending.length === 1) {
      setTimeout(() => {
        const again = this.#pending.get(batch.job.id);
        if (again === undefined || this.#closed) return;
        this.#pending.delete(batch.job.id);
        for (const waiting of again) this.#write(waiting);
      }, this.#options.uploadIntervalMs).unref();
    }
  }

  /** Writes the batch's file; answers why it could not, or null. */
  async #upload(batch: Batch): Promise<string | null> {
    let destination: Destination;
    try {
      destination = parseDestination(batch.job.destination_conf);
    } catch (error) {
      if (error instanceof DestinationError) return `error validating destination: ${error.message}`;
      throw error;
    }
    if (destination.kind === 'outside') {
      return `error uploading to ${describeDestination(destination)}: this platform delivers logs only to its own buckets (r2://)`;
    }
    const refused = this.#options.credentials === null ? 'this platform serves no S3 access keys' : this.#options.credentials.problem(destination);
    if (refused !== null) return `error validating destination ${describeDestination(destination)}: access denied: ${refused}`;
    const key = objectKey(destination.path, batch.firstMs, batch.lastMs);
    const body = await gzipAsync(Buffer.from(formatBatch(jobOutput(batch.job).format, batch.records)));
    try {
      const bucket = await this.#options.catalogue.account(destination.accountId).bucket(destination.bucket);
      await bucket.put(key, body);
    } catch (error) {
      if (error instanceof BucketCatalogueError) return `error uploading to ${describeDestination(destination)}: ${error.message}`;
      throw error;
    }
    return null;
  }

  async #record(batch: Batch, error: string | null): Promise<void> {
    if (error !== null) this.#options.onFailure?.({ id: batch.job.id, zoneId: batch.zoneId }, error);
    try {
      await this.#options.store.logpushJobs.recordDelivery(batch.zoneId, batch.job.id, { error });
    } catch (failure) {
      this.#options.onFailure?.({ id: batch.job.id, zoneId: batch.zoneId }, `cannot record the delivery: ${failure instanceof Error ? failure.message : String(failure)}`);
    }
  }
}

function tryParse(destinationConf: string): Destination | null {
  try {
    return parseDestination(destinationConf);
  } catch {
    return null;
  }
}

/** `<path with {DATE}>/<first>_<last>_<random>.log.gz`, times in UTC to the second (`20261121T100000Z`). */
export function objectKey(path: string, firstMs: number, lastMs: number): string {
  const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  const date = new Date(firstMs).toISOString().slice(0, 10).replace(/-/g, '');
  const folder = path.replaceAll('{DATE}', date);
  const name = `${stamp(firstMs)}_${stamp(lastMs)}_${randomBytes(4).toString('hex')}.log.gz`;
  return folder === '' ? name : `${folder}/${name}`;
}
