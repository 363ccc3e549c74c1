// Choosing the database by environment, the readiness check, and a clean stop on PostgreSQL.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BucketCatalogue } from '../../src/bucket';
import { createApp, CredentialRegistry, loadConfig } from '../../src/server';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store';
import { freePort } from '../support/ports';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { ZONE_IDS } from '../store/contract/fixtures';
import { openTransaction } from '../store/helpers/open-transaction';
import { startInstance } from './instances';

const root = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deployment-'));
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('DATABASE_URL and the pool settings', () => {
  it('selects PostgreSQL with the pool settings given, and SQLite under DATA_DIR without it', () => {
    expect(loadConfig({ DATA_DIR: dataDir }).postgres).toBeUndefined();
    const config = loadConfig({
      DATABASE_URL: 'postgres://api:s3cret@db.internal:6432/api?sslmode=require',
      DATABASE_POOL_MAX: '20',
      DATABASE_LOCK_TIMEOUT_MS: '2500',
    });
    expect(config.postgres?.url).toEqual({
      connectionString: 'postgres://api:s3cret@db.internal:6432/api?sslmode=require',
      location: 'postgres://api@db.internal:6432/api?sslmode=require',
    });
    expect(config.postgres?.pool).toEqual({ maxConnections: 20, lockTimeoutMs: 2500 });
  });

  it.each([
    [{ DATABASE_URL: 'db.internal:5432' }, 'DATABASE_URL must start with postgres:// or postgresql://, not db.internal://'],
    [{ DATABASE_URL: 'postgres://api:s3cret@db.internal' }, 'DATABASE_URL names no database; expected one like postgres://user:password@localhost:5432/api'],
    [{ DATABASE_URL: 'postgres://api:s3cret@[db/api' }, 'DATABASE_URL is not a URL; expected one like postgres://user:password@localhost:5432/api'],
    [{ DATABASE_POOL_MAX: '5' }, 'DATABASE_POOL_MAX is set without DATABASE_URL: pool settings apply to PostgreSQL only'],
    [{ DATABASE_URL: 'postgres://localhost/api', DATABASE_POOL_MAX: '0' }, 'DATABASE_POOL_MAX must be a positive whole number, not "0"'],
    [{ DATABASE_URL: 'postgres://localhost/api', DATABASE_CONNECT_TIMEOUT_MS: '1e3' }, 'DATABASE_CONNECT_TIMEOUT_MS must be a positive whole number, not "1e3"'],
  ])('refuses %j', (env, message) => {
    const error = (() => {
      try {
        loadConfig(env);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toBe(message);
    expect(error?.message).not.toContain('s3cret');
  });

  it('stops at start-up with a readable message for a malformed URL or an unreachable database', async () => {
    const port = await freePort();
    for (const [url, message] of [
      ['mysql://api:s3cret@localhost/api', 'cannot start the server: DATABASE_URL must start with postgres:// or postgresql://, not mysql://'],
      [`postgres://api:s3cret@127.0.0.1:${port}/api`, `cannot start the server: cannot connect to PostgreSQL at postgres://api@127.0.0.1:${port}/api: connect ECONNREFUSED`],
    ] as const) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
        cwd: root,
        env: { ...process.env, PORT: '0', DATA_DIR: dataDir, DATABASE_URL: url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
      expect(output).toContain(message);
      expect(output).not.toContain('s3cret');
    }
  });

  it('serves from PostgreSQL, answers /readyz, and stops cleanly on SIGTERM', async () => {
    const url = await cluster.createDatabase('deploy');
    const instance = await startInstance({ DATABASE_URL: url, DATA_DIR: dataDir });
    const ready = await fetch(`${instance.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, database: 'postgres' });
    const zone = await instance.fetch(`/zones/${ZONE_IDS.pro}`);
    expect(zone.status).toBe(200);
    expect(await cluster.query(url, 'select count(*)::int as n from zones')).toEqual([{ n: 7 }]);
    expect(await instance.stop()).toBe(0);
  });
});

describe('GET /readyz', () => {
  const servers: Server[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    for (const store of stores.splice(0)) await store.close();
  });

  async function readiness(store: Store, database?: 'sqlite' | 'postgres') {
    const { app, ready } = createApp({ store, database, credentials: new CredentialRegistry(), buckets: new BucketCatalogue(mkdtempSync(path.join(os.tmpdir(), 'ready-buckets-'))), logger: pino({ level: 'silent' }) });
    await ready;
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    servers.push(server);
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`);
    return { status: response.status, body: await response.json() };
  }

  it('answers ready, naming the engine, without credentials', async () => {
    const sqlite = await openSqliteStore({ filename: ':memory:', seed: false });
    stores.push(sqlite);
    expect(await readiness(sqlite)).toEqual({ status: 200, body: { ready: true, database: 'sqlite' } });
    const postgres = await openPostgresStore({ connectionString: await cluster.createDatabase('ready'), seed: false });
    stores.push(postgres);
    expect(await readiness(postgres, 'postgres')).toEqual({ status: 200, body: { ready: true, database: 'postgres' } });
  });

  it('answers 503 when the database does not answer, or not in time', async () => {
    const closed = await openPostgresStore({ connectionString: await cluster.createDatabase('ready'), seed: false });
    await closed.close();
    expect(await readiness(closed, 'postgres')).toEqual({ status: 503, body: { ready: false, database: 'postgres' } });

    // The store's only connection is busy for longer than a probe waits.
    const busy = await openPostgresStore({ connectionString: await cluster.createDatabase('ready'), seed: false, maxConnections: 1, connectionTimeoutMs: 30_000 });
    stores.push(busy);
    const holding = await openTransaction(busy, async () => undefined);
    expect(await readiness(busy, 'postgres')).toEqual({ status: 503, body: { ready: false, database: 'postgres' } });
    await holding.finish();
    expect(await readiness(busy, 'postgres')).toEqual({ status: 200, body: { ready: true, database: 'postgres' } });
  });
});
