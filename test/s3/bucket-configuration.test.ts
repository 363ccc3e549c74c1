// A bucket's CORS and lifecycle rules through S3's sub-resources (?cors, ?lifecycle) with the AWS
// SDK, the same rules as the management API's (the official client's r2.buckets.cors and
// .lifecycle): what one side sets, the other reads at once. And ?encryption, answered as the
// platform keeps objects: AES-256 at rest.
import {
  DeleteBucketCorsCommand,
  DeleteBucketLifecycleCommand,
  DeleteObjectsCommand,
  GetBucketCorsCommand,
  GetBucketEncryptionCommand,
  GetBucketLifecycleConfigurationCommand,
  PutBucketCorsCommand,
  PutBucketLifecycleConfigurationCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type LifecycleRule,
  type S3Client,
} from '@aws-sdk/client-s3';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startServer, token, type TestServer } from '../server/harness';
import { rawFetch } from './raw-requests';
import { s3Failure, startEndpoint, type Endpoint } from './support';

const account_id = '023e105f4ecef8ad9ca31a8372d0c353';
const Bucket = 'configured';
let api: TestServer;
let cf: Cloudflare;
let endpoint: Endpoint;
let s3: S3Client;

beforeAll(async () => {
  api = await startServer();
  cf = new Cloudflare({ baseURL: api.baseUrl, apiToken: token, apiEmail: null, apiKey: null, userServiceKey: null, maxRetries: 0 });
});
afterAll(async () => {
  await api?.stop();
});
beforeEach(async () => {
  await cf.r2.buckets.delete(Bucket, { account_id }).catch(() => {});
  await cf.r2.buckets.create({ account_id, name: Bucket });
  endpoint = await startEndpoint({ account: account_id }, api.dataDir);
  s3 = endpoint.client();
});

const send = (method: string, target: string, body?: string) =>
  rawFetch(endpoint.server.url, { method, target, ...(body === undefined ? {} : { body }) });

describe('?cors', () => {
  test('rules put through S3 show through the API, and rules set through the API show through S3', async () => {
    expect(await s3Failure(s3.send(new GetBucketCorsCommand({ Bucket })))).toMatchObject({
      name: 'NoSuchCORSConfiguration',
      status: 404,
    });
    await s3.send(
      new PutBucketCorsCommand({
        Bucket,
        CORSConfiguration: {
          CORSRules: [
            { ID: 'site', AllowedMethods: ['GET', 'HEAD'], AllowedOrigins: ['https://example.com'], AllowedHeaders: ['x-custom'], ExposeHeaders: ['ETag'], MaxAgeSeconds: 600 },
            { AllowedMethods: ['PUT'], AllowedOrigins: ['https://*.example.com'] },
          ],
        },
      }),
    );
    expect(await cf.r2.buckets.cors.get(Bucket, { account_id })).toEqual({
      rules: [
        { id: 'site', allowed: { methods: ['GET', 'HEAD'], origins: ['https://example.com'], headers: ['x-custom'] }, exposeHeaders: ['ETag'], maxAgeSeconds: 600 },
        { allowed: { methods: ['PUT'], origins: ['https://*.example.com'] } },
      ],
    });
    // The rules apply at once to a browser's preflight.
    const preflight = await fetch(`${endpoint.server.url}/${Bucket}/file.txt`, {
      method: 'OPTIONS',
      headers: { origin: 'https://upload.example.com', 'access-control-request-method': 'PUT' },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://upload.example.com');

    await cf.r2.buckets.cors.update(Bucket, { account_id, rules: [{ allowed: { methods: ['DELETE'], origins: ['*'] }, maxAgeSeconds: 5 }] });
    const got = await s3.send(new GetBucketCorsCommand({ Bucket }));
    expect(got.CORSRules).toEqual([{ AllowedMethods: ['DELETE'], AllowedOrigins: ['*'], MaxAgeSeconds: 5 }]);

    await s3.send(new DeleteBucketCorsCommand({ Bucket }));
    expect((await api.buckets.account(account_id).cors(Bucket))).toBeNull();
    expect(await s3Failure(s3.send(new GetBucketCorsCommand({ Bucket })))).toMatchObject({ name: 'NoSuchCORSConfiguration' });
  });

  test('bad CORS documents are refused with S3 errors and change nothing', async () => {
    const refused = async (body: string) => {
      const { response, text } = await send('PUT', `/${Bucket}?cors`, body);
      expect(response.status).toBe(400);
      return { code: /<Code>(.*)<\/Code>/.exec(text)![1], message: /<Message>(.*)<\/Message>/.exec(text)![1] };
    };
    const rule = (inner: string) => `<CORSConfiguration><CORSRule>${inner}</CORSRule></CORSConfiguration>`;
    expect(await refused(rule('<AllowedMethod>PATCH</AllowedMethod><AllowedOrigin>*</AllowedOrigin>'))).toEqual({
      code: 'InvalidRequest',
      message: 'Found unsupported HTTP method in CORS config. Unsupported method is PATCH; use GET, PUT, POST, DELETE, HEAD.',
    });
    expect(await refused(rule('<AllowedMethod>GET</AllowedMethod>'))).toMatchObject({ code: 'MalformedXML' });
    expect(await refused('<CORSConfiguration></CORSConfiguration>')).toMatchObject({ code: 'MalformedXML' });
    expect(await refused(rule('<AllowedMethod>GET</AllowedMethod><AllowedOrigin>https://*.*.example.com</AllowedOrigin>'))).toMatchObject({
      code: 'InvalidArgument',
    });
    expect(await refused(rule('<AllowedMethod>GET</AllowedMethod><AllowedOrigin>*</AllowedOrigin><MaxAgeSeconds>soon</MaxAgeSeconds>'))).toMatchObject({
      code: 'InvalidArgument',
    });
    expect(await api.buckets.account(account_id).cors(Bucket)).toBeNull();
  });

  test('an unknown bucket is NoSuchBucket', async () => {
    expect(await s3Failure(s3.send(new GetBucketCorsCommand({ Bucket: 'no-such-bucket' })))).toMatchObject({ name: 'NoSuchBucket', status: 404 });
    expect(
      await s3Failure(
        s3.send(new PutBucketCorsCommand({ Bucket: 'no-such-bucket', CORSConfiguration: { CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['*'] }] } })),
      ),
    ).toMatchObject({ name: 'NoSuchBucket', status: 404 });
  });
});

describe('?lifecycle', () => {
  test('a new bucket answers the platform\'s default rule; rules put through S3 show through the API and back', async () => {
    const initial = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }));
    expect(initial.Rules).toEqual([
      { ID: 'Default Multipart Abort Rule', Filter: { Prefix: '' }, Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } },
    ]);
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket,
        LifecycleConfiguration: {
          Rules: [
            { ID: 'logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 30 }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 2 } },
            { ID: 'archive', Status: 'Disabled', Filter: { Prefix: 'old/' }, Transitions: [{ Days: 60, StorageClass: 'STANDARD_IA' }] },
            { ID: 'until', Status: 'Enabled', Filter: {}, Expiration: { Date: new Date('2030-01-01T00:00:00Z') } },
          ],
        },
      }),
    );
    expect((await cf.r2.buckets.lifecycle.get(Bucket, { account_id })).rules).toEqual([
      {
        id: 'logs',
        enabled: true,
        conditions: { prefix: 'logs/' },
        deleteObjectsTransition: { condition: { type: 'Age', maxAge: 30 * 86400 } },
        abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 2 * 86400 } },
      },
      {
        id: 'archive',
        enabled: false,
        conditions: { prefix: 'old/' },
        storageClassTransitions: [{ condition: { type: 'Age', maxAge: 60 * 86400 }, storageClass: 'InfrequentAccess' }],
      },
      { id: 'until', enabled: true, conditions: { prefix: '' }, deleteObjectsTransition: { condition: { type: 'Date', date: '2030-01-01T00:00:00.000Z' } } },
    ]);

    await cf.r2.buckets.lifecycle.update(Bucket, {
      account_id,
      rules: [{ id: 'tmp', enabled: true, conditions: { prefix: 'tmp/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 86400 } } }],
    });
    const got = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }));
    expect(got.Rules).toEqual([{ ID: 'tmp', Filter: { Prefix: 'tmp/' }, Status: 'Enabled', Expiration: { Days: 1 } }]);

    await s3.send(new DeleteBucketLifecycleCommand({ Bucket }));
    expect((await cf.r2.buckets.lifecycle.get(Bucket, { account_id })).rules).toEqual([]);
    expect(await s3Failure(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket })))).toMatchObject({
      name: 'NoSuchLifecycleConfiguration',
      status: 404,
    });
  });

  test('bad lifecycle documents are refused with S3 errors and change nothing', async () => {
    const refused = async (rule: string, status = 400) => {
      const { response, text } = await send('PUT', `/${Bucket}?lifecycle`, `<LifecycleConfiguration><Rule>${rule}</Rule></LifecycleConfiguration>`);
      expect(response.status).toBe(status);
      return { code: /<Code>(.*)<\/Code>/.exec(text)![1], message: /<Message>(.*)<\/Message>/.exec(text)![1] };
    };
    expect(await refused('<ID>a</ID><Status>Maybe</Status><Expiration><Days>1</Days></Expiration>')).toMatchObject({ code: 'MalformedXML' });
    expect(await refused('<ID>a</ID><Status>Enabled</Status><Expiration><Days>0</Days></Expiration>')).toEqual({
      code: 'InvalidArgument',
      message: 'Rule 1&apos;s Expiration&apos;s Days must be a positive whole number of days.',
    });
    expect(await refused('<ID>a</ID><Status>Enabled</Status><Expiration><Date>2030-01-01T12:00:00Z</Date></Expiration>')).toMatchObject({
      code: 'InvalidArgument',
    });
    expect(await refused('<ID>a</ID><Status>Enabled</Status>')).toMatchObject({ code: 'InvalidArgument', message: expect.stringContaining('the rule has no action') });
    expect(await refused('<ID>a</ID><Status>Enabled</Status><Transition><Days>1</Days><StorageClass>GLACIER</StorageClass></Transition>')).toMatchObject({
      code: 'InvalidStorageClass',
    });
    expect(
      await refused('<ID>a</ID><Status>Enabled</Status><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Expiration><Days>1</Days></Expiration>', 501),
    ).toMatchObject({ code: 'NotImplemented' });
    expect(
      await refused('<ID>a</ID><Status>Enabled</Status><Filter><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan></Filter><Expiration><Days>1</Days></Expiration>', 501),
    ).toMatchObject({ code: 'NotImplemented' });
    expect(await refused(`<ID>${'a'.repeat(256)}</ID><Status>Enabled</Status><Expiration><Days>1</Days></Expiration>`)).toMatchObject({
      code: 'InvalidArgument',
      message: expect.stringContaining('a rule ID has at most 255'),
    });
    expect(await refused('<ID>a</ID><Prefix>x/</Prefix><Filter><Prefix>x/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration>')).toMatchObject({
      code: 'MalformedXML',
    });
    expect(
      await refused('<ID>a</ID><Status>Enabled</Status><Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>'),
    ).toMatchObject({ code: 'InvalidArgument', message: expect.stringContaining('ExpiredObjectDeleteMarker cannot be specified with Days or Date') });
    expect((await cf.r2.buckets.lifecycle.get(Bucket, { account_id })).rules).toHaveLength(1);
  });

  test('rules read back in the form they were written: the older Prefix, a Filter, an And, an empty Filter; a missing ID is made', async () => {
    const rules: LifecycleRule[] = [
      { ID: 'older', Prefix: 'older/', Status: 'Enabled', Expiration: { Days: 31 } },
      { Prefix: 'no-id/', Status: 'Enabled', Expiration: { Days: 120 } },
      { ID: 'filtered', Filter: { Prefix: 'filtered/' }, Status: 'Disabled', Expiration: { Days: 2 } },
      { ID: 'and', Filter: { And: { Prefix: 'and/' } }, Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 3 } },
      { ID: 'everything', Filter: {}, Status: 'Enabled', Expiration: { Date: new Date('2031-01-01T00:00:00Z') } },
    ];
    await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules: rules } }));
    const got = (await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }))).Rules!;
    expect(got[0]).toEqual(rules[0]);
    expect(got[1]).toEqual({ ...rules[1], ID: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(got.slice(2)).toEqual(rules.slice(2));
    // The same rules through the management API, in its own shape.
    const viaApi = (await cf.r2.buckets.lifecycle.get(Bucket, { account_id })).rules!;
    expect(viaApi.map((rule) => [rule.id, rule.conditions.prefix, rule.enabled])).toEqual([
      ['older', 'older/', true],
      [got[1]!.ID, 'no-id/', true],
      ['filtered', 'filtered/', false],
      ['and', 'and/', true],
      ['everything', '', true],
    ]);
    expect(Object.keys(viaApi[0]!).sort()).toEqual(['conditions', 'deleteObjectsTransition', 'enabled', 'id']);
  });

  test('actions on versions, which a bucket without versions never acts on, are taken and read back as written', async () => {
    const rules: LifecycleRule[] = [
      { ID: 'markers', Filter: { Prefix: 'foo' }, Status: 'Enabled', Expiration: { ExpiredObjectDeleteMarker: true } },
      { ID: 'noncurrent', Prefix: 'past/', Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 2 } },
      {
        ID: 'noncurrent-ia',
        Prefix: 'ia/',
        Status: 'Disabled',
        NoncurrentVersionTransitions: [{ NoncurrentDays: 5, StorageClass: 'STANDARD_IA' }],
        NoncurrentVersionExpiration: { NoncurrentDays: 9 },
      },
    ];
    await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules: rules } }));
    expect((await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket }))).Rules).toEqual(rules);
    // Through the API they are rules over their prefixes with no action the API can show.
    expect((await cf.r2.buckets.lifecycle.get(Bucket, { account_id })).rules).toEqual([
      { id: 'markers', enabled: true, conditions: { prefix: 'foo' } },
      { id: 'noncurrent', enabled: true, conditions: { prefix: 'past/' } },
      { id: 'noncurrent-ia', enabled: false, conditions: { prefix: 'ia/' } },
    ]);
  });

  test('objects a rule deletes are told so on PUT, HEAD and GET (x-amz-expiration: the time the rule deletes them)', async () => {
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket,
        LifecycleConfiguration: {
          Rules: [
            { ID: 'two days', Filter: { Prefix: 'days/' }, Status: 'Enabled', Expiration: { Days: 2 } },
            { ID: 'later', Filter: { Prefix: 'days/' }, Status: 'Enabled', Expiration: { Days: 9 } },
            { ID: 'off', Filter: { Prefix: 'days/' }, Status: 'Disabled', Expiration: { Days: 1 } },
            { ID: 'fixed date', Filter: { Prefix: 'until/' }, Status: 'Enabled', Expiration: { Date: new Date('2031-01-01T00:00:00Z') } },
          ],
        },
      }),
    );
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'days/one', Body: 'x' }));
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'days/one' }));
    // Two days after the upload, up to the next whole second (LastModified is the second before).
    const expiry = head.LastModified!.getTime() + 2 * 86400_000;
    const header = put.Expiration!;
    expect([expiry, expiry + 1000].map((at) => `expiry-date="${new Date(at).toUTCString()}", rule-id="two%20days"`)).toContain(header);
    expect(head.Expiration).toBe(header);
    expect((await s3.send(new GetObjectCommand({ Bucket, Key: 'days/one' }))).Expiration).toBe(header);
    // A date rule tells its date; the earliest rule that applies is the one told.
    const until = await s3.send(new PutObjectCommand({ Bucket, Key: 'until/one', Body: 'x' }));
    expect(until.Expiration).toBe(`expiry-date="${new Date('2031-01-01T00:00:00Z').toUTCString()}", rule-id="fixed%20date"`);
    expect((await s3.send(new PutObjectCommand({ Bucket, Key: 'kept', Body: 'x' }))).Expiration).toBeUndefined();
    // The next test deletes and makes the bucket again: it must be empty.
    await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: ['days/one', 'until/one', 'kept'].map((Key) => ({ Key })) } }));
  });
});

describe('?encryption', () => {
  test('answers AES-256 at rest, as the platform keeps every object; it cannot be changed', async () => {
    const got = await s3.send(new GetBucketEncryptionCommand({ Bucket }));
    expect(got.ServerSideEncryptionConfiguration!.Rules).toEqual([
      { ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' }, BucketKeyEnabled: false },
    ]);
    const { response, text } = await send('DELETE', `/${Bucket}?encryption`);
    expect(response.status).toBe(501);
    expect(text).toContain('<Code>NotImplemented</Code>');
    expect(await s3Failure(s3.send(new GetBucketEncryptionCommand({ Bucket: 'no-such-bucket' })))).toMatchObject({ name: 'NoSuchBucket' });
  });
});
