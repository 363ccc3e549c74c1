/**
 * Opening what the API serves from its configuration: the store (SQLite under the data
 * directory, or PostgreSQL) and the buckets (the data directory's, or the same database's). The
 * API alone (main.ts) and the whole platform (src/platform) open them the same way.
 */
import { openBucketCatalogue, type BucketCatalogue } from '../bucket';
import { loadSecretBox, openPostgresStore, openSqliteStore, type Store } from '../store';
import type { ServerConfig } from './config';

export async function openServerStore(config: ServerConfig): Promise<Store> {
  // Workers' secrets: sealed with WORKERS_SECRETS_KEY, or the data directory's key file.
  const seed = { ...(config.seedFile ? { seed: config.seedFile } : {}), secrets: loadSecretBox({ dataDir: config.dataDir, variable: config.workersSecretsKey }) };
  const store = config.postgres
    ? await openPostgresStore({ connectionString: config.postgres.url.connectionString, ...config.postgres.pool, ...seed })
    : await openSqliteStore({ dataDir: config.dataDir, ...seed });
  try {
    // A key that does not open the stored secrets stops the start: nothing is served with
    // secrets it cannot open, and no secret is sealed beside them under another key.
    await store.deployedWorkers.checkSecretsKey();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/**
 * The buckets of the data directory, or of the database when the API runs on PostgreSQL: the
 * same catalogue `npm run bucket`, workers and the S3 endpoint open with the same setting. Their
 * pool takes the store's pool settings (each pool opens up to DATABASE_POOL_MAX connections).
 */
export function openServerBuckets(config: ServerConfig): Promise<BucketCatalogue> {
  const { maxConnections, idleTimeoutMs, connectionTimeoutMs } = config.postgres?.pool ?? {};
  return openBucketCatalogue({
    dataDir: config.dataDir,
    databaseUrl: config.postgres?.url.connectionString,
    pool: {
      ...(maxConnections ? { maxConnections } : {}),
      ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
      ...(connectionTimeoutMs ? { connectionTimeoutMs } : {}),
    },
  });
}
