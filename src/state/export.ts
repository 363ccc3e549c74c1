/**
 * Saving the platform's state: the management API's store, then every bucket of every account
 * with its settings, objects and uploads in progress, into one state file (format.ts,
 * records.ts). The store is read from one snapshot, each bucket from one snapshot of its own,
 * so the file is consistent while the platform serves; bytes stream through, never held whole.
 */
import { HOME_ACCOUNT_ID, type CatalogueStorage, type EngineSnapshot } from '../bucket';
import type { DumpEntry, Store } from '../store';
import { StateWriter } from './format';
import type { BucketStateRecord, ObjectStateRecord, PartStateRecord, UploadStateRecord } from './records';

/** Where the state is read from (or written to, for an import). */
export interface StatePlace {
  store: Store;
  buckets: CatalogueStorage;
}

export interface StateSummary {
  rows: number;
  buckets: number;
  objects: number;
  uploads: number;
  /** Object and part bytes. */
  bytes: number;
}

/** Writes the whole state to `file` (replacing it only once complete); answers what it holds. */
export async function exportState(place: StatePlace, file: string): Promise<StateSummary & { fileBytes: number }> {
  const writer = await StateWriter.create(file);
  try {
    const summary: StateSummary = { rows: 0, buckets: 0, objects: 0, uploads: 0, bytes: 0 };
    const accounts = new Set<string>([HOME_ACCOUNT_ID]);
    await place.store.dump.export(async (entry: DumpEntry) => {
      if (entry.kind === 'schema') await writer.record({ type: 'store.schema', migrations: entry.migrations });
      else if (entry.kind === 'counter') await writer.record({ type: 'store.counter', name: entry.name, value: entry.value });
      else {
        summary.rows += 1;
        if (entry.table === 'accounts' && typeof entry.row.id === 'string') accounts.add(entry.row.id);
        await writer.record({ type: 'store.row', table: entry.table, row: entry.row });
      }
    });
    for (const account of (await place.buckets.accounts?.()) ?? []) accounts.add(account);
    for (const account of [...accounts].sort()) {
      const records = (await place.buckets.list(account)).sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const record of records) {
        await exportBucket(place.buckets, record.account, record.name, writer, summary);
      }
    }
    const { bytes } = await writer.finish();
    return { ...summary, fileBytes: bytes };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

async function exportBucket(
  storage: CatalogueStorage,
  account: string,
  name: string,
  writer: StateWriter,
  summary: StateSummary,
): Promise<void> {
  const engine = await storage.engine(account, name);
  if (!engine) return; // Deleted since it was listed: it is not part of the state any more.
  if (!engine.snapshot) throw new Error(`bucket ${name} of account ${account} is kept by a storage that cannot be saved yet (no snapshot)`);
  // The snapshot first, then the settings: a bucket deleted meanwhile has none, and is left out.
  const snapshot: EngineSnapshot = await engine.snapshot();
  try {
    const [record, cors, lifecycle] = await Promise.all([storage.get(account, name), storage.cors(account, name), storage.lifecycle(account, name)]);
    if (!record || cors === undefined || lifecycle === undefined) return;
    const bucket: BucketStateRecord = {
      type: 'bucket',
      account,
      name,
      createdAt: record.createdAt.toISOString(),
      location: record.location,
      jurisdiction: record.jurisdiction,
      storageClass: record.storageClass,
      cors,
      lifecycle: [...lifecycle],
    };
    await writer.record(bucket);
    summary.buckets += 1;
    for await (const object of snapshot.objects()) {
      const { key, version, size, etag, uploaded, httpMetadata, customMetadata, checksums, encryption } = object.record;
      const line: ObjectStateRecord = {
        type: 'object',
        key,
        version,
        size,
        etag,
        uploaded,
        httpMetadata,
        customMetadata,
        checksums,
        ...(encryption ? { encryption } : {}),
        partSizes: object.partSizes,
        bytes: size,
      };
      await writer.record(line, object.bytes());
      summary.objects += 1;
      summary.bytes += size;
    }
    for await (const { upload, parts } of snapshot.uploads()) {
      const line: UploadStateRecord = { type: 'upload', ...upload };
      await writer.record(line);
      summary.uploads += 1;
      for (const { part, bytes } of parts) {
        const partLine: PartStateRecord = { type: 'part', ...part, bytes: part.size };
        await writer.record(partLine, bytes());
        summary.bytes += part.size;
      }
    }
  } finally {
    await snapshot.close();
  }
}
