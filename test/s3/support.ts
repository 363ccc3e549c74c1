// An S3 endpoint on a fresh data directory, on a free port, with clients of the AWS SDK v3.
import { PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, expect } from 'vitest';
import { BucketCatalogue } from '../../src/bucket';
import { startS3Server, type RunningS3Server, type S3ServerOptions } from '../../src/s3';

export const ACCESS_KEY_ID = 'TESTKEY1';
export const SECRET = 'test-secret-key-0123456789';
/** The minimum part size the endpoints of these tests use, so multipart tests stay small. */
export const MIN_PART = 16;

export interface Endpoint {
  server: RunningS3Server;
  dataDir: string;
  /** A client signing with the test key (or the given credentials). */
  client(credentials?: { accessKeyId: string; secretAccessKey: string }): S3Client;
  /** The catalogue of the same data directory, as a worker host would open it. */
  catalogue: BucketCatalogue;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export async function startEndpoint(options: Partial<S3ServerOptions> = {}, dataDir?: string): Promise<Endpoint> {
  const directory = dataDir ?? mkdtempSync(join(tmpdir(), 's3-test-'));
  if (dataDir === undefined) cleanups.push(async () => rmSync(directory, { recursive: true, force: true }));
  const server = await startS3Server({
    accessKeys: new Map([[ACCESS_KEY_ID, SECRET]]),
    dataDir: directory,
    port: 0,
    runtime: { minimumPartSize: MIN_PART },
    report: (line) => {
      throw new Error(`unexpected internal error: ${line}`);
    },
    ...options,
  });
  const catalogue = new BucketCatalogue(directory, { minimumPartSize: MIN_PART });
  const clients: S3Client[] = [];
  cleanups.push(async () => {
    for (const client of clients) client.destroy();
    await catalogue.close();
    await server.close();
  });
  return {
    server,
    dataDir: directory,
    catalogue,
    client: (credentials = { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET }) => {
      const client = new S3Client({ endpoint: server.url, region: 'auto', forcePathStyle: true, credentials });
      clients.push(client);
      return client;
    },
  };
}

/** The S3 error a call fails with: its code, status and message. */
export async function s3Failure(promise: Promise<unknown>): Promise<{ name: string; status: number; message: string }> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(S3ServiceException);
  const failure = error as S3ServiceException;
  return { name: failure.name, status: failure.$metadata.httpStatusCode!, message: failure.message };
}

/**
 * A PutObject of `2 * half` bytes that sends its first half and waits for `resume()` before the
 * second: the refusal it ends with, if any (see s3Failure), is `failure`.
 */
export function pausedPut(client: S3Client, bucket: string, key: string, half: number) {
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  async function* body() {
    yield Buffer.alloc(half, 1);
    await resumed;
    yield Buffer.alloc(half, 2);
  }
  const failure = s3Failure(client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Readable.from(body()), ContentLength: 2 * half })));
  return { failure, resume };
}
