// The disk engine's snapshot (saving state while writers go on): what it shows stays as it was
// when taken, bytes included, whatever is replaced, deleted, completed or aborted afterwards.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createBucket, type EngineSnapshot } from '../../src/bucket';
import { DiskEngine } from '../../src/bucket/disk/engine';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function collect(bytes: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const filled = (size: number, byte: number) => Buffer.alloc(size, byte);

test('a snapshot keeps objects and parts readable as they were while writers change them', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-'));
  dirs.push(dir);
  const engine = new DiskEngine(dir);
  const bucket = createBucket({ engine });
  await bucket.put('big', filled(100_000, 1), { customMetadata: { n: '1' } });
  await bucket.put('small', 'tiny');
  const upload = await bucket.createMultipartUpload('parts');
  const part = await upload.uploadPart(1, filled(5 * 1024 * 1024, 4));
  const other = await bucket.createMultipartUpload('aborted');
  await other.uploadPart(1, filled(70_000, 5));

  let snapshot: EngineSnapshot | undefined = await engine.snapshot();
  try {
    // Everything the snapshot names is replaced, deleted, completed or aborted.
    await bucket.put('big', filled(120_000, 2), { customMetadata: { n: '2' } });
    await bucket.delete('small');
    await upload.complete([part]);
    await other.abort();
    await bucket.put('later', 'not in the snapshot');

    const objects = [];
    for await (const object of snapshot.objects()) objects.push({ ...object, body: await collect(object.bytes()) });
    expect(objects.map((o) => [o.record.key, o.record.customMetadata, o.body.length, o.partSizes])).toEqual([
      ['big', { n: '1' }, 100_000, [100_000]],
      ['small', {}, 4, [4]],
    ]);
    expect(objects[0]!.body.equals(filled(100_000, 1))).toBe(true);
    expect(objects[0]!.record.etag).toBe(createHash('md5').update(filled(100_000, 1)).digest('hex'));
    expect(objects[1]!.body.toString()).toBe('tiny');

    const uploads = [];
    for await (const { upload: u, parts } of snapshot.uploads()) {
      uploads.push({ key: u.key, parts: await Promise.all(parts.map(async (p) => ({ ...p.part, body: await collect(p.bytes()) }))) });
    }
    expect(uploads.map((u) => [u.key, u.parts.map((p) => [p.partNumber, p.size, p.body.length])]).sort()).toEqual([
      ['aborted', [[1, 70_000, 70_000]]],
      ['parts', [[1, 5 * 1024 * 1024, 5 * 1024 * 1024]]],
    ]);
    expect(uploads.find((u) => u.key === 'aborted')!.parts[0]!.body.equals(filled(70_000, 5))).toBe(true);
  } finally {
    await snapshot.close();
    snapshot = undefined;
  }
  // Closed, it leaves nothing behind: its links are gone, the bucket reads its current state.
  expect(fs.readdirSync(path.join(dir, 'staging')).filter((name) => name.includes('snapshot'))).toEqual([]);
  expect((await bucket.head('big'))?.customMetadata).toEqual({ n: '2' });
  await engine.close();
});
