// Objects and uploads encrypted under a customer's key (SSE-C) in a state file: saved as stored,
// encrypted (the file holds no plain byte of them, nor the key), and loaded back readable with the
// key only, an upload in progress going on under it; on disk and on PostgreSQL.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openBucketCatalogue } from '../../src/bucket';
import { exportState, importState, openPlace, type PlaceOptions } from '../../src/state';
import { startPostgres, type PostgresCluster } from '../support/postgres';

const temporary: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-sse-c-'));
  temporary.push(dir);
  return dir;
};
const MiB = 1024 * 1024;
const key = randomBytes(32).toString('hex');
const marker = `plain-marker-${randomBytes(8).toString('hex')}`;

let cluster: PostgresCluster | undefined;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
});

const places: [string, () => Promise<PlaceOptions>][] = [
  ['disk', async () => ({ dataDir: tempDir() })],
  ['PostgreSQL', async () => ({ dataDir: tempDir(), databaseUrl: await cluster!.createDatabase('state') })],
];

describe.each(places)('on %s', (_name, fresh) => {
  test('encrypted objects and uploads round-trip encrypted, and read back with their key only', async () => {
    const source = await fresh();
    const small = Buffer.from(`${marker} small`);
    const parts = [Buffer.concat([Buffer.from(marker), Buffer.alloc(5 * MiB - marker.length, 1)]), Buffer.from(`${marker} last`)];
    let pending: { uploadId: string; first: { partNumber: number; etag: string } };
    let catalogue = await openBucketCatalogue(source);
    try {
      await catalogue.create('vault');
      const vault = await catalogue.open('vault');
      await vault.put('small', small, { ssecKey: key });
      const upload = await vault.createMultipartUpload('multi', { ssecKey: key });
      await upload.complete([await upload.uploadPart(1, parts[0]!, { ssecKey: key }), await upload.uploadPart(2, parts[1]!, { ssecKey: key })]);
      const open = await vault.createMultipartUpload('pending', { ssecKey: key });
      pending = { uploadId: open.uploadId, first: await open.uploadPart(1, parts[0]!, { ssecKey: key }) };
    } finally {
      await catalogue.close();
    }

    const file = path.join(tempDir(), 'vault.state');
    const place = await openPlace(source);
    try {
      expect(await exportState(place, file)).toMatchObject({ buckets: 1, objects: 2, uploads: 1 });
    } finally {
      await place.close();
    }
    const saved = fs.readFileSync(file);
    expect(saved.includes(marker)).toBe(false);
    expect(saved.includes(key)).toBe(false);
    expect(saved.includes(Buffer.from(key, 'hex'))).toBe(false);

    const target = await fresh();
    const loading = await openPlace(target);
    try {
      await importState(file, loading);
    } finally {
      await loading.close();
    }
    catalogue = await openBucketCatalogue(target);
    try {
      const vault = await catalogue.open('vault');
      await expect(vault.get('small')).rejects.toThrow(/The object was stored using a form of Server Side Encryption/);
      expect(await (await vault.get('small', { ssecKey: key }))!.text()).toBe(small.toString());
      const multi = await vault.get('multi', { ssecKey: key, range: { offset: 5 * MiB - 2, length: 8 } });
      expect(Buffer.from(await multi!.arrayBuffer())).toEqual(Buffer.concat([Buffer.alloc(2, 1), Buffer.from(marker.slice(0, 6))]));
      const resumed = vault.resumeMultipartUpload('pending', pending!.uploadId);
      const second = await resumed.uploadPart(2, 'the end', { ssecKey: key });
      await resumed.complete([pending!.first, second]);
      const done = await vault.get('pending', { ssecKey: key, range: { suffix: 7 } });
      expect(await done!.text()).toBe('the end');
    } finally {
      await catalogue.close();
    }
  }, 60_000);
});
