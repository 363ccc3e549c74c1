// `npm run s3 -- --faults <file>` as a user runs it, with the example file of the docs: the
// `s3` list applies from the first request and every injection is logged; a bad file stops it.
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { COMMAND_TEST_TIMEOUT_MS, expectCleanStop, runCommand, startHost } from '../worker/commands';
import { s3Failure } from './support';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const KEY_ID = 'FAULTKEY';
const SECRET = 'faults-command-secret';
const dataDir = mkdtempSync(join(tmpdir(), 's3-faults-command-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm run s3 with --faults', () => {
  test('injects the file rules and logs each injection', async () => {
    const host = await startHost(['--port', '0', '--data-dir', dataDir, '--faults', 'examples/faults/ci-429s.toml'], { S3_ACCESS_KEY_ID: KEY_ID, S3_SECRET_ACCESS_KEY: SECRET }, 's3');
    const client = new S3Client({ endpoint: host.url, region: 'auto', forcePathStyle: true, credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET }, maxAttempts: 1 });
    try {
      expect(host.output.stdout).toContain('fault rules: 1 from examples/faults/ci-429s.toml');
      await client.send(new CreateBucketCommand({ Bucket: 'uploads' }));
      expect(await s3Failure(client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'a', Body: 'x' })))).toMatchObject({ name: 'SlowDown', status: 503 });
      await client.send(new PutObjectCommand({ Bucket: 'uploads', Key: 'a', Body: 'x' }));
      expect(host.output.stderr).toContain('fault injected: rule "first-upload-throttled" PUT /uploads/a (PutObject): status 503 SlowDown');
    } finally {
      client.destroy();
      await expectCleanStop(host);
    }
  });

  test('a bad rules file stops it before it listens, naming the file, rule and field', async () => {
    const file = join(dataDir, 'bad.toml');
    writeFileSync(file, '[[s3]]\nstatus = 404\n');
    const finished = await runCommand('s3', ['--port', '0', '--data-dir', dataDir, '--faults', file], { S3_ACCESS_KEY_ID: KEY_ID, S3_SECRET_ACCESS_KEY: SECRET });
    expect(finished.code).toBe(2);
    expect(finished.stdout).not.toContain('Ready on');
    expect(finished.stderr).toContain(
      `cannot start the S3 endpoint:\nfaults file ${file}: s3[0]: status 404 stands for no S3 error by itself: give a code (for example InternalError, SlowDown, ServiceUnavailable, RequestTimeout, AccessDenied)`,
    );
  });
});
