import type { Store, StoreOptions } from '../../../src/store';

/**
 * How the store contract reaches one engine. Each engine's test file supplies one; the
 * contract never knows which engine it runs on.
 */
export interface StoreHarness {
  /** Opens a store on a new, empty database. */
  fresh(options?: StoreOptions): Promise<Store>;
  /** Opens another store on the database of the last `fresh` call (a restart, or a second process). */
  reopen(options?: StoreOptions): Promise<Store>;
  /** Records a migration this code does not know in the last database, as newer code would. */
  recordUnknownMigration(name: string): Promise<void>;
  /** A JSON description of the last database, for opening it from a child process. */
  connection(): StoreConnection;
  /** Removes every database this harness created. */
  cleanup(): Promise<void>;
}

/** Serializable address of a store; `openStoreAt` turns it back into a store. */
export type StoreConnection = { engine: 'sqlite'; filename: string } | { engine: 'postgres'; url: string };
