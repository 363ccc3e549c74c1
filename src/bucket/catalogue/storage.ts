/**
 * Where the catalogue keeps its buckets: the small interface a catalogue storage implements.
 * The directory storage (`directory-storage.ts`) keeps each bucket in a directory of the data
 * directory; the PostgreSQL storage (`../postgres/catalogue-storage.ts`) keeps them in a database
 * beside their objects. Every call is atomic and
 * its effect visible to other processes at once; the catalogue above it owns the rules (names,
 * defaults, jurisdictions, filtering and paging).
 */
import type { CorsRule, LifecycleRule } from '../settings';
import type { StorageEngine } from '../engine';

export type BucketLocation = 'apac' | 'eeur' | 'enam' | 'weur' | 'wnam' | 'oc';
export type BucketJurisdiction = 'default' | 'eu' | 'fedramp';
export type BucketStorageClass = 'Standard' | 'InfrequentAccess';

/** A bucket's identity and settings fixed at creation, as stored. */
export interface BucketRecord {
  account: string;
  name: string;
  createdAt: Date;
  location: BucketLocation;
  jurisdiction: BucketJurisdiction;
  storageClass: BucketStorageClass;
}

/** The settings of a bucket that change after creation; absent ones keep their defaults. */
export interface BucketSettingsPatch {
  storageClass?: BucketStorageClass;
  /** Null removes the CORS policy. */
  cors?: CorsRule[] | null;
  lifecycle?: LifecycleRule[];
}

export interface CatalogueStorage {
  /** Where the buckets are, for messages: a directory, or a database URL without its password. */
  readonly location: string;
  /** Stores a new bucket; false (nothing changed) when the account has one of that name. */
  create(record: BucketRecord): Promise<boolean>;
  /** The bucket with its current storage class, or null. */
  get(account: string, name: string): Promise<BucketRecord | null>;
  /**
   * Every account holding buckets (saving the whole state asks it). Optional: without it, the
   * accounts a caller knows of are asked one by one.
   */
  accounts?(): Promise<string[]>;
  /** Every bucket of the account, in no particular order. */
  list(account: string): Promise<BucketRecord[]>;
  /** Changes settings of an existing bucket; false when there is no such bucket. */
  update(account: string, name: string, patch: BucketSettingsPatch): Promise<boolean>;
  /** The CORS rules (null: none set) of an existing bucket; undefined when there is no such bucket. */
  cors(account: string, name: string): Promise<CorsRule[] | null | undefined>;
  /** The lifecycle rules (defaults when never set) of an existing bucket; undefined when none. */
  lifecycle(account: string, name: string): Promise<readonly LifecycleRule[] | undefined>;
  /** The storage of the bucket's objects (shared, owned by the storage), or null when none. */
  engine(account: string, name: string): Promise<StorageEngine | null>;
  /**
   * Removes the bucket with its objects' storage when it holds no objects and no uploads in
   * progress: 'deleted', 'not-empty' or 'missing'.
   */
  delete(account: string, name: string): Promise<'deleted' | 'not-empty' | 'missing'>;
  /** Releases what the storage holds open. */
  close(): Promise<void>;
}
