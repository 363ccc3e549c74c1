// Who may do what: SigV4 in the header and in presigned URLs, clock skew, expiry, unknown keys,
// anonymous reads only on buckets configured for them.
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListBucketsCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { beforeEach, describe, expect, test } from 'vitest';
import { rawFetch } from './raw-requests';
import { ACCESS_KEY_ID, s3Failure, startEndpoint, type Endpoint } from './support';

let clockOffset = 0;
let endpoint: Endpoint;
let s3: S3Client;
beforeEach(async () => {
  clockOffset = 0;
  endpoint = await startEndpoint({ now: () => Date.now() + clockOffset, publicRead: ['public'] });
  s3 = endpoint.client();
  await s3.send(new CreateBucketCommand({ Bucket: 'private' }));
  await s3.send(new CreateBucketCommand({ Bucket: 'public' }));
  await s3.send(new PutObjectCommand({ Bucket: 'private', Key: 'secret.txt', Body: 'hidden' }));
  await s3.send(new PutObjectCommand({ Bucket: 'public', Key: 'open.txt', Body: 'shared' }));
});

const errorCode = (xml: string) => /<Code>([^<]*)<\/Code>/.exec(xml)?.[1];

describe('signed requests', () => {
  test('a wrong secret is SignatureDoesNotMatch (403)', async () => {
    const wrong = endpoint.client({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: 'not-the-secret' });
    expect(await s3Failure(wrong.send(new ListBucketsCommand({})))).toMatchObject({
      name: 'SignatureDoesNotMatch',
      status: 403,
    });
  });

  test('an unknown access key is InvalidAccessKeyId (403)', async () => {
    const stranger = endpoint.client({ accessKeyId: 'NOBODY', secretAccessKey: 'whatever-secret' });
    expect(await s3Failure(stranger.send(new ListBucketsCommand({})))).toMatchObject({
      name: 'InvalidAccessKeyId',
      status: 403,
      message: 'The access key id you provided does not exist in our records: NOBODY.',
    });
  });

  test('a request signed more than 15 minutes away from the server time is RequestTimeTooSkewed', async () => {
    clockOffset = 16 * 60 * 1000;
    // The SDK reads the server's Date header from the refusal, corrects its clock and retries.
    expect((await s3.send(new ListBucketsCommand({}))).Buckets!.length).toBe(2);
    clockOffset = 0;
    const { response, text } = await rawFetch(endpoint.server.url, {
      method: 'GET',
      target: '/',
      date: new Date(Date.now() - 20 * 60 * 1000),
    });
    expect(response.status).toBe(403);
    expect(errorCode(text)).toBe('RequestTimeTooSkewed');
    const near = await rawFetch(endpoint.server.url, {
      method: 'GET',
      target: '/',
      date: new Date(Date.now() - 10 * 60 * 1000),
    });
    expect(near.response.status).toBe(200);
  });

  test('a signed header changed on the way is SignatureDoesNotMatch', async () => {
    const tampered = endpoint.client();
    tampered.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { headers: Record<string, string> }).headers['x-amz-meta-who'] = 'mallory';
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    tampered.middlewareStack.add(
      (next) => async (args) => {
        (args.request as { headers: Record<string, string> }).headers['x-amz-meta-who'] = 'alice';
        return next(args);
      },
      { step: 'build' },
    );
    expect(
      await s3Failure(tampered.send(new PutObjectCommand({ Bucket: 'private', Key: 'k', Body: 'v' }))),
    ).toMatchObject({
      name: 'SignatureDoesNotMatch',
    });
  });
});

describe('presigned URLs', () => {
  test('a presigned GET reads without credentials; a presigned PUT writes', async () => {
    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'private', Key: 'secret.txt' }), {
      expiresIn: 60,
    });
    expect(getUrl).toContain('X-Amz-Signature=');
    const got = await fetch(getUrl);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('hidden');
    const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'private', Key: 'from-browser.txt' }), {
      expiresIn: 60,
    });
    const put = await fetch(putUrl, { method: 'PUT', body: 'uploaded' });
    expect(put.status).toBe(200);
    const read = await s3.send(new GetObjectCommand({ Bucket: 'private', Key: 'from-browser.txt' }));
    expect(await read.Body!.transformToString()).toBe('uploaded');
  });

  test('an expired presigned URL is AccessDenied', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'private', Key: 'secret.txt' }), {
      expiresIn: 60,
    });
    clockOffset = 61 * 1000;
    const response = await fetch(url);
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(errorCode(text)).toBe('AccessDenied');
    expect(text).toContain('Request has expired');
  });

  test('a presigned URL pointed at another key, or with its signature altered, is refused', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'private', Key: 'secret.txt' }), {
      expiresIn: 60,
    });
    const moved = await fetch(url.replace('secret.txt', 'other.txt'));
    expect(moved.status).toBe(403);
    expect(errorCode(await moved.text())).toBe('SignatureDoesNotMatch');
    const altered = await fetch(
      url.replace(/X-Amz-Signature=([0-9a-f])/, (_, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`),
    );
    expect(errorCode(await altered.text())).toBe('SignatureDoesNotMatch');
    const tooLong = await fetch(url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=604801'));
    expect(tooLong.status).toBe(400);
    expect(errorCode(await tooLong.text())).toBe('AuthorizationQueryParametersError');
    // Zero or negative lifetimes expired when the URL was made: 403, as S3 answers.
    for (const expires of ['0', '-7']) {
      const expired = await fetch(url.replace(/X-Amz-Expires=\d+/, `X-Amz-Expires=${expires}`));
      expect([expired.status, errorCode(await expired.text())]).toEqual([403, 'AccessDenied']);
    }
  });

  test('a CORS preflight is 400 without Origin, 403 when the bucket has no CORS rule allowing it', async () => {
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'private', Key: 'secret.txt' }), {
      expiresIn: 60,
    });
    const bare = await fetch(url, { method: 'OPTIONS' });
    expect([bare.status, errorCode(await bare.text())]).toEqual([400, 'BadRequest']);
    const withOrigin = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.com', 'access-control-request-method': 'GET' },
    });
    expect([withOrigin.status, errorCode(await withOrigin.text())]).toEqual([403, 'AccessForbidden']);
  });
});

describe('anonymous requests', () => {
  test('are refused everywhere but reads of buckets configured for them', async () => {
    const bare = (path: string, init?: RequestInit) => fetch(`${endpoint.server.url}${path}`, init);
    for (const [path, init] of [
      ['/', undefined],
      ['/private/secret.txt', undefined],
      ['/private?list-type=2', undefined],
      ['/public/new.txt', { method: 'PUT', body: 'x' }],
      ['/public/open.txt', { method: 'DELETE' }],
      ['/public', { method: 'DELETE' }],
    ] as const) {
      const response = await bare(path, init);
      expect(response.status, path).toBe(403);
      expect(errorCode(await response.text()), path).toBe('AccessDenied');
    }
    const open = await bare('/public/open.txt');
    expect(open.status).toBe(200);
    expect(await open.text()).toBe('shared');
    expect((await bare('/public/open.txt', { method: 'HEAD' })).headers.get('content-length')).toBe('6');
    expect(await (await bare('/public?list-type=2')).text()).toContain('<Key>open.txt</Key>');
    expect((await bare('/public/missing')).status).toBe(404);
  });
});
