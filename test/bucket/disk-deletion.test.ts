// A write racing its bucket's deletion on disk: as on the platform, either the write wins (and
// the deletion answers not empty) or the deletion wins (and the write answers no such bucket,
// 10006), never both. A process holding a bucket's database open (a worker's binding, a request
// that found `bucket.json` just before) must not write into it once another process deleted the
// bucket, where no one could read it: the deletion marks the database deleted in the write
// transaction that finds it empty, and every write that creates rows refuses a marked one.
import Database from 'better-sqlite3';
import { existsSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { BucketCatalogue, BucketCatalogueError, BucketError, createBucket, type OpenBucket } from '../../src/bucket';
import { DiskEngine } from '../../src/bucket/disk/engine';
import { startCatalogueChild, type CatalogueChild } from './child-process';
import { temporaryDirectory } from './engines';
import { after, expectConditionalPutsRefused, expectNoSuchBucket, LARGE, raceWrite } from './deletion-race';

const NO_SUCH_BUCKET = 10006;
/** Bodies above 32 KiB are kept in a file of their own, written before the row that names it. */

const directories: string[] = [];
const opened: { close(): Promise<void> }[] = [];
const children: CatalogueChild[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.process.stdin!.end();
    await child.exited();
  }
  await Promise.all(opened.splice(0).map((each) => each.close()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A catalogue instance on `dataDir`, as a process opens it (its own engines, its own SQLite connections). */
function catalogueOn(dataDir: string): BucketCatalogue {
  const catalogue = new BucketCatalogue(dataDir, { defaults: { minimumPartSize: 1 } });
  opened.push(catalogue);
  return catalogue;
}

const bucketDirectories = (dataDir: string) => readdirSync(join(dataDir, 'buckets'));


async function expectCatalogueNoSuchBucket(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(BucketCatalogueError);
  expect((error as BucketCatalogueError).code).toBe(NO_SUCH_BUCKET);
}

describe('a write through a bucket found before another catalogue deleted it', () => {
  let dataDir: string;
  let catalogue: BucketCatalogue;
  let other: BucketCatalogue;
  let bucket: OpenBucket;

  /** `photos`, opened (its engine resolved), then deleted through another catalogue instance. */
  async function deletedUnderneath(): Promise<void> {
    dataDir = temporaryDirectory(directories);
    [catalogue, other] = [catalogueOn(dataDir), catalogueOn(dataDir)];
    await catalogue.create('photos');
    bucket = await catalogue.open('photos');
    await other.delete('photos');
    expect(bucketDirectories(dataDir)).toEqual([]);
  }

  test('a small put is no such bucket, also several in one write transaction, and the directory is not made again', async () => {
    await deletedUnderneath();
    await expectNoSuchBucket(bucket.put('cat.txt', 'meow'), 'put');
    // Started in one turn of the event loop: one write transaction for all of them.
    const many = ['a', 'b', 'c'].map((key) => bucket.put(key, key));
    for (const put of many) await expectNoSuchBucket(put, 'put');
    expect(await bucket.get('cat.txt')).toBeNull();
    expect((await bucket.list()).objects).toEqual([]);
    expect(bucketDirectories(dataDir)).toEqual([]);
  });

  test('a large put (its body a file of its own) is no such bucket', async () => {
    await deletedUnderneath();
    await expectNoSuchBucket(bucket.put('big.bin', new Uint8Array(LARGE).fill(7)), 'put');
    expect(await bucket.head('big.bin')).toBeNull();
    expect(bucketDirectories(dataDir)).toEqual([]);
  });

  test('a conditional put its condition refuses is no such bucket, not a failed condition (412)', async () => {
    await deletedUnderneath();
    await catalogue.create('live');
    await expectConditionalPutsRefused(bucket, await catalogue.open('live'));
  });

  test('createMultipartUpload is no such bucket, and lists no upload', async () => {
    await deletedUnderneath();
    await expectNoSuchBucket(bucket.createMultipartUpload('movie.mp4'), 'createMultipartUpload');
    expect(await bucket.listMultipartUploads()).toEqual([]);
  });

  test('a put over an object deleted before the bucket is no such bucket', async () => {
    dataDir = temporaryDirectory(directories);
    [catalogue, other] = [catalogueOn(dataDir), catalogueOn(dataDir)];
    await catalogue.create('photos');
    bucket = await catalogue.open('photos');
    await bucket.put('cat.txt', 'first');
    await bucket.delete('cat.txt');
    await other.delete('photos');
    await expectNoSuchBucket(bucket.put('cat.txt', 'second'), 'put');
    await expectCatalogueNoSuchBucket(catalogue.open('photos'));
  });

  test('a bucket created again under the same name is empty and takes writes; the old binding still refuses', async () => {
    await deletedUnderneath();
    await expectNoSuchBucket(bucket.put('cat.txt', 'stale'), 'put');
    await other.create('photos');
    const again = await catalogue.open('photos');
    expect((await again.list()).objects).toEqual([]);
    expect(await again.get('cat.txt')).toBeNull();
    await again.put('cat.txt', 'meow');
    await expectNoSuchBucket(bucket.put('cat.txt', 'stale'), 'put');
    await expectNoSuchBucket(bucket.put('dog.txt', 'stale'), 'put');
    const seen = await other.open('photos');
    expect((await seen.list()).objects.map((object) => object.key)).toEqual(['cat.txt']);
    expect(await (await seen.get('cat.txt'))!.text()).toBe('meow');
  });
});

describe('a write through a bucket its own catalogue deleted', () => {
  test('is no such bucket, not an error about closed storage', async () => {
    const catalogue = catalogueOn(temporaryDirectory(directories));
    await catalogue.create('photos');
    const bucket = await catalogue.open('photos');
    await catalogue.delete('photos');
    await expectNoSuchBucket(bucket.put('cat.txt', 'meow'), 'put');
    await expectNoSuchBucket(bucket.put('big.bin', new Uint8Array(LARGE)), 'put');
    await expectNoSuchBucket(bucket.createMultipartUpload('movie.mp4'), 'createMultipartUpload');
    // Reads answer as the deleted bucket would: empty.
    expect(await bucket.get('cat.txt')).toBeNull();
    expect((await bucket.list()).objects).toEqual([]);
    expect(await bucket.listMultipartUploads()).toEqual([]);
  });
});

describe('a deletion cut short', () => {
  test('killed after marking the bucket and before moving it: writes refuse it, and deleting it again finishes', async () => {
    const dataDir = temporaryDirectory(directories);
    const catalogue = catalogueOn(dataDir);
    await catalogue.create('photos');
    const bucket = await catalogue.open('photos');
    // What the deletion commits before it renames the directory.
    const db = new Database(join(dataDir, 'buckets', 'photos', 'objects.sqlite'));
    db.prepare('INSERT INTO deletion (only, deleted_at) VALUES (1, ?)').run(Date.now());
    db.close();
    await expectNoSuchBucket(bucket.put('cat.txt', 'meow'), 'put');
    expect((await catalogue.list()).map((listed) => listed.name)).toEqual(['photos']);
    await catalogue.delete('photos');
    expect(await catalogue.list()).toEqual([]);
    expect(bucketDirectories(dataDir)).toEqual([]);
    await catalogue.create('photos');
    const again = await catalogue.open('photos');
    await again.put('cat.txt', 'meow');
    expect(await (await again.get('cat.txt'))!.text()).toBe('meow');
  });

  test('a removal that fails takes the mark back: the bucket stays and takes writes', async () => {
    const directory = temporaryDirectory(directories);
    const engine = new DiskEngine(directory);
    opened.push(engine);
    const failure = new Error('EACCES: the directory could not be renamed');
    await expect(engine.removeIfEmpty(() => { throw failure; })).rejects.toBe(failure);
    const bucket = createBucket({ engine });
    await bucket.put('cat.txt', 'meow');
    expect(await (await bucket.get('cat.txt'))!.text()).toBe('meow');
    expect(await engine.removeIfEmpty(() => {})).toBe(false);
  });

  test("a catalogue's bucket directory gone before its storage is opened is not made again", () => {
    const dataDir = temporaryDirectory(directories);
    const gone = join(dataDir, 'buckets', 'photos');
    expect(() => new DiskEngine(gone, { existing: true })).toThrow();
    expect(existsSync(gone)).toBe(false);
  });
});

describe('another process', () => {
  test('a child holding the bucket open puts after the parent deleted it: refused, nothing made', async () => {
    const dataDir = temporaryDirectory(directories);
    const catalogue = catalogueOn(dataDir);
    await catalogue.create('photos');
    const child = startCatalogueChild(dataDir);
    children.push(child);
    expect(await child.ask('open photos')).toBe('open');
    await catalogue.delete('photos');
    expect(await child.ask('put photos cat.txt 4')).toBe(`refused ${NO_SUCH_BUCKET}`);
    expect(await child.ask(`put photos big.bin ${LARGE}`)).toBe(`refused ${NO_SUCH_BUCKET}`);
    expect(bucketDirectories(dataDir)).toEqual([]);
    await expectCatalogueNoSuchBucket(catalogue.open('photos'));
  }, 60_000);

  test('the parent holding the bucket open puts after a child deleted it: refused', async () => {
    const dataDir = temporaryDirectory(directories);
    const catalogue = catalogueOn(dataDir);
    await catalogue.create('photos');
    const bucket = await catalogue.open('photos');
    const child = startCatalogueChild(dataDir);
    children.push(child);
    expect(await child.ask('delete photos')).toBe('deleted');
    await expectNoSuchBucket(bucket.put('cat.txt', 'meow'), 'put');
    await expectNoSuchBucket(bucket.createMultipartUpload('movie.mp4'), 'createMultipartUpload');
    expect(bucketDirectories(dataDir)).toEqual([]);
  }, 60_000);
});

/** The files of `dataDir` this process holds open that are deleted (Linux: /proc/self/fd). */
function deletedFilesHeld(dataDir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dataDir) && target.endsWith(' (deleted)') ? [target] : [];
    } catch {
      return []; // closed since the listing
    }
  });
}

describe('a bucket another catalogue deleted and made again', () => {
  test.runIf(process.platform === 'linux')('the old storage serves its handles until the catalogue closes, then is closed', async () => {
    const dataDir = temporaryDirectory(directories);
    const [holder, other] = [catalogueOn(dataDir), catalogueOn(dataDir)];
    await holder.create('photos');
    const old = await holder.open('photos');
    await old.put('cat.txt', 'meow');
    await old.delete('cat.txt');
    await other.delete('photos');
    await other.create('photos');
    // The holder finds the new bucket, and keeps the old storage for the handle still on it.
    const fresh = await holder.open('photos');
    await fresh.put('dog.txt', 'woof');
    await expectNoSuchBucket(old.put('cat.txt', 'meow'), 'put');
    expect(deletedFilesHeld(dataDir).length).toBeGreaterThan(0);
    await Promise.all([holder.close(), other.close()]);
    expect(deletedFilesHeld(dataDir)).toEqual([]);
  });
});

describe('writes of one process racing a deletion in another', () => {
  const ROUNDS = 24;
  const WRITES = 24;


  test('either the deletion is refused and every write is acknowledged and readable, or no write is acknowledged', async () => {
    const dataDir = temporaryDirectory(directories);
    const [writer, reader] = [catalogueOn(dataDir), catalogueOn(dataDir)];
    const deleter = startCatalogueChild(dataDir);
    children.push(deleter);
    const seen = { deleted: [] as number[], notEmpty: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const name = `race-${round}`;
      await writer.create(name);
      const bucket = await writer.open(name);
      let answer: string;
      let writes: PromiseSettledResult<{ key: string; upload?: string }>[];
      const allWrites = (delay: (i: number) => number) =>
        Promise.allSettled(Array.from({ length: WRITES }, (_, i) => after(delay(i), () => raceWrite(bucket, i))));
      if (round === 0) {
        // One round each way for certain: the deletion answered before the first write starts...
        answer = await deleter.ask(`delete ${name}`);
        writes = await allWrites((i) => i % 6);
      } else if (round === ROUNDS - 1) {
        // ...and every write answered before the deletion starts.
        writes = await allWrites((i) => i % 6);
        answer = await deleter.ask(`delete ${name}`);
      } else {
        // The others race: the deletion sent from 20 ms before the writes start to 20 ms after.
        const lead = -20 + (40 * (round - 1)) / (ROUNDS - 3);
        const deletion = after(Math.max(0, lead), () => deleter.ask(`delete ${name}`));
        writes = await allWrites((i) => Math.max(0, -lead) + (i % 6));
        answer = await deletion;
      }
      for (const result of writes) {
        if (result.status === 'rejected') {
          expect(result.reason).toBeInstanceOf(BucketError);
          expect((result.reason as BucketError).code, `round ${round}: ${String(result.reason)}`).toBe(NO_SUCH_BUCKET);
        }
      }
      const acknowledged = writes.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      if (answer === 'deleted') {
        // Writes only add: had one been stored before the deletion's transaction, the bucket
        // would not have been empty; every write after it found the mark.
        seen.deleted.push(round);
        expect(acknowledged, `round ${round}: writes acknowledged on a bucket deleted`).toEqual([]);
        expect(bucketDirectories(dataDir)).not.toContain(name);
      } else {
        expect(answer, `round ${round}: the deletion's answer`).toBe('refused 10008');
        seen.notEmpty.push(round);
        expect(acknowledged.length, `round ${round}: a write refused though the bucket stayed`).toBe(WRITES);
        // Read through another catalogue, which opens the bucket afresh.
        const fresh = await reader.open(name);
        for (const { key, upload } of acknowledged) {
          if (upload) continue;
          const i = Number(key.slice('key-'.length));
          const object = await fresh.get(key);
          expect(object, `round ${round}: ${key} acknowledged, then not found`).not.toBeNull();
          const bytes = Buffer.from(await object!.arrayBuffer());
          expect(bytes.equals(i % 8 === 0 ? Buffer.alloc(LARGE, i) : Buffer.from(`value ${i}`)), `round ${round}: ${key}'s bytes`).toBe(true);
        }
        const uploads = (await fresh.listMultipartUploads()).map((upload) => upload.uploadId).sort();
        expect(uploads).toEqual(acknowledged.flatMap((write) => (write.upload ? [write.upload] : [])).sort());
      }
    }
    expect(seen.deleted).toContain(0);
    expect(seen.notEmpty).toContain(ROUNDS - 1);
    // Which way the racing rounds went, for the record (they depend on the machine's timing).
    console.info(`deleted in rounds ${seen.deleted.join(', ')}; not empty in rounds ${seen.notEmpty.join(', ')}`);
  }, 120_000);
});
