// `npm run s3` as a user runs it, in its own process, beside the binding in this one: both see
// one storage, strongly consistent; the configuration mistakes are refused up front.
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  CompleteMultipartUploadCommand,
  ListObjectsV2Command,
} from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { BucketCatalogue } from '../../src/bucket';
import { COMMAND_TEST_TIMEOUT_MS, expectCleanStop, runCommand, startHost, type Host } from '../worker/commands';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const KEY_ID = 'CLIKEY';
const SECRET = 'command-line-secret-123';
const OTHER_ID = 'FILEKEY';
const OTHER_SECRET = 'from-the-credentials-file';

const dataDir = mkdtempSync(join(tmpdir(), 's3-command-'));
const credentials = join(dataDir, '..', `${dataDir.split('/').pop()}.credentials`);
let host: Host;
let catalogue: BucketCatalogue;
let s3: S3Client;

beforeAll(async () => {
  writeFileSync(credentials, `# access keys of the S3 endpoint\n${OTHER_ID}=${OTHER_SECRET}\n`);
  host = await startHost(
    ['--port', '0', '--data-dir', dataDir, '--credentials', credentials],
    { S3_ACCESS_KEY_ID: KEY_ID, S3_SECRET_ACCESS_KEY: SECRET },
    's3',
  );
  catalogue = new BucketCatalogue(dataDir, { minimumPartSize: 5 * 1024 * 1024 });
  s3 = new S3Client({
    endpoint: host.url,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
  });
});

afterAll(async () => {
  s3.destroy();
  await catalogue.close();
  await expectCleanStop(host);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(credentials, { force: true });
});

describe('one storage, two front doors, two processes', () => {
  test('the start-up lines name the keys, never the secrets', () => {
    expect(host.output.stdout).toContain(`access keys: ${KEY_ID}, ${OTHER_ID}`);
    expect(host.output.stdout + host.output.stderr).not.toContain(SECRET);
    expect(host.output.stdout + host.output.stderr).not.toContain(OTHER_SECRET);
  });

  test('writes through S3 are read at once through the binding, and the other way round', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'shared' }));
    const bucket = await catalogue.open('shared');
    for (let i = 0; i < 20; i++) {
      await s3.send(
        new PutObjectCommand({ Bucket: 'shared', Key: `s3/${i}`, Body: `from s3 ${i}`, Metadata: { n: String(i) } }),
      );
      const seen = await bucket.get(`s3/${i}`);
      expect(await seen!.text()).toBe(`from s3 ${i}`);
      expect(seen!.customMetadata).toEqual({ n: String(i) });
      await bucket.put(`binding/${i}`, `from the binding ${i}`, { httpMetadata: { contentType: 'text/plain' } });
      const got = await s3.send(new GetObjectCommand({ Bucket: 'shared', Key: `binding/${i}` }));
      expect(await got.Body!.transformToString()).toBe(`from the binding ${i}`);
      expect(got.ContentType).toBe('text/plain');
      await bucket.delete(`s3/${i}`);
      expect((await s3.send(new ListObjectsV2Command({ Bucket: 'shared', Prefix: `s3/${i}` }))).KeyCount).toBe(0);
    }
  });

  test('an upload created through the binding is completed through S3 (the platform part rules apply)', async () => {
    const bucket = await catalogue.open('shared');
    const upload = await bucket.createMultipartUpload('joined', { customMetadata: { via: 'binding' } });
    const first = await upload.uploadPart(1, new Uint8Array(5 * 1024 * 1024).fill(7));
    const second = await s3.send(
      new UploadPartCommand({
        Bucket: 'shared',
        Key: 'joined',
        UploadId: upload.uploadId,
        PartNumber: 2,
        Body: 'tail',
      }),
    );
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'shared',
        Key: 'joined',
        UploadId: upload.uploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: `"${first.etag}"` },
            { PartNumber: 2, ETag: second.ETag! },
          ],
        },
      }),
    );
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
    const object = await bucket.head('joined');
    expect(object).toMatchObject({
      size: 5 * 1024 * 1024 + 4,
      customMetadata: { via: 'binding' },
      etag: done.ETag!.replace(/"/g, ''),
    });
  });

  test('keys from the credentials file sign too', async () => {
    const other = new S3Client({
      endpoint: host.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: OTHER_ID, secretAccessKey: OTHER_SECRET },
    });
    const got = await other.send(new GetObjectCommand({ Bucket: 'shared', Key: 'binding/0' }));
    expect(await got.Body!.transformToString()).toBe('from the binding 0');
    other.destroy();
  });
});

describe('configuration refused up front', () => {
  test('no access key, half a key, an unreadable or malformed credentials file, a bad port', async () => {
    const none = await runCommand('s3', ['--port', '0', '--data-dir', dataDir], {
      S3_ACCESS_KEY_ID: '',
      S3_SECRET_ACCESS_KEY: '',
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('the access key id "" must be 3 to 128 letters, digits or _.');
    const half = await runCommand('s3', ['--port', '0'], { S3_ACCESS_KEY_ID: 'ONLYID' });
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both or neither.');
    const missing = await runCommand('s3', ['--port', '0', '--credentials', join(dataDir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read the credentials file (ENOENT)');
    const malformed = join(dataDir, 'bad.credentials');
    writeFileSync(malformed, 'KEY=short\nnot a line\n');
    const bad = await runCommand('s3', ['--port', '0', '--credentials', malformed]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${malformed}:2:1: expected KEY=value`);
    expect(bad.stderr).not.toContain('short');
    const port = await runCommand('s3', ['--port', 'eighty'], {
      S3_ACCESS_KEY_ID: KEY_ID,
      S3_SECRET_ACCESS_KEY: SECRET,
    });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be a whole number from 0 to 65535, not eighty.');
    const keys = { S3_ACCESS_KEY_ID: KEY_ID, S3_SECRET_ACCESS_KEY: SECRET };
    const alone = await runCommand('s3', ['--port', '0', '--tls-cert', credentials], keys);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--tls-cert and --tls-key go together: HTTPS needs both the certificate and its private key.');
    const unreadable = await runCommand('s3', ['--port', '0', '--tls-cert', credentials, '--tls-key', join(dataDir, 'no.key')], keys);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain(`--tls-key ${join(dataDir, 'no.key')} cannot be read: ENOENT.`);
    // Files that are no certificate and key: refused before anything listens.
    const notPem = await runCommand('s3', ['--port', '0', '--tls-cert', credentials, '--tls-key', credentials], keys);
    expect(notPem.code).toBe(1);
    expect(notPem.stderr).toContain('cannot serve TLS with the certificate and key given');
  });
});
