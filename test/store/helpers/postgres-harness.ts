import { openPostgresStore, type Store, type StoreOptions } from '../../../src/store';
import type { PostgresCluster } from '../../support/postgres';
import type { StoreConnection, StoreHarness } from './harness';

/** A new database of the file's PostgreSQL server for every `fresh` store. */
export function postgresHarness(cluster: PostgresCluster): StoreHarness {
  const opened: Store[] = [];
  const databases: string[] = [];

  const track = async (store: Promise<Store>) => {
    const ready = await store;
    opened.push(ready);
    return ready;
  };
  const last = (): string => {
    const url = databases.at(-1);
    if (url === undefined) {
      throw new Error('no database yet: call fresh() first');
    }
    return url;
  };

  return {
    fresh: async (options?: StoreOptions) => {
      databases.push(await cluster.createDatabase('store'));
      return track(openPostgresStore({ connectionString: last(), ...options }));
    },
    reopen: (options?: StoreOptions) => track(openPostgresStore({ connectionString: last(), ...options })),
    recordUnknownMigration: async (name: string) => {
      await cluster.query(last(), 'insert into store_migration (name, timestamp) values ($1, $2)', [name, new Date().toISOString()]);
    },
    connection: (): StoreConnection => ({ engine: 'postgres', url: last() }),
    cleanup: async () => {
      for (const store of opened) {
        await store.close();
      }
      for (const url of databases) {
        await cluster.dropDatabase(url);
      }
    },
  };
}
