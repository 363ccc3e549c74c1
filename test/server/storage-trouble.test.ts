// The API when its storage cannot serve a request: a store locked by another process beyond the
// busy timeout answers 503 with Retry-After and the envelope's 10503 (reads go on meanwhile), and
// the store's errors of a database out of reach or full answer 503 and 507, never 500.
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeErrorAnswer } from '../../src/server/store-errors';
import { StoreBusyError, StoreFullError, StoreUnavailableError } from '../../src/store';
import { bearer, ids, json, startServer, type TestServer } from './harness';

describe('a store locked by another process', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ busyTimeoutMs: 50 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers a write 503 with Retry-After, keeps serving reads, and takes the write once the lock is gone', async () => {
    const other = new BetterSqlite3(join(server.dataDir, 'store.sqlite'));
    const create = () => server.fetch(`/zones/${ids.proZone}/logpush/jobs`, json('POST', { dataset: 'http_requests', destination_conf: 's3://logs/busy?region=us-east-1' }));
    try {
      other.exec('begin immediate');
      const refused = await create();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toEqual({
        result: null,
        success: false,
        errors: [{ code: 10503, message: 'The service is temporarily unavailable: it is busy with concurrent writes. Retry the request in a moment.' }],
        messages: [],
      });
      expect((await server.fetch(`/zones/${ids.proZone}/logpush/jobs`, { headers: bearer() })).status).toBe(200);
    } finally {
      other.exec('rollback');
      other.close();
    }
    expect((await create()).status).toBe(200);
  });
});

describe('the store errors of storage in trouble', () => {
  it('answers a database out of reach 503 with Retry-After, a full one 507, busy 503: never 500', () => {
    const unavailable = storeErrorAnswer(new StoreUnavailableError('postgres://api@db/api', 'connect ECONNREFUSED 10.0.0.5:5432'), '/zones');
    expect({ status: unavailable?.status, headers: unavailable?.headers, errors: unavailable?.errors }).toEqual({
      status: 503,
      headers: { 'Retry-After': '1' },
      // The database's address and the driver's words stay in the log.
      errors: [{ code: 10503, message: 'The service is temporarily unavailable: its database cannot be reached. Retry the request in a moment.' }],
    });
    const full = storeErrorAnswer(new StoreFullError('/data/store.sqlite', 'no space left on the device that holds it'), '/zones');
    expect({ status: full?.status, errors: full?.errors }).toEqual({
      status: 507,
      errors: [{ code: 10507, message: 'Insufficient storage: the database has no space left on its disk. Nothing was written; delete data or free space, then retry.' }],
    });
    expect(storeErrorAnswer(new StoreBusyError('locked'), '/zones')?.status).toBe(503);
  });
});
