/**
 * The bucket tables. Every table is keyed by the bucket's name first: the buckets of a deployment
 * share the tables, each bucket's rows side by side in the indexes.
 * - Keys are bytea: compared bytewise, which is the platform's listing order (UTF-8 bytes),
 *   whatever the database's locale, and able to hold U+0000, which text cannot.
 * - A body lives in `small_body` when small, in `chunks` otherwise: the object names its bodies
 *   in order (one for a put, one per part for a completed multipart upload). A chunk row holds
 *   8,000 bytes and stays in its page (toast_tuple_target at its highest), where larger values
 *   would be cut into 2 KB pieces of a TOAST table, four times the rows to write and read; chunk
 *   and small-body bytes are never compressed (storage external): bodies are mostly compressed
 *   media already, and trying costs CPU on every write.
 * - A body no longer named by an object or part waits in `dropped_bodies` until reads that
 *   started before its object was replaced or deleted are done with it, then goes.
 */
export const initialSchema = `
create table bucket_storage.objects (
  bucket text collate "C" not null,
  key bytea not null,
  version text not null,
  size bigint not null,
  etag text not null,
  uploaded bigint not null,
  http_metadata text not null,
  custom_metadata text not null,
  checksums text not null,
  small_body bytea,
  bodies bigint[],
  body_sizes bigint[],
  primary key (bucket, key)
);
alter table bucket_storage.objects alter column small_body set storage external;

create table bucket_storage.uploads (
  bucket text collate "C" not null,
  upload_id text collate "C" not null,
  key bytea not null,
  created bigint not null,
  http_metadata text not null,
  custom_metadata text not null,
  state text not null check (state in ('active', 'completed', 'aborted')),
  primary key (bucket, upload_id)
);
create index uploads_active_by_key on bucket_storage.uploads (bucket, key, created, upload_id) where state = 'active';
create index uploads_active_by_age on bucket_storage.uploads (bucket, created) where state = 'active';

create table bucket_storage.parts (
  bucket text collate "C" not null,
  upload_id text collate "C" not null,
  part_number integer not null,
  body bigint not null,
  size bigint not null,
  etag text not null,
  md5 text not null,
  primary key (bucket, upload_id, part_number)
);

create sequence bucket_storage.body_ids;

create table bucket_storage.chunks (
  bucket text collate "C" not null,
  body bigint not null,
  start bigint not null,
  bytes bytea not null,
  primary key (bucket, body, start)
) with (toast_tuple_target = 8160);
alter table bucket_storage.chunks alter column bytes set storage external;

create table bucket_storage.dropped_bodies (
  bucket text collate "C" not null,
  body bigint not null,
  dropped_at timestamptz not null default now(),
  primary key (bucket, body)
);
create index dropped_bodies_by_age on bucket_storage.dropped_bodies (dropped_at);
`;
