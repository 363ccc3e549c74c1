/**
 * The bucket catalogue beside the objects, and the last look for expired objects per bucket.
 * - `buckets`: one row per bucket of an account, with what creation fixed and the settings that
 *   change later (CORS and lifecycle rules as the JSON the catalogue gave; null: none set, or
 *   the platform's default lifecycle rule). `storage` is the name the bucket's rows carry in the
 *   object tables: a new one for every creation, so a bucket deleted and created again never
 *   sees what the old one left behind.
 * - `object_sweeps`: when a bucket's objects were last looked at for expiry, so that of the
 *   instances using a bucket one looks each minute, not every one of them.
 */
export const catalogueSchema = `
create table bucket_storage.buckets (
  account text collate "C" not null,
  name text collate "C" not null,
  storage text collate "C" not null unique,
  created_at bigint not null,
  location text not null,
  jurisdiction text not null,
  storage_class text not null,
  cors json,
  lifecycle json,
  primary key (account, name)
);

create table bucket_storage.object_sweeps (
  bucket text collate "C" primary key,
  last_at bigint not null
);
`;
