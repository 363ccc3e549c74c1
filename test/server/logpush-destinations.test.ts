// Log push jobs whose destination is one of this platform's buckets, written with the official
// client: the S3 credentials the destination carries are checked as the platform checks them
// (refused with code 1002, never echoing the secret), the bucket must exist, and other
// destinations are kept as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_ACCOUNT_ID } from '../../src/bucket';
import { ids, startServer, type TestServer } from './harness';
import { officialClient } from './official-client';

const KEY_ID = 'LOGPUSHKEY';
const SECRET = 'logpush-secret-value';
const destination = (bucket: string, secret = SECRET, account = HOME_ACCOUNT_ID) =>
  `r2://${bucket}/http/{DATE}?account-id=${account}&access-key-id=${KEY_ID}&secret-access-key=${secret}`;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ s3AccessKeys: new Map([[KEY_ID, SECRET]]) });
  await server.buckets.account(HOME_ACCOUNT_ID).create('edge-logs');
});
afterAll(async () => {
  await server?.stop();
});

async function refusal(call: Promise<unknown>): Promise<{ status: number; codes: number[]; text: string }> {
  const error = (await call.then(
    () => null,
    (thrown: unknown) => thrown,
  )) as { status: number; errors: { code: number; message: string }[] } | null;
  expect(error).not.toBeNull();
  return { status: error!.status, codes: error!.errors.map((e) => e.code), text: error!.errors.map((e) => e.message).join('\n') };
}

describe('a destination in one of this platform\'s buckets', () => {
  it('is accepted with an S3 key of the platform, and answered back as it was sent', async () => {
    const { cf } = officialClient(server);
    const job = await cf.logpush.jobs.create({ zone_id: ids.proZone, destination_conf: destination('edge-logs'), dataset: 'http_requests', enabled: true });
    expect(job!.destination_conf).toBe(destination('edge-logs'));
    expect((await cf.logpush.jobs.get(job!.id!, { zone_id: ids.proZone }))!.destination_conf).toBe(destination('edge-logs'));
  });

  it.each([
    ['a secret that is not the key\'s', destination('edge-logs', 'wrong-secret-value'), 'access denied: the access key LOGPUSHKEY and its secret are not an S3 access key of this platform'],
    ['another account', destination('edge-logs', SECRET, '5a7805061c76ada191ed06f989cc3dac'), 'access denied: account 5a7805061c76ada191ed06f989cc3dac has no buckets on this platform'],
    ['a bucket that does not exist', destination('no-such-logs'), `bucket no-such-logs does not exist in account ${HOME_ACCOUNT_ID}`],
    ['missing credentials', 'r2://edge-logs/http?account-id=x', 'missing: access-key-id, secret-access-key'],
  ])('is refused with the platform\'s error for %s, without the secret in the answer', async (_case, destination_conf, reason) => {
    const { cf } = officialClient(server);
    const refused = await refusal(cf.logpush.jobs.create({ zone_id: ids.proZone, destination_conf, dataset: 'http_requests' }));
    expect(refused.status).toBe(400);
    expect(refused.codes).toEqual([1002]);
    expect(refused.text).toContain('error validating destination: ');
    expect(refused.text).toContain(reason);
    expect(refused.text).not.toContain('wrong-secret-value');
    expect(refused.text).not.toContain(SECRET);
  });

  it('is checked again when an update changes it (a job of an account too)', async () => {
    const { cf } = officialClient(server);
    const job = (await cf.logpush.jobs.create({ zone_id: ids.proZone, destination_conf: destination('edge-logs'), dataset: 'http_requests' }))!;
    const refused = await refusal(cf.logpush.jobs.update(job.id!, { zone_id: ids.proZone, destination_conf: destination('no-such-logs') }));
    expect(refused.codes).toEqual([1002]);
    expect((await cf.logpush.jobs.get(job.id!, { zone_id: ids.proZone }))!.destination_conf).toBe(destination('edge-logs'));
    const accountJob = await refusal(cf.logpush.jobs.create({ account_id: ids.account, destination_conf: destination('edge-logs', 'nope-nope'), dataset: 'audit_logs' }));
    expect(accountJob.codes).toEqual([1002]);
  });

  it('is refused by a platform that serves no S3 keys', async () => {
    const keyless = await startServer();
    try {
      const { cf } = officialClient(keyless);
      const refused = await refusal(cf.logpush.jobs.create({ zone_id: ids.proZone, destination_conf: destination('edge-logs'), dataset: 'http_requests' }));
      expect(refused.codes).toEqual([1002]);
      expect(refused.text).toContain('this platform serves no S3 access keys');
    } finally {
      await keyless.stop();
    }
  });
});

describe('a destination outside this platform', () => {
  it('is kept as before (its deliveries are reported failing on the job)', async () => {
    const { cf } = officialClient(server);
    const job = await cf.logpush.jobs.create({ zone_id: ids.proZone, destination_conf: 's3://logs/http?region=us-east-1', dataset: 'http_requests' });
    expect(job).toMatchObject({ destination_conf: 's3://logs/http?region=us-east-1', last_error: null, error_message: null });
  });
});
