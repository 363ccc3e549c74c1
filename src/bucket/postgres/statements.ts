import { statement } from './database';

/**
 * Every statement the engine runs. Each is one atomic step of its own or one step of a
 * transaction; `$1` is always the bucket's name.
 */

const OBJECTS = 'bucket_storage.objects';
const UPLOADS = 'bucket_storage.uploads';
const PARTS = 'bucket_storage.parts';
const CHUNKS = 'bucket_storage.chunks';
const DROPPED = 'bucket_storage.dropped_bodies';
const DELETED = 'bucket_storage.deleted_storages';

/**
 * Whether the bucket `$1` was deleted (see migrations/0004-deleted-storages.ts). A statement that
 * creates rows under `$1` tests this in itself, so the test and the insert see the same commits,
 * and a deletion never slips between them: the deletion holds `objects` and `uploads` in SHARE
 * mode until it commits, so an insert into them waits for that commit; and at READ COMMITTED a
 * statement takes its snapshot once it holds its locks, so it sees the deletion it waited for.
 */
const STORAGE_DELETED = `exists (select 1 from ${DELETED} where storage = $1)`;

/** An object's metadata columns, read as arrays in this order (see `ObjectColumns`). */
const OBJECT_COLUMNS = 'key, version, size, etag, uploaded, http_metadata, custom_metadata, checksums, encryption';

export type { ObjectColumns } from '../object-columns';

/** Where an object's body is: small bytes, or bodies of chunks in order with their sizes. */
export type BodyColumns = [smallBody: Buffer | null, bodies: number[] | null, bodySizes: number[] | null];

export type UploadColumns = [
  uploadId: string,
  key: Buffer,
  created: number,
  httpMetadata: string,
  customMetadata: string,
  state: 'active' | 'completed' | 'aborted',
  checksum: string | null,
  encryption: string | null,
];
const UPLOAD_COLUMNS = 'upload_id, key, created, http_metadata, custom_metadata, state, checksum, encryption';

export type PartColumns = [
  partNumber: number,
  body: number,
  size: number,
  etag: string,
  md5: string,
  checksum: string | null,
  iv: string | null,
];
const PART_COLUMNS = 'part_number, body, size, etag, md5, checksum, iv';

export const head = statement('head', `select ${OBJECT_COLUMNS} from ${OBJECTS} where bucket = $1 and key = $2`);

export const read = statement(
  'read',
  `select ${OBJECT_COLUMNS}, small_body, bodies, body_sizes from ${OBJECTS} where bucket = $1 and key = $2`,
);

/** Whether the bucket's storage was deleted (by this process or another). */
export const storageDeleted = statement('storage_deleted', `select ${STORAGE_DELETED} as deleted`);

/** The object a write would replace: its metadata and bodies, without the small body's bytes. */
export const current = statement('current', `select ${OBJECT_COLUMNS}, bodies from ${OBJECTS} where bucket = $1 and key = $2`);

/** The object a completion would replace, locked until the completion commits. */
export const lockCurrent = statement(
  'lock_current',
  `select ${OBJECT_COLUMNS}, bodies from ${OBJECTS} where bucket = $1 and key = $2 for update`,
);

/**
 * Stores an object where there is none, in one round trip: answers whether it did, whether the
 * bucket was deleted (then nothing is stored) and, when it did not store it, the object in its
 * place (as the statement's snapshot saw it: none when another write created it meanwhile).
 */
export const insertObject = statement(
  'insert_object',
  `with deleted as (
     select ${STORAGE_DELETED} as deleted
   ), inserted as (
     insert into ${OBJECTS} (bucket, key, version, size, etag, uploaded, http_metadata, custom_metadata, checksums, encryption, small_body, bodies, body_sizes)
     select $1::text, $2::bytea, $3::text, $4::bigint, $5::text, $6::bigint, $7::text, $8::text, $9::text, $10::text, $11::bytea, $12::bigint[], $13::bigint[]
     from deleted where not deleted
     on conflict do nothing
     returning 1
   )
   select exists (select 1 from inserted), deleted.deleted, present.*
   from deleted
   left join lateral (select ${OBJECT_COLUMNS}, bodies from ${OBJECTS} where bucket = $1 and key = $2) as present on true`,
);

/**
 * `insertObject` for many small objects at once (arrays `$2`..`$10`, the small bodies `$11`): per
 * object, in order, whether it was stored, whether the bucket was deleted and, when it was not
 * stored, the object in its place as the statement's snapshot saw it.
 */
export const insertObjects = statement(
  'insert_objects',
  `with input as (
     select * from unnest($2::bytea[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bytea[])
       with ordinality as i(key, version, size, etag, uploaded, http_metadata, custom_metadata, checksums, encryption, small_body, n)
   ), deleted as (
     select ${STORAGE_DELETED} as deleted
   ), inserted as (
     insert into ${OBJECTS} (bucket, key, version, size, etag, uploaded, http_metadata, custom_metadata, checksums, encryption, small_body)
     select $1, key, version, size, etag, uploaded, http_metadata, custom_metadata, checksums, encryption, small_body
     from input, deleted where not deleted.deleted order by n
     on conflict do nothing
     returning version
   )
   select exists (select 1 from inserted where inserted.version = input.version), deleted.deleted, present.*
   from input
   cross join deleted
   left join lateral (select ${OBJECT_COLUMNS}, bodies from ${OBJECTS} where bucket = $1 and key = input.key) as present on true
   order by input.n`,
);

/** `read` for many keys at once (`$2`): per key, in order, its row or nulls. */
export const readMany = statement(
  'read_many',
  `select present.*
   from unnest($2::bytea[]) with ordinality as wanted(key, n)
   left join lateral (
     select ${OBJECT_COLUMNS}, small_body, bodies, body_sizes from ${OBJECTS} where bucket = $1 and key = wanted.key
   ) as present on true
   order by wanted.n`,
);

/**
 * Replaces the object whose version is `$14`, dropping its bodies `$15`; no row when another
 * write replaced or deleted it first. A version is never reused, so it names the row's content.
 */
export const replaceObject = statement(
  'replace_object',
  `with replaced as (
     update ${OBJECTS}
     set version = $3, size = $4, etag = $5, uploaded = $6, http_metadata = $7, custom_metadata = $8, checksums = $9,
         encryption = $10, small_body = $11, bodies = $12, body_sizes = $13
     where bucket = $1 and key = $2 and version = $14
     returning 1
   ), dropped as (
     insert into ${DROPPED} (bucket, body) select $1, unnest($15::bigint[]) from replaced
     on conflict do nothing
   )
   select 1 from replaced`,
);

export const deleteObjects = statement(
  'delete_objects',
  `with gone as (delete from ${OBJECTS} where bucket = $1 and key = any($2::bytea[]) returning bodies)
   insert into ${DROPPED} (bucket, body) select $1, body from gone, unnest(gone.bodies) as body
   on conflict do nothing`,
);

export const scanFrom = statement(
  'scan_from',
  `select ${OBJECT_COLUMNS} from ${OBJECTS} where bucket = $1 and key >= $2 order by key limit $3`,
);

export const scanBetween = statement(
  'scan_between',
  `select ${OBJECT_COLUMNS} from ${OBJECTS} where bucket = $1 and key >= $2 and key < $3 order by key limit $4`,
);

/** Creates an upload; no row when the bucket was deleted (then nothing is stored). */
export const insertUpload = statement(
  'insert_upload',
  `insert into ${UPLOADS} (bucket, ${UPLOAD_COLUMNS})
   select $1::text, $2::text, $3::bytea, $4::bigint, $5::text, $6::text, 'active', $7::text, $8::text
   where not ${STORAGE_DELETED}
   returning 1`,
);

export const uploadStatus = statement(
  'upload_status',
  `select state, checksum, encryption from ${UPLOADS} where bucket = $1 and upload_id = $2 and key = $3`,
);

/** The upload, locked: its parts and state change only under this lock. */
export const lockUpload = statement(
  'lock_upload',
  `select ${UPLOAD_COLUMNS} from ${UPLOADS} where bucket = $1 and upload_id = $2 and key = $3 for update`,
);

/**
 * Stores or replaces a part (under the upload's lock), dropping the body of the part replaced.
 * The active upload it needs is its guard against a deletion: a bucket with one is not deleted,
 * and an upload is ended or deleted only under the same lock.
 */
export const putPart = statement(
  'put_part',
  `with previous as (
     select body from ${PARTS} where bucket = $1 and upload_id = $2 and part_number = $3
   ), stored as (
     insert into ${PARTS} (bucket, upload_id, ${PART_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     on conflict (bucket, upload_id, part_number) do update
     set body = excluded.body, size = excluded.size, etag = excluded.etag, md5 = excluded.md5, checksum = excluded.checksum,
         iv = excluded.iv
   )
   insert into ${DROPPED} (bucket, body) select $1, body from previous
   on conflict do nothing`,
);

export const parts = statement(
  'parts',
  `select ${PART_COLUMNS} from ${PARTS} where bucket = $1 and upload_id = $2 order by part_number`,
);

/**
 * Ends an upload (under its lock) as `$3`, removing its parts and dropping their bodies, except
 * those of the part numbers `$4`, which became the object's.
 */
export const endUpload = statement(
  'end_upload',
  `with ended as (
     update ${UPLOADS} set state = $3 where bucket = $1 and upload_id = $2
   ), gone as (
     delete from ${PARTS} where bucket = $1 and upload_id = $2 returning part_number, body
   )
   insert into ${DROPPED} (bucket, body) select $1, body from gone where not (part_number = any($4::integer[]))
   on conflict do nothing`,
);

export const anyExpiredUpload = statement(
  'any_expired_upload',
  `select 1 from ${UPLOADS} where bucket = $1 and state = 'active' and created <= $2 limit 1`,
);

/** Aborts the uploads due, locking them: a part being stored waits, then finds them aborted. */
export const expireUploads = statement(
  'expire_uploads',
  `update ${UPLOADS} set state = 'aborted' where bucket = $1 and state = 'active' and created <= $2 returning upload_id`,
);

/** Removes the parts of uploads just aborted (run after `expireUploads`, so it sees every part stored). */
export const dropParts = statement(
  'drop_parts',
  `with gone as (delete from ${PARTS} where bucket = $1 and upload_id = any($2::text[]) returning body)
   insert into ${DROPPED} (bucket, body) select $1, body from gone
   on conflict do nothing`,
);

export const activeUploads = statement(
  'active_uploads',
  `select ${UPLOAD_COLUMNS} from ${UPLOADS}
   where bucket = $1 and state = 'active' and key >= $2 and ($3::bytea is null or key < $3)
   order by key, created, upload_id`,
);

/** An upload and its parts in one snapshot (no parts: one row of nulls after the upload's columns). */
export const uploadWithParts = statement(
  'upload_with_parts',
  `select u.upload_id, u.key, u.created, u.http_metadata, u.custom_metadata, u.state, u.checksum, u.encryption,
          p.part_number, p.body, p.size, p.etag, p.md5, p.checksum, p.iv
   from ${UPLOADS} u left join ${PARTS} p on p.bucket = u.bucket and p.upload_id = u.upload_id
   where u.bucket = $1 and u.upload_id = $2 and u.key = $3
   order by p.part_number`,
);

// ---- bodies --------------------------------------------------------------------------------

/** Starts the transaction a body is received in (a simple query: one round trip). */
export const beginStaging = (idleTimeoutMs: number) =>
  `begin; set local idle_in_transaction_session_timeout = ${idleTimeoutMs}; select nextval('bucket_storage.body_ids')`;

/** Writes the chunks of a body (a binary COPY: the engine sends rows as their bytes arrive). */
export const writeChunks = `copy ${CHUNKS} (bucket, body, start, bytes) from stdin (format binary)`;

/**
 * The chunks of a body holding bytes `from` (inclusive) to `to` (exclusive), with their start
 * offsets, as a binary COPY: raw bytes on the wire, where a query's result would spell them in
 * hex, twice their size. COPY takes no parameters: the bucket comes quoted as a literal, the
 * numbers are the engine's own.
 */
export const readChunks = (bucket: string, body: number, from: number, to: number) => {
  const inBody = `bucket = ${bucket} and body = ${integer(body)}`;
  return `copy (
    select start, bytes from ${CHUNKS}
    where ${inBody} and start < ${integer(to)}
      and start >= coalesce((select max(start) from ${CHUNKS} where ${inBody} and start <= ${integer(from)}), 0)
    order by start
  ) to stdout (format binary)`;
};

function integer(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${value}`);
  return String(value);
}

/** A reader going on renews the bodies it reads that were dropped meanwhile, so they stay. */
export const renewBodies = statement(
  'renew_bodies',
  `update ${DROPPED} set dropped_at = now() where bucket = $1 and body = any($2::bigint[])`,
);

/**
 * Reclaims up to `$2` bodies dropped more than `$1` milliseconds ago. Instances sweeping at once
 * take different bodies (skip locked); a reader renewing one keeps it.
 */
export const sweepDropped = statement(
  'sweep_dropped',
  `with due as (
     select bucket, body from ${DROPPED}
     where dropped_at < now() - make_interval(secs => $1::float8 / 1000)
     order by dropped_at
     limit $2
     for update skip locked
   ), gone as (
     delete from ${DROPPED} d using due where d.bucket = due.bucket and d.body = due.body returning d.bucket, d.body
   ), reclaimed as (
     delete from ${CHUNKS} c using gone where c.bucket = gone.bucket and c.body = gone.body
   )
   select count(*)::integer from gone`,
);

/**
 * Claims the minute's look for expired objects of a bucket: a row when this instance is the one
 * to look (none looked since `$2 - $3`), none when another did, or when the bucket was deleted
 * (an instance still holding its engine adds no row for it).
 */
export const claimExpirySweep = statement(
  'claim_expiry_sweep',
  `insert into bucket_storage.object_sweeps as sweep (bucket, last_at)
   select $1::text, $2::bigint where not ${STORAGE_DELETED}
   on conflict (bucket) do update set last_at = excluded.last_at where sweep.last_at <= $2 - $3
   returning 1`,
);
