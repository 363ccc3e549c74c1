// What only the on-disk engine promises: durability across crashes, strong consistency between
// instances and processes on one directory, and keys that never become paths.
import { readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createBucket, type OpenBucket } from '../../src/bucket';
import { runChild, startChild } from './child-process';
import { md5, temporaryDirectory } from './engines';

const directories: string[] = [];
const opened: OpenBucket[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((bucket) => bucket.close()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const freshDirectory = () => temporaryDirectory(directories);
const openAt = (directory: string, options = {}) => {
  const bucket = createBucket({ directory, ...options });
  opened.push(bucket);
  return bucket;
};
const blobFiles = (directory: string) => readdirSync(join(directory, 'blobs'));

describe('crashes', () => {
  test('a process killed mid-upload leaves the previous object intact and readable', async () => {
    const directory = freshDirectory();
    const previous = Buffer.alloc(300_000, 7);
    const before = await openAt(directory).put('k', previous, { customMetadata: { generation: '1' } });

    const writer = startChild('put-forever', directory, 'k');
    await writer.line((line) => line === 'streaming');
    writer.process.kill('SIGKILL');
    expect((await writer.exited()).signal).toBe('SIGKILL');

    const after = openAt(directory);
    const read = (await after.get('k'))!;
    expect(read).toMatchObject({ etag: before.etag, version: before.version, customMetadata: { generation: '1' } });
    expect(Buffer.from(await read.arrayBuffer()).equals(previous)).toBe(true);
    // Opening again cleared the dead writer's half-written file: only live staging remains.
    expect(readdirSync(join(directory, 'staging')).every((name) => name.startsWith(`${process.pid}-`))).toBe(true);
    expect(blobFiles(directory)).toHaveLength(1);
  });

  test('writes acknowledged before a kill are all there afterwards', async () => {
    const directory = freshDirectory();
    const writer = startChild('put-and-hang', directory, 'k');
    const acknowledged = JSON.parse(await writer.line()) as { small: string; large: string };
    writer.process.kill('SIGKILL');
    await writer.exited();

    const bucket = openAt(directory);
    expect(await (await bucket.get('k-small'))!.text()).toBe('acknowledged');
    expect((await bucket.head('k-small'))!.etag).toBe(acknowledged.small);
    expect(md5(await (await bucket.get('k-large'))!.bytes())).toBe(acknowledged.large);
  });

  test('objects and uploads in progress survive closing and reopening', async () => {
    const directory = freshDirectory();
    const first = createBucket({ directory, minimumPartSize: 4 });
    await first.put('kept', 'value', { httpMetadata: { contentType: 'text/plain' } });
    const upload = await first.createMultipartUpload('parts');
    const part1 = await upload.uploadPart(1, 'AAAA');
    await first.close();
    await expect(first.head('kept')).rejects.toThrow('The bucket storage is closed.');

    const second = openAt(directory, { minimumPartSize: 4 });
    expect((await second.head('kept'))!.httpMetadata).toEqual({ contentType: 'text/plain' });
    const resumed = second.resumeMultipartUpload('parts', upload.uploadId);
    await resumed.complete([part1, await resumed.uploadPart(2, 'B')]);
    expect(await (await second.get('parts'))!.text()).toBe('AAAAB');
  });

  test('opening removes old body files that no record names, and only those', async () => {
    const directory = freshDirectory();
    const bucket = openAt(directory);
    await bucket.put('large', Buffer.alloc(100_000, 1));
    const [kept] = blobFiles(directory);
    const orphan = join(directory, 'blobs', 'f'.repeat(32));
    const recent = join(directory, 'blobs', 'e'.repeat(32));
    writeFileSync(orphan, 'left by a crash before commit');
    writeFileSync(recent, 'maybe about to be committed by another process');
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(orphan, hourAgo, hourAgo);

    openAt(directory);
    expect(blobFiles(directory).sort()).toEqual([kept, 'e'.repeat(32)].sort());
    expect((await bucket.get('large'))!.size).toBe(100_000);
  });
});

describe('strong consistency on one directory', () => {
  test('a second instance sees every write, delete and upload at once', async () => {
    const directory = freshDirectory();
    const [a, b] = [openAt(directory, { minimumPartSize: 2 }), openAt(directory, { minimumPartSize: 2 })];
    await a.put('k', 'from a');
    expect(await (await b.get('k'))!.text()).toBe('from a');
    await b.put('k', Buffer.alloc(50_000, 2));
    expect((await a.head('k'))!.size).toBe(50_000);
    await b.delete('k');
    expect(await a.get('k')).toBeNull();
    const upload = await a.createMultipartUpload('m');
    const part = await b.resumeMultipartUpload('m', upload.uploadId).uploadPart(1, 'xy');
    await upload.complete([part]);
    expect((await b.list()).objects.map((o) => o.key)).toEqual(['m']);
  });

  test('another process reads what this one wrote, and the other way round', async () => {
    const directory = freshDirectory();
    const bucket = openAt(directory);
    await bucket.put('from-parent', 'parent wrote this');
    expect(await runChild('read', directory, 'from-parent')).toEqual(['parent wrote this']);
    const [etag] = await runChild('put', directory, 'from-child', 'child wrote this');
    expect((await bucket.head('from-child'))!.etag).toBe(etag);
    expect(await (await bucket.get('from-child'))!.text()).toBe('child wrote this');
  });

  test('processes racing to create one key: exactly one wins and its value is stored', async () => {
    const directory = freshDirectory();
    openAt(directory); // the schema exists before the race
    const racers = ['one', 'two', 'three', 'four'];
    const outcomes = await Promise.all(racers.map((value) => runChild('create-if-absent', directory, 'k', value)));
    const winners = racers.filter((_, i) => outcomes[i]![0] === 'won');
    expect(winners).toHaveLength(1);
    expect(outcomes.flat().filter((line) => line === 'lost')).toHaveLength(3);
    expect(await (await openAt(directory).get('k'))!.text()).toBe(winners[0]);
  });

  test('compare-and-swap increments from three processes lose no update', async () => {
    const directory = freshDirectory();
    await openAt(directory).put('counter', '0');
    await Promise.all([1, 2, 3].map(() => runChild('increment', directory, 'counter', '10')));
    expect(await (await openAt(directory).get('counter'))!.text()).toBe('30');
  });

  test('a body being read stays whole while its object is replaced and deleted', async () => {
    const directory = freshDirectory();
    const [reader, writer] = [openAt(directory, { minimumPartSize: 100_000 }), openAt(directory)];
    const original = Buffer.alloc(3 * 1024 * 1024).map((_, i) => i % 253);
    await reader.put('single', original);
    const upload = await reader.createMultipartUpload('multi');
    await upload.complete([
      await upload.uploadPart(1, original.subarray(0, 2 * 1024 * 1024)),
      await upload.uploadPart(2, original.subarray(2 * 1024 * 1024)),
    ]);
    for (const key of ['single', 'multi']) {
      const reading = (await reader.get(key))!;
      const stream = reading.body.getReader();
      const first = await stream.read();
      await writer.put(key, 'replaced');
      await writer.delete(key);
      const chunks = [first.value!];
      for (let r = await stream.read(); !r.done; r = await stream.read()) chunks.push(r.value);
      expect(Buffer.concat(chunks).equals(original), key).toBe(true);
    }
    expect(blobFiles(directory)).toEqual([]);
  });
});

describe('keys are never paths', () => {
  test('hostile keys stay inside the bucket, under generated names', async () => {
    const directory = freshDirectory();
    const bucket = openAt(directory);
    const keys = ['../escape', '../../etc/passwd', '/absolute', 'a/../../b', 'nul\u0000', 'blobs', 'staging/x', '.'];
    const large = Buffer.alloc(40_000, 9);
    for (const key of keys) {
      await bucket.put(key, large);
      await bucket.put(`${key}-small`, 'small');
    }
    expect(readdirSync(directory).sort()).toEqual(['blobs', 'objects.sqlite', 'objects.sqlite-shm', 'objects.sqlite-wal', 'staging']);
    expect(blobFiles(directory)).toHaveLength(keys.length);
    for (const name of blobFiles(directory)) {
      expect(name).toMatch(/^[0-9a-f]{32}$/);
      expect(statSync(join(directory, 'blobs', name)).size).toBe(40_000);
    }
    for (const key of keys) expect((await bucket.get(key))!.size).toBe(40_000);
    expect(readdirSync(join(directory, '..')).includes('escape')).toBe(false);
  });
});

describe('schema versions', () => {
  // The upload and part tables as the first version wrote them (user_version 0).
  const FIRST_VERSION = `
    CREATE TABLE objects (key BLOB PRIMARY KEY, version TEXT NOT NULL, size INTEGER NOT NULL, etag TEXT NOT NULL,
      uploaded INTEGER NOT NULL, http_metadata TEXT NOT NULL, custom_metadata TEXT NOT NULL, checksums TEXT NOT NULL,
      body_id INTEGER, segments TEXT) WITHOUT ROWID;
    CREATE TABLE small_bodies (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
    CREATE TABLE uploads (upload_id TEXT PRIMARY KEY, key BLOB NOT NULL, created INTEGER NOT NULL, http_metadata TEXT NOT NULL,
      custom_metadata TEXT NOT NULL, state TEXT NOT NULL CHECK (state IN ('active', 'completed', 'aborted'))) WITHOUT ROWID;
    CREATE TABLE parts (upload_id TEXT NOT NULL, part_number INTEGER NOT NULL, blob TEXT NOT NULL, size INTEGER NOT NULL,
      etag TEXT NOT NULL, md5 TEXT NOT NULL, PRIMARY KEY (upload_id, part_number)) WITHOUT ROWID;
    INSERT INTO uploads VALUES ('old-upload', CAST('old' AS BLOB), 0, '{}', '{}', 'active');
  `;

  test('a directory written by the first version is migrated: its uploads go on, new ones keep checksums', async () => {
    const { default: Database } = await import('better-sqlite3');
    const directory = freshDirectory();
    const db = new Database(join(directory, 'objects.sqlite'));
    db.exec(FIRST_VERSION);
    db.close();
    const bucket = openAt(directory, { clock: () => 1 });
    const old = bucket.resumeMultipartUpload('old', 'old-upload');
    const part = await old.uploadPart(1, 'from before');
    expect(await (await old.complete([part])).size).toBe(11);
    const created = await bucket.createUpload('new', { checksum: { algorithm: 'sha256', type: 'COMPOSITE' } });
    const value = createHash('sha256').update('part').digest('base64');
    await bucket.uploadPartWith('new', created.uploadId, 1, 'part', { algorithm: 'sha256', value: () => value });
    expect((await bucket.listParts('new', created.uploadId)).parts[0]!.checksum).toEqual({ algorithm: 'sha256', value });
    const check = new Database(join(directory, 'objects.sqlite'), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(3);
    // Version 2: the deletion mark, empty while the bucket lives.
    expect(check.prepare('SELECT count(*) FROM deletion').pluck().get()).toBe(0);
    // Version 3: what an object, an upload or a part encrypted under a customer key keeps (null: plain).
    expect(check.prepare("SELECT count(*) FROM objects WHERE encryption IS NULL").pluck().get()).toBe(1);
    expect(check.prepare('SELECT count(*) FROM uploads WHERE encryption IS NOT NULL').pluck().get()).toBe(0);
    expect((check.pragma('table_info(parts)') as { name: string }[]).map((column) => column.name)).toContain('iv');
    check.close();
  });

  test('a directory written by a newer version is refused, saying so', async () => {
    const { default: Database } = await import('better-sqlite3');
    const directory = freshDirectory();
    const db = new Database(join(directory, 'objects.sqlite'));
    db.pragma('user_version = 99');
    db.close();
    expect(() => createBucket({ directory })).toThrow(
      `bucket database ${directory} has schema version 99; this version knows up to 3. It was written by a newer version: upgrade the toolkit.`,
    );
  });
});
