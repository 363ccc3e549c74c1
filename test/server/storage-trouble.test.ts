// The API when its storage cannot serve a request: a store locked by another process beyond the
// busy timeout answers 503 with Retry-After and the envelope's 10503 (reads go on meanwhile); a
// data directory whose file system is full answers writes 507 (10507), keeps reads and deletes
// working, and /readyz says degraded until space is freed; never 500.
import BetterSqlite3 from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountSmallFilesystem } from '../support/small-filesystem';
import { waitUntil } from '../support/wait';
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

const mounted = mountSmallFilesystem(16);
const filesystem = 'unavailable' in mounted ? undefined : mounted;
const skipped = 'unavailable' in mounted ? ` (skipped: this process cannot mount a tmpfs: ${mounted.unavailable})` : '';

describe.skipIf(!filesystem)(`a data directory on a full 16 MiB file system${skipped}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ dataDir: join(filesystem!.directory, 'api-data'), validateResponses: false });
  });
  afterAll(async () => {
    await server?.stop({ keepData: true });
    filesystem?.unmount();
  });

  const readiness = async () => {
    const response = await fetch(`${new URL(server.baseUrl).origin}/readyz`);
    return { status: response.status, body: (await response.json()) as { ready: boolean; degraded?: boolean; problems?: { place: string; state: string }[] } };
  };

  it('answers writes 507, serves reads and deletes, says degraded, and takes writes again once space is freed', async () => {
    const jobs = `/zones/${ids.proZone}/logpush/jobs`;
    const job = (await (await server.fetch(jobs, json('POST', { dataset: 'http_requests', destination_conf: 's3://logs/kept?region=us-east-1' }))).json()) as { result: { id: number } };
    await server.fetch(`/accounts/${ids.account}/r2/buckets`, json('POST', { name: 'full-disk' }));
    const object = (name: string) => `/accounts/${ids.account}/r2/buckets/full-disk/objects/${name}`;
    const put = (name: string, body: Uint8Array) => server.fetch(object(name), { method: 'PUT', headers: { ...bearer(), 'Content-Type': 'application/octet-stream' }, body });
    expect((await put('kept.txt', Buffer.from('kept'))).status).toBe(200);
    const filler = filesystem!.fill(0);
    try {
      const rules = Array.from({ length: 400 }, (_, i) => ({ action: 'block', expression: `http.request.uri.path eq "/a-long-path-that-fills-pages/${i}"`, description: `rule ${i} `.repeat(8) }));
      const refused = await server.fetch(`/zones/${ids.proZone}/rulesets/phases/http_request_firewall_custom/entrypoint`, json('PUT', { rules }));
      expect(refused.status).toBe(507);
      expect(await refused.json()).toEqual({
        result: null,
        success: false,
        errors: [{ code: 10507, message: 'Insufficient storage: the database has no space left on its disk. Nothing was written; delete data or free space, then retry.' }],
        messages: [],
      });
      const upload = await put('big.bin', randomBytes(1024 * 1024));
      expect(upload.status).toBe(507);
      expect(((await upload.json()) as { errors: { code: number; message: string }[] }).errors).toEqual([
        {
          code: 10507,
          message: expect.stringMatching(/^Insufficient storage: the bucket storage is full: no space left on the device \((ENOSPC|SQLITE_FULL)\)\. Nothing was written; delete data or free space, then retry\.$/),
        },
      ]);

      // Reads go on, nothing of the refused writes shows, and /readyz says what is wrong but stays ready.
      expect((await server.fetch(`/zones/${ids.proZone}/rulesets/phases/http_request_firewall_custom/entrypoint`, { headers: bearer() })).status).toBe(404);
      expect((await server.fetch(object('big.bin'), { headers: bearer() })).status).toBe(404);
      const kept = await server.fetch(object('kept.txt'), { headers: bearer() });
      expect({ status: kept.status, body: await kept.text() }).toEqual({ status: 200, body: 'kept' });
      expect((await server.fetch(`${jobs}/${job.result.id}`, { headers: bearer() })).status).toBe(200);
      const degraded = await readiness();
      expect(degraded.status).toBe(200);
      expect(degraded.body).toMatchObject({ ready: true, degraded: true });
      // One file system, however many of its files met it.
      expect(degraded.body.problems!.map(({ state }) => state)).toEqual(['full']);
      // A delete needs no room.
      expect((await server.fetch(`${jobs}/${job.result.id}`, { method: 'DELETE', headers: bearer() })).status).toBe(200);
    } finally {
      rmSync(filler);
    }
    await waitUntil('/readyz to no longer say degraded', async () => (await readiness()).body.degraded === undefined);
    expect((await server.fetch(jobs, json('POST', { dataset: 'http_requests', destination_conf: 's3://logs/after?region=us-east-1' }))).status).toBe(200);
  });
});
