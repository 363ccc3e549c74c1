// Saving and loading the whole platform's state (src/state, `npm run state`): a round trip keeps
// the store's rows (ruleset versions, log push job ids and the next id) and every bucket's
// settings, objects (bytes, metadata, etags, parts) and uploads in progress; an export while
// writers work is consistent; a newer, truncated, damaged file or a non-empty target is refused
// and leaves the target as it was.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bytesInMemory, openBucketCatalogue, type OpenBucket } from '../../src/bucket';
import { exportState, importState, importStateIfEmpty, openPlace, StateFileError, type PlaceOptions } from '../../src/state';
import { StateWriter } from '../../src/state/format';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store';
import { startPostgres, type PostgresCluster } from '../support/postgres';
import { readyOrigin } from '../support/server-ready';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const ZONE = 'db737a563ced53f224ff5eae44905c5e';
const OTHER_ACCOUNT = '5a7805061c76ada191ed06f989cc3dac';
const MiB = 1024 * 1024;

const temporary: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-test-'));
  temporary.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
});

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest('hex');
const filled = (size: number, byte: number) => new Uint8Array(size).fill(byte);

/** What the source holds beyond the fixtures, to compare after the round trip. */
interface Made {
  rulesetId: string;
  /** The zone's jobs after the last one made was deleted. */
  jobIds: number[];
  /** The id of that deleted job: the last number handed out. */
  lastJobId: number;
  pendingUploadId: string;
  firstPart: { partNumber: number; etag: string };
}

/** Fills a place: rulesets with versions, log push jobs, buckets with objects and uploads. */
async function populate(store: Store, where: PlaceOptions): Promise<Made> {
  const ruleset = await store.rulesets.create({ zone_id: ZONE }, {
    name: 'saved',
    kind: 'zone',
    phase: 'http_request_late_transform',
    rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.1' }],
  });
  for (const address of ['192.0.2.2', '192.0.2.3']) {
    await store.rulesets.update({ zone_id: ZONE }, ruleset.id, { rules: [{ action: 'block', expression: `ip.src eq ${address}` }] });
  }
  const jobIds: number[] = [];
  for (const name of ['first', 'second', 'third']) {
    jobIds.push((await store.logpushJobs.create(ZONE, { name, dataset: 'http_requests', destination_conf: 's3://bucket/logs?region=us-east-1' })).id);
  }
  const lastJobId = jobIds.at(-1)!;
  await store.logpushJobs.delete(ZONE, lastJobId);
  const remaining = (await store.logpushJobs.list(ZONE)).map((job) => job.id);

  const catalogue = await catalogueOf(where);
  try {
    await catalogue.account().create('photos', { locationHint: 'weur', storageClass: 'InfrequentAccess' });
    await catalogue.account().setCors('photos', [{ allowed: { origins: ['https://example.com'], methods: ['GET'] }, maxAgeSeconds: 60 }]);
    await catalogue.account().setLifecycle('photos', [
      { id: 'expire-tmp', enabled: true, conditions: { prefix: 'tmp/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 86400 } } },
    ]);
    await catalogue.account(OTHER_ACCOUNT).create('other-logs', { jurisdiction: 'eu' });
    const photos = await catalogue.open('photos');
    await photos.put('small.txt', 'hello', { httpMetadata: { contentType: 'text/plain', cacheControl: 'max-age=60' }, customMetadata: { owner: 'ada' } });
    await photos.put('empty', new Uint8Array(0));
    await photos.put('big.bin', filled(300_000, 7), { sha256: createHash('sha256').update(filled(300_000, 7)).digest('hex') });
    await photos.put('ünïcode/ключ', 'keys are UTF-8');
    const done = await photos.createMultipartUpload('multi.bin', { customMetadata: { made: 'in parts' } });
    const parts = [await done.uploadPart(1, filled(5 * MiB, 1)), await done.uploadPart(2, filled(1000, 2))];
    await done.complete(parts);
    const pending = await photos.createMultipartUpload('pending.bin', { httpMetadata: { contentType: 'application/octet-stream' } });
    const firstPart = await pending.uploadPart(1, filled(5 * MiB, 3));
    // What the S3 endpoint keeps beside: an object's S3 checksum, an upload's algorithm, a part's.
    const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');
    await photos.putWith('summed.txt', bytesInMemory(Buffer.from('summed')), { checksum: { algorithm: 'sha256', value: () => sha256('summed') } });
    const summing = await photos.createUpload('summing.bin', { checksum: { algorithm: 'sha256', type: 'COMPOSITE' } });
    await photos.uploadPartWith('summing.bin', summing.uploadId, 1, 'first part', { algorithm: 'sha256', value: () => sha256('first part') });
    const others = await catalogue.account(OTHER_ACCOUNT).open('other-logs');
    await others.put('log-1', 'line');
    return { rulesetId: ruleset.id, jobIds: remaining, lastJobId, pendingUploadId: pending.uploadId, firstPart };
  } finally {
    await catalogue.close();
  }
}

/** The buckets where the front doors keep them for that place: its data directory or its database. */
function catalogueOf(where: PlaceOptions) {
  return openBucketCatalogue({ dataDir: where.dataDir, databaseUrl: where.databaseUrl });
}

async function bytesOf(bucket: OpenBucket, key: string): Promise<Uint8Array> {
  const object = await bucket.get(key);
  if (!object || !('arrayBuffer' in object)) throw new Error(`no object ${key}`);
  return new Uint8Array(await object.arrayBuffer());
}

/** Every object of a bucket as it reads: record and bytes. */
async function contents(bucket: OpenBucket) {
  const listed = await bucket.list({ include: ['httpMetadata', 'customMetadata'] });
  const objects = [];
  for (const object of listed.objects) {
    const read = await bucket.get(object.key);
    objects.push({
      key: object.key,
      version: object.version,
      size: object.size,
      etag: object.etag,
      uploaded: object.uploaded.getTime(),
      httpMetadata: object.httpMetadata,
      customMetadata: object.customMetadata,
      checksums: object.checksums.toJSON(),
      s3Checksum: bucket.checksumOf(object as never),
      md5: md5(new Uint8Array(await (read as unknown as { arrayBuffer(): Promise<ArrayBuffer> }).arrayBuffer())),
    });
  }
  return objects;
}

/** The whole state of a place as comparable values (store rows and buckets). */
async function everything(options: PlaceOptions) {
  const place = await openPlace(options);
  const rows: unknown[] = [];
  try {
    await place.store.dump.export((entry) => void rows.push(entry));
  } finally {
    await place.close();
  }
  const catalogue = await catalogueOf(options);
  try {
    const buckets = [];
    for (const account of [undefined, OTHER_ACCOUNT]) {
      const listed = await catalogue.account(account).list();
      const eu = await catalogue.account(account).list({ jurisdiction: 'eu' });
      for (const info of [...listed.buckets, ...eu.buckets]) {
        const where = { jurisdiction: info.jurisdiction };
        const bucket = await catalogue.account(account).open(info.name);
        buckets.push({
          info,
          cors: await catalogue.account(account).cors(info.name, where),
          lifecycle: await catalogue.account(account).lifecycle(info.name, where),
          objects: await contents(bucket),
          uploads: await Promise.all(
            (await bucket.listMultipartUploads()).map(async (upload) => ({
              ...upload,
              parts: (await bucket.listParts(upload.key, upload.uploadId)).parts.map((part) => ({ ...part })),
            })),
          ),
        });
      }
    }
    return { rows, buckets };
  } finally {
    await catalogue.close();
  }
}

async function expectEmpty(options: PlaceOptions): Promise<void> {
  const place = await openPlace(options);
  try {
    expect(await place.store.dump.isEmpty()).toBe(true);
    for (const account of (await place.buckets.accounts?.()) ?? []) expect(await place.buckets.list(account)).toEqual([]);
  } finally {
    await place.close();
  }
}

/** The round trip on one store engine; `newStoreOptions` gives a fresh place each call. */
function roundTrip(engine: string, fresh: () => Promise<PlaceOptions>, openStore: (options: PlaceOptions) => Promise<Store>) {
  describe(`round trip (${engine}: the store and the buckets)`, () => {
    let source: PlaceOptions;
    let made: Made;
    let file: string;

    beforeAll(async () => {
      source = await fresh();
      const store = await openStore(source);
      try {
        made = await populate(store, source);
      } finally {
        await store.close();
      }
      file = path.join(tempDir(), 'platform.state');
      const place = await openPlace(source, true);
      try {
        const saved = await exportState(place, file);
        expect(saved).toMatchObject({ buckets: 2, objects: 7, uploads: 2 });
      } finally {
        await place.close();
      }
    });

    test('everything reads back identical: rows, versions, jobs, buckets, objects, uploads', async () => {
      const target = await fresh();
      const place = await openPlace(target);
      try {
        const loaded = await importState(file, place);
        expect(loaded).toMatchObject({ buckets: 2, objects: 7, uploads: 2 });
      } finally {
        await place.close();
      }
      const [before, after] = [await everything(source), await everything(target)];
      expect(after.rows).toEqual(before.rows);
      expect(after.buckets).toEqual(before.buckets);
      expect(after.buckets.flatMap((bucket) => bucket.objects.map((object) => object.key))).toEqual([
        'big.bin', 'empty', 'multi.bin', 'small.txt', 'summed.txt', 'ünïcode/ключ', 'log-1',
      ]);
      // The S3 checksums came through, not just the same nothing on both sides.
      const photosAfter = after.buckets.find((bucket) => bucket.info.name === 'photos')!;
      const summedSha = createHash('sha256').update('summed').digest('base64');
      expect(photosAfter.objects.find((object) => object.key === 'summed.txt')?.s3Checksum).toMatchObject({ algorithm: 'sha256', value: summedSha });
      const summing = photosAfter.uploads.find((upload) => upload.key === 'summing.bin')!;
      expect(summing.checksum).toEqual({ algorithm: 'sha256', type: 'COMPOSITE' });
      expect(summing.parts.map((part) => part.checksum)).toEqual([{ algorithm: 'sha256', value: createHash('sha256').update('first part').digest('base64') }]);

      const store = await openStore(target);
      try {
        const ruleset = await store.rulesets.get({ zone_id: ZONE }, made.rulesetId);
        expect(ruleset?.version).toBe('3');
        expect(ruleset?.rules.map((rule) => rule.expression)).toEqual(['ip.src eq 192.0.2.3']);
        expect((await store.rulesets.getVersion({ zone_id: ZONE }, made.rulesetId, '1'))?.rules[0]?.expression).toBe('ip.src eq 192.0.2.1');
        expect((await store.rulesets.listVersions({ zone_id: ZONE }, made.rulesetId))?.map((v) => v.version)).toEqual(['1', '2', '3']);
        expect((await store.logpushJobs.list(ZONE)).map((job) => job.id)).toEqual(made.jobIds);
        // The deleted job's id stays used: the next job gets a number above every one handed out.
        const next = await store.logpushJobs.create(ZONE, { dataset: 'http_requests', destination_conf: 's3://b/next?region=us-east-1' });
        expect(made.jobIds).not.toContain(made.lastJobId);
        expect(next.id).toBe(made.lastJobId + 1);
      } finally {
        await store.close();
      }

      const catalogue = await catalogueOf(target);
      try {
        const photos = await catalogue.open('photos');
        expect(await catalogue.account().get('photos')).toMatchObject({ location: 'weur', storageClass: 'InfrequentAccess' });
        // A completed multipart object still reads part by part, with its multipart etag.
        const multi = await photos.head('multi.bin');
        expect(multi?.etag).toMatch(/-2$/);
        const second = await photos.getPart('multi.bin', 2);
        expect(second?.partsCount).toBe(2);
        const partBytes = new Uint8Array(await (second!.object as unknown as { arrayBuffer(): Promise<ArrayBuffer> }).arrayBuffer());
        expect(partBytes).toEqual(filled(1000, 2));
        // The upload in progress goes on where it stopped.
        const pending = photos.resumeMultipartUpload('pending.bin', made.pendingUploadId);
        const last = await pending.uploadPart(2, 'the end');
        const completed = await pending.complete([made.firstPart, last]);
        expect(completed.size).toBe(5 * MiB + 7);
        const bytes = await bytesOf(photos, 'pending.bin');
        expect(md5(bytes)).toBe(md5(Buffer.concat([filled(5 * MiB, 3), Buffer.from('the end')])));
        expect((await photos.head('pending.bin'))?.httpMetadata).toEqual({ contentType: 'application/octet-stream' });
      } finally {
        await catalogue.close();
      }
    });

    test('a target holding state is refused and keeps what it holds', async () => {
      const target = await fresh();
      const seeded = await openStore({ ...target });
      const seededRows = await rowCount(seeded);
      await seeded.close();
      await expect(importAt(file, target)).rejects.toThrow(/target is not empty \(the store holds data\).*nothing was loaded/);
      const store = await openStore(target);
      try {
        expect(await rowCount(store)).toBe(seededRows);
      } finally {
        await store.close();
      }
      const catalogue = await catalogueOf(target);
      expect(await catalogue.list()).toEqual([]);
      await catalogue.close();
    });

    test('an empty store beside an existing bucket is refused too, and the bucket stays alone', async () => {
      const target = await fresh();
      const catalogue = await catalogueOf(target);
      await catalogue.create('already-here');
      await catalogue.close();
      await expect(importAt(file, target)).rejects.toThrow(/not empty \(account 023e105f4ecef8ad9ca31a8372d0c353 has bucket already-here\)/);
      const place = await openPlace(target);
      try {
        expect(await place.store.dump.isEmpty()).toBe(true);
        expect((await place.buckets.list('023e105f4ecef8ad9ca31a8372d0c353')).map((b) => b.name)).toEqual(['already-here']);
      } finally {
        await place.close();
      }
    });

    test('a file of a newer version, a truncated or a damaged file is refused before anything is loaded', async () => {
      const whole = fs.readFileSync(file);
      const dir = tempDir();
      const newer = path.join(dir, 'newer.state');
      const firstLine = whole.indexOf(0x0a);
      fs.writeFileSync(newer, Buffer.concat([Buffer.from(whole.subarray(0, firstLine).toString().replace('"version":1', '"version":2')), whole.subarray(firstLine)]));
      const truncatedInBytes = path.join(dir, 'truncated-bytes.state');
      fs.writeFileSync(truncatedInBytes, whole.subarray(0, Math.floor(whole.length * 0.7)));
      const withoutEnd = path.join(dir, 'without-end.state');
      fs.writeFileSync(withoutEnd, whole.subarray(0, whole.lastIndexOf(0x0a, whole.length - 2) + 1));
      const damaged = path.join(dir, 'damaged.state');
      const flipped = Buffer.from(whole);
      flipped[Math.floor(flipped.length / 2)]! ^= 0xff; // inside the 5 MiB of a part: bytes, not a record
      fs.writeFileSync(damaged, flipped);

      for (const [bad, message] of [
        [newer, /written by a newer version \(state format 2\); this version reads format 1/],
        [truncatedInBytes, /is truncated/],
        [withoutEnd, /is truncated: it ends at byte \d+ before its end record/],
        [damaged, /is damaged: its checksum does not match its contents/],
      ] as const) {
        const target = await fresh();
        await expect(importAt(bad, target), bad).rejects.toThrow(message);
        await expect(importAt(bad, target)).rejects.toBeInstanceOf(StateFileError);
        await expectEmpty(target);
      }
    });

    test('a load failing half-way (a newer store schema found after the buckets) leaves nothing behind', async () => {
      const bad = path.join(tempDir(), 'future-schema.state');
      const writer = await StateWriter.create(bad);
      await writer.record({ type: 'store.schema', migrations: ['0001_initial', '9999_from_the_future'] });
      await writer.record({
        type: 'bucket', account: '023e105f4ecef8ad9ca31a8372d0c353', name: 'doomed', createdAt: new Date().toISOString(),
        location: 'enam', jurisdiction: 'default', storageClass: 'Standard', cors: null, lifecycle: [],
      });
      const body = filled(100_000, 9);
      await writer.record(
        { type: 'object', key: 'k', version: 'v1', size: body.length, etag: md5(body), uploaded: Date.now(), httpMetadata: {}, customMetadata: {}, checksums: { md5: md5(body) }, partSizes: [body.length], bytes: body.length },
        (async function* () { yield body; })(),
      );
      await writer.finish();
      const target = await fresh();
      await expect(importAt(bad, target)).rejects.toThrow(/newer store schema \(migrations 9999_from_the_future are unknown here\).*nothing was loaded/);
      await expectEmpty(target);
    });
  });
}

async function importAt(file: string, options: PlaceOptions) {
  const place = await openPlace(options);
  try {
    return await importState(file, place);
  } finally {
    await place.close();
  }
}

async function rowCount(store: Store): Promise<number> {
  let rows = 0;
  await store.dump.export((entry) => void (entry.kind === 'row' && rows++));
  return rows;
}

roundTrip(
  'SQLite',
  async () => ({ dataDir: tempDir() }),
  (options) => openSqliteStore({ dataDir: options.dataDir }),
);

describe('on PostgreSQL', () => {
  let cluster: PostgresCluster | undefined;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  roundTrip(
    'PostgreSQL',
    async () => ({ dataDir: tempDir(), databaseUrl: await cluster!.createDatabase('state') }),
    (options) => openPostgresStore({ connectionString: options.databaseUrl! }),
  );

  test('an export while writers change rulesets and objects is one consistent instant per part', async () => {
    const source = { dataDir: tempDir(), databaseUrl: await cluster!.createDatabase('state') };
    const store = await openPostgresStore({ connectionString: source.databaseUrl });
    const catalogue = await catalogueOf(source);
    const file = path.join(tempDir(), 'busy.state');
    try {
      const ruleset = await store.rulesets.create({ zone_id: ZONE }, { name: 'busy', kind: 'zone', phase: 'http_request_late_transform', rules: [] });
      await catalogue.create('busy');
      const bucket = await catalogue.open('busy');
      // Bodies above 32 KiB live in files (disk) or chunks (PostgreSQL) a replacement drops: the
      // snapshot must keep them.
      const write = async (i: number) => {
        await bucket.put(`k${i % 4}`, filled(40_000 + i, i % 256), { customMetadata: { i: String(i) } });
        await store.rulesets.update({ zone_id: ZONE }, ruleset.id, { rules: [{ action: 'block', expression: `ip.src eq 192.0.2.${i % 250}` }] });
      };
      for (let i = 0; i < 4; i++) await write(i);
      let stop = false;
      let writes = 0;
      const writer = (async () => {
        for (let i = 4; !stop; i++) {
          await write(i);
          writes++;
        }
      })();
      const place = await openPlace(source, true);
      try {
        await exportState(place, file);
      } finally {
        stop = true;
        await writer;
        await place.close();
      }
      expect(writes).toBeGreaterThan(0);

      const target = { dataDir: tempDir(), databaseUrl: await cluster!.createDatabase('state') };
      await importAt(file, target);
      const loaded = await openPostgresStore({ connectionString: target.databaseUrl });
      const targetCatalogue = await catalogueOf(target);
      try {
        // The ruleset, its rules and its versions come from one commit.
        const saved = (await loaded.rulesets.get({ zone_id: ZONE }, ruleset.id))!;
        const versions = (await loaded.rulesets.listVersions({ zone_id: ZONE }, ruleset.id))!;
        expect(versions.at(-1)!.version).toBe(saved.version);
        expect(versions).toHaveLength(Number(saved.version));
        expect((await loaded.rulesets.getVersion({ zone_id: ZONE }, ruleset.id, saved.version))?.rules).toEqual(saved.rules);
        // Each object's bytes belong to its metadata and etag.
        const busy = await targetCatalogue.open('busy');
        for (let k = 0; k < 4; k++) {
          const head = (await busy.head(`k${k}`))!;
          const i = Number(head.customMetadata!.i);
          const bytes = await bytesOf(busy, `k${k}`);
          expect(bytes.length).toBe(40_000 + i);
          expect(bytes.every((byte) => byte === i % 256)).toBe(true);
          expect(head.etag).toBe(md5(bytes));
        }
      } finally {
        await loaded.close();
        await targetCatalogue.close();
      }
    } finally {
      await store.close();
      await catalogue.close();
    }
  });
});

describe('npm run state and STATE_FILE, in child processes', () => {
  test('export and import through the command; refusals exit 1 with the reason', async () => {
    const source = tempDir();
    const store = await openSqliteStore({ dataDir: source });
    const made = await populate(store, { dataDir: source });
    await store.close();
    const file = path.join(tempDir(), 'cli.state');
    const cli = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'scripts/state.ts', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: '', DATABASE_URL: '' } });

    const saved = await cli('export', file, '--data-dir', source);
    expect(saved.stdout).toMatch(/^Saved the state of .* to .*cli\.state \(\d+\.\d MiB\): \d+ store rows, 2 buckets, 7 objects, 2 uploads in progress\n$/);
    const target = tempDir();
    const loaded = await cli('import', file, '--data-dir', target);
    expect(loaded.stdout).toMatch(/^Loaded .*cli\.state into .*: \d+ store rows, 2 buckets, 7 objects, 2 uploads in progress\n$/);
    const again = await cli('import', file, '--data-dir', target).catch((error: { code: number; stderr: string }) => error);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/^state: the target is not empty \(the store holds data\)/) });
    const missing = await cli('export', path.join(target, 'x.state'), '--data-dir', path.join(target, 'nowhere')).catch((error: { code: number; stderr: string }) => error);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/holds no state \(no store\.sqlite\)/) });
    const newer = path.join(tempDir(), 'newer.state');
    const whole = fs.readFileSync(file);
    fs.writeFileSync(newer, Buffer.concat([Buffer.from('{"format":"edge-api-toolkit state","version":7,"created":"2030-01-01T00:00:00.000Z"}\n'), whole.subarray(whole.indexOf(0x0a) + 1)]));
    const untouched = path.join(tempDir(), 'untouched');
    const refused = await cli('import', newer, '--data-dir', untouched).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/written by a newer version \(state format 7\)/) });
    expect(fs.existsSync(untouched)).toBe(false);
    const usage = await cli('save', file).catch((error: { code: number; stderr: string }) => error);
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringMatching(/^Unknown command "save"/) });

    // The API server started from the file on an empty data directory serves the saved state.
    const fresh = tempDir();
    const server = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', DATA_DIR: fresh, STATE_FILE: file, API_TOKEN: 'state-test-token', LOG_LEVEL: 'warn', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const origin = await new Promise<string>((resolve, reject) => {
        server.stdout!.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const found = readyOrigin(output);
          if (found) resolve(found);
        });
        server.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
      });
      const answer = await fetch(`${origin}/client/v4/zones/${ZONE}/rulesets/${made.rulesetId}`, { headers: { authorization: 'Bearer state-test-token' } });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { result: { version: string } }).result.version).toBe('3');
    } finally {
      server.kill('SIGTERM');
    }
    // A second start keeps what is there (nothing stored is replaced).
    expect(await importStateIfEmpty(file, { dataDir: fresh })).toEqual({ imported: false });
  }, 120_000);
});

describe('records a load cannot take', () => {
  test('a record of the wrong shape is refused by name before anything is loaded', async () => {
    const bad = path.join(tempDir(), 'bad-record.state');
    const writer = await StateWriter.create(bad);
    await writer.record({ type: 'store.schema', migrations: ['0001_initial'] });
    await writer.record({
      type: 'bucket', account: '023e105f4ecef8ad9ca31a8372d0c353', name: 'fine', createdAt: new Date().toISOString(),
      location: 'enam', jurisdiction: 'default', storageClass: 'Standard', cors: null, lifecycle: [],
    });
    await writer.record({ type: 'object', key: 'k', version: 'v', size: 3, etag: 'e', uploaded: -1, httpMetadata: {}, customMetadata: {}, checksums: {}, partSizes: [3], bytes: 3 }, (async function* () { yield Buffer.from('abc'); })());
    await writer.finish();
    const target = { dataDir: tempDir() };
    await expect(importAt(bad, target)).rejects.toThrow(/bad-record\.state is damaged: record 3: the object record's uploaded /);
    await expectEmpty(target);
  });

  test('the store refuses rows of a table or column it does not have, and keeps none', async () => {
    const store = await openSqliteStore({ dataDir: tempDir(), seed: false });
    try {
      const load = (table: string, row: Record<string, string | number | null>) =>
        store.dump.import([
          { kind: 'schema', migrations: ['0001_initial'] },
          { kind: 'row', table: 'accounts', row: { id: OTHER_ACCOUNT, name: 'a', type: 'standard', settings: '{}', created_on: '2020-01-01T00:00:00Z' } },
          { kind: 'row', table, row },
        ]);
      await expect(load('wishes', { id: 'x' })).rejects.toThrow(/unknown table "wishes"/);
      await expect(load('accounts', { id: 'y', colour: 'blue' })).rejects.toThrow(/table accounts has no column "colour"/);
      await expect(load('accounts', { id: OTHER_ACCOUNT, name: 'b', type: 'standard', settings: '{}', created_on: '2020-01-01T00:00:00Z' })).rejects.toThrow(/table accounts refused its rows/);
      expect(await store.dump.isEmpty()).toBe(true);
    } finally {
      await store.close();
    }
  });
});
