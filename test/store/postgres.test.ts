import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { describeStoreContract } from './contract';
import { postgresHarness } from './helpers/postgres-harness';

let cluster: PostgresCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

describeStoreContract('postgres', () => {
  if (cluster === undefined) throw new Error('the PostgreSQL server did not start');
  return postgresHarness(cluster);
});
