/**
 * The catalogue on PostgreSQL: the buckets of every account in `bucket_storage.buckets` (see
 * migrations/0002-catalogue.ts), their objects in the tables of the PostgreSQL engine of the same
 * database. Every call is one statement or one transaction, visible to every instance at once.
 */
import { randomBytes } from 'node:crypto';
import type { BucketRecord, BucketSettingsPatch, CatalogueStorage } from '../catalogue/storage';
import { type CorsRule, DEFAULT_LIFECYCLE_RULES, type LifecycleRule } from '../settings';
import { CATALOGUE_STORAGE_METHODS, classifyFailures } from '../engine';
import type { StorageEngine } from '../engine';
import type { PostgresBuckets } from './buckets';
import { statement, type BucketDatabase } from './database';
import { postgresTrouble } from './trouble';
import { databaseOf } from './opened';

const BUCKETS = 'bucket_storage.buckets';
const RECORD_COLUMNS = 'name, created_at, location, jurisdiction, storage_class';

type RecordColumns = [
  name: string,
  createdAt: number,
  location: BucketRecord['location'],
  jurisdiction: BucketRecord['jurisdiction'],
  storageClass: BucketRecord['storageClass'],
];

const insertBucket = statement(
  'catalogue_insert',
  `insert into ${BUCKETS} (account, name, storage, created_at, location, jurisdiction, storage_class)
   values ($1, $2, $3, $4, $5, $6, $7) on conflict (account, name) do nothing returning 1`,
);
const getBucket = statement('catalogue_get', `select ${RECORD_COLUMNS} from ${BUCKETS} where account = $1 and name = $2`);
const listAccounts = statement('catalogue_accounts', `select distinct account from ${BUCKETS} order by account`);
const listBuckets = statement('catalogue_list', `select ${RECORD_COLUMNS} from ${BUCKETS} where account = $1`);
/** Each setting changes only when its flag says so: one statement for any patch. */
const updateBucket = statement(
  'catalogue_update',
  `update ${BUCKETS} set
     storage_class = coalesce($3, storage_class),
     cors = case when $4::boolean then $5::json else cors end,
     lifecycle = case when $6::boolean then $7::json else lifecycle end
   where account = $1 and name = $2 returning 1`,
);
const corsOf = statement('catalogue_cors', `select cors::text from ${BUCKETS} where account = $1 and name = $2`);
const lifecycleOf = statement('catalogue_lifecycle', `select lifecycle::text from ${BUCKETS} where account = $1 and name = $2`);
const storageOf = statement('catalogue_storage', `select storage from ${BUCKETS} where account = $1 and name = $2`);

export class PostgresCatalogueStorage implements CatalogueStorage {
  readonly #buckets: PostgresBuckets;
  readonly #db: BucketDatabase;

  /** Takes the buckets of a database (`openPostgresBuckets`); `close` closes them. */
  constructor(buckets: PostgresBuckets) {
    this.#buckets = buckets;
    this.#db = databaseOf(buckets);
  }

  get location(): string {
    return this.#buckets.location;
  }

  async create(record: BucketRecord): Promise<boolean> {
    const storage = `${record.account}/${record.name}/${randomBytes(6).toString('hex')}`;
    const rows = await this.#db.rows(this.#db.pool, insertBucket, [
      record.account,
      record.name,
      storage,
      record.createdAt.getTime(),
      record.location,
      record.jurisdiction,
      record.storageClass,
    ]);
    return rows.length > 0;
  }

  async get(account: string, name: string): Promise<BucketRecord | null> {
    const [row] = await this.#db.rows<RecordColumns>(this.#db.pool, getBucket, [account, name]);
    return row ? toRecord(account, row) : null;
  }

  async accounts(): Promise<string[]> {
    return (await this.#db.rows<[string]>(this.#db.pool, listAccounts, [])).map(([account]) => account);
  }

  async list(account: string): Promise<BucketRecord[]> {
    return (await this.#db.rows<RecordColumns>(this.#db.pool, listBuckets, [account])).map((row) => toRecord(account, row));
  }

  async update(account: string, name: string, patch: BucketSettingsPatch): Promise<boolean> {
    const rows = await this.#db.rows(this.#db.pool, updateBucket, [
      account,
      name,
      patch.storageClass ?? null,
      patch.cors !== undefined,
      patch.cors ? JSON.stringify(patch.cors) : null,
      patch.lifecycle !== undefined,
      patch.lifecycle ? JSON.stringify(patch.lifecycle) : null,
    ]);
    return rows.length > 0;
  }

  async cors(account: string, name: string): Promise<CorsRule[] | null | undefined> {
    const [row] = await this.#db.rows<[string | null]>(this.#db.pool, corsOf, [account, name]);
    if (!row) return undefined;
    return row[0] === null ? null : (JSON.parse(row[0]) as CorsRule[]);
  }

  async lifecycle(account: string, name: string): Promise<readonly LifecycleRule[] | undefined> {
    const [row] = await this.#db.rows<[string | null]>(this.#db.pool, lifecycleOf, [account, name]);
    if (!row) return undefined;
    return row[0] === null ? DEFAULT_LIFECYCLE_RULES : (JSON.parse(row[0]) as LifecycleRule[]);
  }

  /** One indexed read per call: a bucket deleted, or deleted and created again, elsewhere is seen at once. */
  async engine(account: string, name: string): Promise<StorageEngine | null> {
    const [row] = await this.#db.rows<[string]>(this.#db.pool, storageOf, [account, name]);
    return row ? this.#buckets.storage(row[0]) : null;
  }

  async delete(account: string, name: string): Promise<'deleted' | 'not-empty' | 'missing'> {
    return this.#db.transaction(async (client) => {
      // Writes in flight on any bucket finish first (and new ones wait for this commit), so a
      // write that began before the deletion is seen by the emptiness check below.
      await client.query('lock table bucket_storage.objects, bucket_storage.uploads in share mode');
      const { rows } = await client.query<{ storage: string }>(`select storage from ${BUCKETS} where account = $1 and name = $2 for update`, [
        account,
        name,
      ]);
      const storage = rows[0]?.storage;
      if (storage === undefined) return 'missing';
      const used = await client.query(
        `select 1 from bucket_storage.objects where bucket = $1
         union all select 1 from bucket_storage.uploads where bucket = $1 and state = 'active' limit 1`,
        [storage],
      );
      if (used.rows.length > 0) return 'not-empty';
      await client.query(`delete from ${BUCKETS} where account = $1 and name = $2`, [account, name]);
      // Writes that found the storage before this commit and insert after it refuse it (see
      // migrations/0004-deleted-storages.ts): they wait for this commit, and then see this row.
      await client.query('insert into bucket_storage.deleted_storages (storage, deleted_at) values ($1, $2)', [storage, Date.now()]);
      // What the bucket leaves: ended uploads, their parts' bytes (reclaimed by the sweep), its last look for expired objects.
      await client.query(
        `with gone as (delete from bucket_storage.parts where bucket = $1 returning body)
         insert into bucket_storage.dropped_bodies (bucket, body) select $1, body from gone on conflict do nothing`,
        [storage],
      );
      await client.query('delete from bucket_storage.uploads where bucket = $1', [storage]);
      await client.query('delete from bucket_storage.object_sweeps where bucket = $1', [storage]);
      return 'deleted';
    });
  }

  close(): Promise<void> {
    return this.#buckets.close();
  }
}

function toRecord(account: string, [name, createdAt, location, jurisdiction, storageClass]: RecordColumns): BucketRecord {
  return { account, name, createdAt: new Date(createdAt), location, jurisdiction, storageClass };
}

classifyFailures(PostgresCatalogueStorage, CATALOGUE_STORAGE_METHODS, (storage, error) => postgresTrouble(error, storage.location));
