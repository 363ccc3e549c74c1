/**
 * The storage names of deleted buckets. A write that found a bucket's storage name before the
 * bucket was deleted may run its insert after the deletion committed: without this table it
 * would store rows under a name no bucket has any more, and answer success for an object no one
 * can read. Every statement that creates rows under a storage name refuses one listed here (an
 * index probe on a small table; no lock on a parent row, as a foreign key would take on every
 * insert), and the deletion lists the name in its own transaction. A name is never reused: a
 * bucket created again gets a new one.
 */
export const deletedStorages = `
create table bucket_storage.deleted_storages (
  storage text collate "C" primary key,
  deleted_at bigint not null
);
`;
