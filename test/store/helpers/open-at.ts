import { openPostgresStore, openSqliteStore, type Store, type StoreOptions } from '../../../src/store';
import type { StoreConnection } from './harness';

/** Opens the store a child process was pointed at. */
export function openStoreAt(connection: StoreConnection, options: StoreOptions = {}): Promise<Store> {
  switch (connection.engine) {
    case 'sqlite':
      return openSqliteStore({ filename: connection.filename, ...options });
    case 'postgres':
      return openPostgresStore({ connectionString: connection.url, ...options });
  }
}
