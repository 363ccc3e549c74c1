/**
 * Loading a state file into an empty place, all or nothing:
 * 1. the whole file is read and checked (format version, every record's shape and order, the
 *    end record's count and checksum) before anything is written: a newer, truncated or damaged
 *    file changes nothing;
 * 2. the place must be empty: no row in the store, no bucket in any account;
 * 3. the buckets are loaded (a second read of the file), then the store in one transaction (a
 *    third read, of its first records only). Should a step fail, the buckets it made are removed
 *    and the store's transaction rolls back.
 */
import { createHash } from 'node:crypto';
import {
  corsRulesProblem,
  HOME_ACCOUNT_ID,
  lifecycleRulesProblem,
  type CatalogueStorage,
  type CorsRule,
  type LifecycleRule,
  type PartRecord,
  type StorageEngine,
} from '../bucket';
import type { DumpEntry } from '../store';
import type { StatePlace, StateSummary } from './export';
import { StateFileError, StateReader, type ReadRecord } from './format';
import {
  checkRecord,
  type BucketStateRecord,
  type ObjectStateRecord,
  type PartStateRecord,
  type StoreCounterRecord,
  type StoreRowRecord,
  type StoreSchemaRecord,
  type UploadStateRecord,
} from './records';

/** The place already holds state: loading would merge two states, so nothing is loaded. */
export class StateTargetNotEmptyError extends Error {
  override readonly name = 'StateTargetNotEmptyError';
}

export async function importState(file: string, place: StatePlace): Promise<StateSummary> {
  const plan = await checkFile(file);
  await requireEmpty(place, plan.accounts);
  const made: { account: string; name: string }[] = [];
  try {
    await loadBuckets(file, place.buckets, made);
    await loadStore(file, place);
  } catch (error) {
    const left = await removeBuckets(place.buckets, made);
    const note = left.length > 0 ? ` (could not remove the buckets already made: ${left.join(', ')})` : '';
    if (error instanceof Error) error.message = `${error.message}; nothing was loaded${note}`;
    throw error;
  }
  return plan.summary;
}

/** Whether nothing is stored yet: no row in the store, no bucket in any account it can list. */
export async function isPlaceEmpty(place: StatePlace, accounts: Iterable<string> = []): Promise<boolean> {
  return (await whatIsThere(place, accounts)) === null;
}

async function whatIsThere(place: StatePlace, accounts: Iterable<string>): Promise<string | null> {
  if (!(await place.store.dump.isEmpty())) return 'the store holds data';
  const all = new Set([HOME_ACCOUNT_ID, ...accounts, ...((await place.buckets.accounts?.()) ?? [])]);
  for (const account of all) {
    const buckets = await place.buckets.list(account);
    if (buckets.length > 0) return `account ${account} has bucket ${buckets[0]!.name}`;
  }
  return null;
}

async function requireEmpty(place: StatePlace, accounts: Iterable<string>): Promise<void> {
  const found = await whatIsThere(place, accounts);
  if (found !== null) {
    throw new StateTargetNotEmptyError(
      `the target is not empty (${found}): state is loaded only into an empty data directory or database, so nothing was loaded`,
    );
  }
}

interface Plan {
  summary: StateSummary;
  accounts: Set<string>;
}

/** Reads the whole file once, checking every record and the order they come in. */
async function checkFile(file: string): Promise<Plan> {
  const summary: StateSummary = { rows: 0, buckets: 0, objects: 0, uploads: 0, bytes: 0 };
  const accounts = new Set<string>();
  const buckets = new Set<string>();
  let lastUpload = false;
  let sawSchema = false;
  await eachRecord(file, async (record, at) => {
    const type = record.record.type;
    const where = `${file} is damaged: record ${at}`;
    checkRecord(record.record, where);
    const order = (allowed: boolean, rule: string) => {
      if (!allowed) throw new StateFileError(`${file} is damaged: record ${at} (${type}) is out of place: ${rule}`);
    };
    switch (type) {
      case 'store.schema':
        order(at === 1, 'the store schema comes first');
        break;
      case 'store.row':
      case 'store.counter':
        order(summary.buckets === 0, 'the store comes before the buckets');
        if (type === 'store.row') summary.rows += 1;
        break;
      case 'bucket': {
        const bucket = record.record as unknown as BucketStateRecord;
        const id = `${bucket.account}/${bucket.name}`;
        order(!buckets.has(id), `bucket ${id} appears twice`);
        const problem = settingsProblem(bucket);
        if (problem) throw new StateFileError(`${where}: bucket ${id} ${problem}`);
        buckets.add(id);
        accounts.add(bucket.account);
        summary.buckets += 1;
        lastUpload = false;
        break;
      }
      case 'object':
        order(summary.buckets > 0, 'an object belongs to the bucket before it');
        summary.objects += 1;
        summary.bytes += (record.record as unknown as ObjectStateRecord).size;
        break;
      case 'upload':
        order(summary.buckets > 0, 'an upload belongs to the bucket before it');
        summary.uploads += 1;
        lastUpload = true;
        break;
      case 'part':
        order(lastUpload, 'a part belongs to the upload before it');
        summary.bytes += (record.record as unknown as PartStateRecord).size;
        break;
    }
    if (type === 'object') order(!lastUpload, 'objects come before the uploads of their bucket');
    sawSchema ||= type === 'store.schema';
  });
  if (!sawSchema) throw new StateFileError(`${file} is damaged: it has no store.schema record`);
  return { summary, accounts };
}

function settingsProblem(bucket: BucketStateRecord): string | null {
  try {
    const cors = bucket.cors === null ? null : corsRulesProblem(bucket.cors as CorsRule[]);
    if (cors) return `has CORS rules the platform refuses: ${cors}`;
    const lifecycle = lifecycleRulesProblem(bucket.lifecycle as LifecycleRule[]);
    return lifecycle ? `has lifecycle rules the platform refuses: ${lifecycle}` : null;
  } catch {
    return 'has CORS or lifecycle rules of the wrong shape';
  }
}

/** Calls `visit` for each record (1-based), the file checked whole at the end. */
async function eachRecord(file: string, visit: (record: ReadRecord, at: number) => Promise<void | 'stop'>): Promise<void> {
  const reader = await StateReader.open(file);
  try {
    for (let at = 1; ; at++) {
      const record = await reader.next();
      if (record === null) return;
      if ((await visit(record, at)) === 'stop') return;
    }
  } finally {
    await reader.close();
  }
}

async function loadBuckets(file: string, storage: CatalogueStorage, made: { account: string; name: string }[]): Promise<void> {
  let engine: StorageEngine | null = null;
  let upload: UploadStateRecord | null = null;
  await eachRecord(file, async ({ record, body }) => {
    switch (record.type) {
      case 'bucket': {
        const bucket = record as unknown as BucketStateRecord;
        const created = await storage.create({
          account: bucket.account,
          name: bucket.name,
          createdAt: new Date(bucket.createdAt),
          location: bucket.location,
          jurisdiction: bucket.jurisdiction,
          storageClass: bucket.storageClass,
        });
        if (!created) throw new StateTargetNotEmptyError(`bucket ${bucket.name} of account ${bucket.account} appeared in the target while loading`);
        made.push({ account: bucket.account, name: bucket.name });
        await storage.update(bucket.account, bucket.name, {
          cors: bucket.cors as CorsRule[] | null,
          lifecycle: bucket.lifecycle as LifecycleRule[],
        });
        engine = await storage.engine(bucket.account, bucket.name);
        if (!engine) throw new Error(`bucket ${bucket.name} of account ${bucket.account} vanished while loading`);
        upload = null;
        break;
      }
      case 'object':
        await loadObject(engine!, record as unknown as ObjectStateRecord, body!);
        break;
      case 'upload':
        upload = record as unknown as UploadStateRecord;
        await engine!.createUpload({
          uploadId: upload.uploadId,
          key: upload.key,
          created: upload.created,
          httpMetadata: upload.httpMetadata,
          customMetadata: upload.customMetadata,
          ...(upload.checksum ? { checksum: upload.checksum } : {}),
          ...(upload.encryption ? { encryption: upload.encryption } : {}),
        });
        break;
      case 'part': {
        const part = record as unknown as PartStateRecord;
        const { partNumber, size, etag, md5, checksum, iv } = part;
        const stored = { partNumber, size, etag, md5, ...(checksum ? { checksum } : {}), ...(iv ? { iv } : {}) };
        if (!(await engine!.putPart(upload!.uploadId, upload!.key, body!, () => stored))) {
          throw new Error(`upload ${upload!.uploadId} of ${upload!.key} refused its part ${partNumber}`);
        }
        break;
      }
    }
  });
}

/**
 * An object put whole is stored with one put; one completed from parts is stored as the same
 * parts again (an upload completed with the saved record), so it still reads part by part.
 */
async function loadObject(engine: StorageEngine, object: ObjectStateRecord, body: AsyncIterable<Uint8Array>): Promise<void> {
  const { key, version, size, etag, uploaded, httpMetadata, customMetadata, checksums, encryption, partSizes } = object;
  const record = { key, version, size, etag, uploaded, httpMetadata, customMetadata, checksums, ...(encryption ? { encryption } : {}) };
  if (partSizes.length === 1) {
    if (!(await engine.put(body, () => record, (current) => current === null))) throw new Error(`object ${key} appeared while loading`);
    return;
  }
  const uploadId = `state-${createHash('sha256').update(`${key}\0${version}`).digest('hex').slice(0, 32)}`;
  await engine.createUpload({ uploadId, key, created: uploaded, httpMetadata, customMetadata });
  const source = body[Symbol.asyncIterator]();
  const parts = new Map<number, PartRecord>();
  let leftover: Uint8Array | null = null;
  for (const [index, partSize] of partSizes.entries()) {
    const md5 = createHash('md5');
    async function* slice(): AsyncGenerator<Uint8Array> {
      let left = partSize;
      while (left > 0) {
        let chunk: Uint8Array;
        if (leftover) {
          chunk = leftover;
          leftover = null;
        } else {
          const step = await source.next();
          if (step.done) throw new Error(`object ${key} ends before its part ${index + 1}`);
          chunk = step.value;
        }
        if (chunk.byteLength > left) {
          leftover = chunk.subarray(left);
          chunk = chunk.subarray(0, left);
        }
        left -= chunk.byteLength;
        md5.update(chunk);
        yield chunk;
      }
    }
    const partOf = (): PartRecord => {
      const digest = md5.digest('hex');
      return { partNumber: index + 1, size: partSize, etag: digest, md5: digest };
    };
    const part = await engine.putPart(uploadId, key, slice(), partOf);
    if (!part) throw new Error(`object ${key} could not be stored part by part`);
    parts.set(part.partNumber, part);
  }
  const completed = await engine.completeUpload(uploadId, key, (_upload, stored, current) =>
    current === null && stored.size === partSizes.length ? { record, partNumbers: partSizes.map((_, i) => i + 1) } : null,
  );
  if (completed === null) throw new Error(`object ${key} could not be stored part by part`);
}

async function loadStore(file: string, place: StatePlace): Promise<void> {
  const reader = await StateReader.open(file);
  try {
    async function* entries(): AsyncGenerator<DumpEntry> {
      for (;;) {
        const next = await reader.next();
        if (next === null) return;
        const record = next.record;
        if (record.type === 'store.schema') yield { kind: 'schema', migrations: (record as unknown as StoreSchemaRecord).migrations };
        else if (record.type === 'store.row') {
          const { table, row } = record as unknown as StoreRowRecord;
          yield { kind: 'row', table, row };
        } else if (record.type === 'store.counter') {
          const { name, value } = record as unknown as StoreCounterRecord;
          yield { kind: 'counter', name, value };
        } else return; // The store's records all come first.
      }
    }
    await place.store.dump.import(entries());
  } finally {
    await reader.close();
  }
}

/** Empties and deletes buckets made by a load that failed; answers those it could not remove. */
async function removeBuckets(storage: CatalogueStorage, buckets: { account: string; name: string }[]): Promise<string[]> {
  const left: string[] = [];
  for (const { account, name } of buckets) {
    try {
      const engine = await storage.engine(account, name);
      if (engine) {
        for (const upload of await engine.activeUploads('')) await engine.abortUpload(upload.uploadId, upload.key);
        for (;;) {
          const keys = await engine.list(function* () {
            const records = yield { from: '', prefix: '', limit: 1000 };
            return records.map((record) => record.key);
          });
          if (keys.length === 0) break;
          await engine.delete(keys);
        }
      }
      await storage.delete(account, name);
    } catch {
      left.push(`${account}/${name}`);
    }
  }
  return left;
}
