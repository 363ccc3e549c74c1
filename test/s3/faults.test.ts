// Faults on purpose at the S3 endpoint, proven with the AWS SDK v3: its retries ride out a 503
// SlowDown, it sees S3's own error without them, a dropped connection reaches it as a network
// error, and a request failed on purpose changes nothing. Rules match by operation and bucket.
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { FaultRulesError } from '../../src/faults';
import { rawFetch } from './raw-requests';
import { ACCESS_KEY_ID, SECRET, s3Failure, startEndpoint, type Endpoint } from './support';

const BUCKET = 'photos';

/** An endpoint with a bucket, its fault log, and a way to set its rules through /__faults. */
async function endpoint(): Promise<Endpoint & { logged: string[]; setRules(s3: unknown[]): Promise<void>; rules(): Promise<{ name: string; matched: number; injected: number }[]> }> {
  const logged: string[] = [];
  const started = await startEndpoint({ log: (line) => logged.push(line) });
  await started.client().send(new CreateBucketCommand({ Bucket: BUCKET }));
  return {
    ...started,
    logged,
    async setRules(s3) {
      const { response, text } = await rawFetch(started.server.url, { method: 'PUT', target: '/__faults', body: JSON.stringify({ s3 }) });
      expect(response.status, text).toBe(200);
    },
    async rules() {
      const { text } = await rawFetch(started.server.url, { method: 'GET', target: '/__faults' });
      return (JSON.parse(text) as { s3: { name: string; matched: number; injected: number }[] }).s3;
    },
  };
}

/** The Message of an S3 error document, as a client reads it (entities decoded). */
const messageOf = (xml: string) => String((new XMLParser().parse(xml) as { Error: { Message: unknown } }).Error.Message);

/** A client that never retries, so each fault reaches the caller. */
function impatient(at: Endpoint): S3Client {
  const client = new S3Client({
    endpoint: at.server.url,
    region: 'auto',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET },
    maxAttempts: 1,
  });
  return client;
}

async function exists(client: S3Client, key: string): Promise<boolean> {
  return client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
    () => true,
    (error: unknown) => {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
      throw error;
    },
  );
}

describe('the AWS SDK v3 against faults', () => {
  it('with its default retries, completes a PUT whose first attempt answers 503 SlowDown', async () => {
    const at = await endpoint();
    await at.setRules([{ name: 'first-put-throttled', match: { operation: 'PutObject', bucket: BUCKET }, status: 503, first: 1 }]);
    const put = await at.client().send(new PutObjectCommand({ Bucket: BUCKET, Key: 'a.jpg', Body: 'picture' }));
    expect(put.$metadata.httpStatusCode).toBe(200);
    expect(put.$metadata.attempts).toBe(2);
    const got = await at.client().send(new GetObjectCommand({ Bucket: BUCKET, Key: 'a.jpg' }));
    expect(await got.Body!.transformToString()).toBe('picture');
    expect(await at.rules()).toEqual([expect.objectContaining({ name: 'first-put-throttled', matched: 2, injected: 1 })]);
    expect(at.logged).toEqual(['fault injected: rule "first-put-throttled" PUT /photos/a.jpg (PutObject): status 503 SlowDown']);
  });

  it('without retries, fails with S3 own SlowDown error, and the object was not written', async () => {
    const at = await endpoint();
    await at.setRules([{ match: { operation: 'PutObject' }, status: 503, retryAfter: 2 }]);
    const failure = await s3Failure(impatient(at).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'b.jpg', Body: 'picture' })));
    expect(failure).toEqual({ name: 'SlowDown', status: 503, message: 'Please reduce your request rate.' });
    expect(await exists(at.client(), 'b.jpg')).toBe(false);
  });

  it('answers the XML error document S3 sends, with Retry-After when the rule gives one', async () => {
    const at = await endpoint();
    await at.setRules([
      { name: 'slow', match: { operation: 'GetObject' }, status: 503, retryAfter: 2 },
      { name: 'broken', match: { operation: 'HeadBucket' }, code: 'InternalError' },
    ]);
    const { response, text } = await rawFetch(at.server.url, { method: 'GET', target: `/${BUCKET}/missing.jpg` });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(response.headers.get('content-type')).toBe('application/xml');
    expect(text).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<Error><Code>SlowDown<\/Code><Message>Please reduce your request rate\.<\/Message><Resource>\/photos\/missing\.jpg<\/Resource><RequestId>[0-9A-F]{16}<\/RequestId><\/Error>$/,
    );
    expect(text).toContain(`<RequestId>${response.headers.get('x-amz-request-id')}</RequestId>`);
    const head = await rawFetch(at.server.url, { method: 'GET', target: `/${BUCKET}?location` });
    expect(head.response.status).toBe(200);
    const internal = await rawFetch(at.server.url, { method: 'HEAD', target: `/${BUCKET}` });
    expect(internal.response.status).toBe(500);
    expect(internal.response.headers.get('retry-after')).toBeNull();
  });

  it('a connection dropped before the answer reaches the client as a network error, and the object is not written', async () => {
    const at = await endpoint();
    await at.setRules([{ match: { operation: 'PutObject' }, drop: 'before-response' }]);
    const error = await impatient(at)
      .send(new PutObjectCommand({ Bucket: BUCKET, Key: 'c.jpg', Body: 'picture' }))
      .catch((thrown: unknown) => thrown);
    expect(error).not.toBeInstanceOf(S3ServiceException);
    expect((error as NodeJS.ErrnoException).code ?? (error as Error).message).toMatch(/ECONNRESET|EPIPE|socket hang up/);
    expect(await exists(at.client(), 'c.jpg')).toBe(false);
    // The SDK's default retries take a dropped connection as transient.
    await at.setRules([{ match: { operation: 'PutObject' }, drop: 'before-response', first: 1 }]);
    const put = await at.client().send(new PutObjectCommand({ Bucket: BUCKET, Key: 'c.jpg', Body: 'picture' }));
    expect(put.$metadata.attempts).toBe(2);
    expect(await exists(at.client(), 'c.jpg')).toBe(true);
  });

  it('a connection dropped mid-response breaks the body the client reads', async () => {
    const at = await endpoint();
    await at.client().send(new PutObjectCommand({ Bucket: BUCKET, Key: 'd.jpg', Body: 'picture' }));
    await at.setRules([{ match: { operation: 'GetObject', bucket: BUCKET }, drop: 'mid-response' }]);
    const reading = impatient(at)
      .send(new GetObjectCommand({ Bucket: BUCKET, Key: 'd.jpg' }))
      .then((got) => got.Body!.transformToString());
    const error = await reading.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(S3ServiceException);
    expect(String((error as Error).message) + String((error as NodeJS.ErrnoException).code)).toMatch(/aborted|ECONNRESET|premature close|terminated/i);
  });

  it('a delete failed on purpose leaves the object; faults match the bucket they name only', async () => {
    const at = await endpoint();
    await at.client().send(new CreateBucketCommand({ Bucket: 'other' }));
    await at.client().send(new PutObjectCommand({ Bucket: BUCKET, Key: 'e.jpg', Body: 'picture' }));
    await at.client().send(new PutObjectCommand({ Bucket: 'other', Key: 'e.jpg', Body: 'picture' }));
    await at.setRules([{ match: { operation: 'DeleteObject', bucket: BUCKET }, status: 500 }]);
    const failure = await s3Failure(impatient(at).send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'e.jpg' })));
    expect(failure).toEqual({ name: 'InternalError', status: 500, message: 'We encountered an internal error. Please try again.' });
    expect(await exists(at.client(), 'e.jpg')).toBe(true);
    await impatient(at).send(new DeleteObjectCommand({ Bucket: 'other', Key: 'e.jpg' }));
    expect(await at.client().send(new HeadObjectCommand({ Bucket: 'other', Key: 'e.jpg' })).catch((error: unknown) => error)).toBeInstanceOf(S3ServiceException);
  });

  it('a delay alone slows the operation, which then runs', async () => {
    const at = await endpoint();
    await at.setRules([{ match: { operation: 'PutObject' }, delayMs: 300 }]);
    const started = Date.now();
    await impatient(at).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'f.jpg', Body: 'picture' }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await exists(at.client(), 'f.jpg')).toBe(true);
  });
});

describe('/__faults on the S3 endpoint', () => {
  it('lists, replaces and clears the S3 rules', async () => {
    const at = await endpoint();
    expect(await at.rules()).toEqual([]);
    await at.setRules([{ name: 'x', match: { operation: 'PutObject' }, status: 503, first: 1 }]);
    expect(await at.rules()).toEqual([{ name: 'x', match: { operation: 'PutObject' }, status: 503, first: 1, matched: 0, injected: 0 }]);
    const cleared = await rawFetch(at.server.url, { method: 'DELETE', target: '/__faults' });
    expect(JSON.parse(cleared.text)).toEqual({ s3: [] });
  });

  it('refuses bad rules with S3 InvalidArgument naming every problem, keeping the rules it had', async () => {
    const at = await endpoint();
    await at.setRules([{ name: 'kept', status: 500 }]);
    const body = JSON.stringify({
      s3: [
        { match: { operation: 'PutObjekt' }, status: 503 },
        { status: 503, probability: 1.5 },
        { status: 200, code: 'SlowDown' },
      ],
    });
    const { response, text } = await rawFetch(at.server.url, { method: 'PUT', target: '/__faults', body });
    expect(response.status).toBe(400);
    expect(text).toContain('<Code>InvalidArgument</Code>');
    expect(messageOf(text)).toBe(
      'body:\n  s3[0]: match.operation "PutObjekt" is not an operation of the S3 endpoint (did you mean PutObject?)\n' +
        '  s3[1]: probability must be a number from 0 to 1, not 1.5\n' +
        '  s3[2]: status must be an error status from 400 to 599, not 200',
    );
    expect((await at.rules()).map((rule) => rule.name)).toEqual(['kept']);
    const api = await rawFetch(at.server.url, { method: 'PUT', target: '/__faults', body: JSON.stringify({ api: [] }) });
    expect(messageOf(api.text)).toBe("body: api rules are set on the management API's own /__faults; this one holds the S3 endpoint's.");
    const malformed = await rawFetch(at.server.url, { method: 'PUT', target: '/__faults', body: '{"s3": [' });
    expect(malformed.response.status).toBe(400);
    expect(messageOf(malformed.text)).toMatch(/^The body is not JSON: .+\.$/);
  });

  it('takes only requests signed with the endpoint keys, and GET, PUT, DELETE', async () => {
    const at = await endpoint();
    const anonymous = await fetch(`${at.server.url}/__faults`);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
    const forged = await rawFetch(at.server.url, { method: 'GET', target: '/__faults', secret: 'not-the-secret' });
    expect(forged.response.status).toBe(403);
    expect(forged.text).toContain('<Code>SignatureDoesNotMatch</Code>');
    const post = await rawFetch(at.server.url, { method: 'POST', target: '/__faults', body: '{}' });
    expect(post.response.status).toBe(405);
    expect(post.response.headers.get('allow')).toBe('GET, PUT, DELETE');
  });

  it('rules given at start apply at once; bad ones stop the start', async () => {
    const at = await startEndpoint({ faultRules: { list: [{ match: { operation: 'CreateBucket' }, status: 503, first: 1 }], source: 'test rules' }, log: () => {} });
    expect(await s3Failure(impatient(at).send(new CreateBucketCommand({ Bucket: 'late' })))).toMatchObject({ name: 'SlowDown', status: 503 });
    await impatient(at).send(new CreateBucketCommand({ Bucket: 'late' }));
    const refused = await startEndpoint({ faultRules: { list: [{ match: { operation: 'Nope' }, status: 503 }], source: 'test rules' } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FaultRulesError);
    expect((refused as Error).message).toBe('test rules: s3[0]: match.operation "Nope" is not an operation of the S3 endpoint');
  });
});
