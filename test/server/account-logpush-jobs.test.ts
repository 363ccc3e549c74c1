// Log push jobs of an account over HTTP, every response validated against the document: the
// typed client and the official client library (`logpush.jobs.*` with `account_id`), the
// account datasets, bad input, the wall between zone and account jobs, and scoped credentials
// (a token of another account or of a zone only is refused on every read and write).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { apiFailure, bearer, ids, json, startServer, type TestServer } from './harness';
import { all, officialClient, refusal } from './official-client';

const account_id = ids.account;
const secondAccount = '5a7805061c76ada191ed06f989cc3dac';
const otherAccountToken = 'scoped-to-another-account';
const secondAccountToken = 'scoped-to-the-second-account';
const proZoneToken = 'scoped-to-the-pro-zone';
const GATEWAY = { name: 'gateway-dns', destination_conf: 's3://logs/gateway_dns/{DATE}?region=us-east-1', dataset: 'gateway_dns' as const };

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    tokens: [
      { token: proZoneToken, scope: { accounts: new Set(), zones: new Set([ids.proZone]) } },
      { token: otherAccountToken, scope: { accounts: new Set(['b1946ac92492d2347c6235b4d2611184']), zones: null } },
      { token: secondAccountToken, scope: { accounts: new Set([secondAccount]), zones: null } },
    ],
  });
});
afterAll(async () => {
  await server?.stop();
});

const jobPath = (job_id: number, account: string = account_id) => ({ params: { path: { account_id: account, job_id } } });
const fails = (call: Parameters<typeof unwrap>[0], status?: number) => apiFailure(unwrap(call), status);

async function createJob(body: Record<string, unknown> = GATEWAY) {
  return unwrap(server.api.POST('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id } }, body: body as never }));
}

describe('account log push jobs', () => {
  it('creates, lists, reads, updates in part and deletes a job by integer id', async () => {
    const created = await createJob({ ...GATEWAY, logpull_options: 'fields=Datetime,QueryName&timestamps=rfc3339' });
    expect(created).toEqual({
      id: created.id,
      ...GATEWAY,
      logpull_options: 'fields=Datetime,QueryName&timestamps=rfc3339',
      output_options: null,
      enabled: false,
      frequency: 'high',
      last_complete: null,
      last_error: null,
      error_message: null,
    });
    // Ids follow the seeded zone jobs 1 and 2: one sequence for both scopes.
    expect(created.id).toBeGreaterThan(2);
    const listed = await unwrap(server.api.GET('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id } } }));
    expect(listed.map((job) => job.id)).toContain(created.id);
    expect(listed.every((job) => job.dataset !== 'http_requests')).toBe(true);
    expect(await unwrap(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(created.id)))).toEqual(created);
    const updated = await unwrap(
      server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(created.id), body: { enabled: true, logpull_options: 'fields=Datetime,SrcIP' } }),
    );
    expect(updated).toEqual({ ...created, enabled: true, logpull_options: 'fields=Datetime,SrcIP' });
    expect(await unwrap(server.api.DELETE('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(created.id)))).toEqual({ id: created.id });
    await fails(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(created.id)), 404);
    await fails(server.api.DELETE('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(created.id)), 404);
    await fails(server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(created.id), body: { enabled: false } }), 404);
  });

  it('takes the account datasets only, and no dataset by default', async () => {
    const zoneDataset = await fails(server.api.POST('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id } }, body: { ...GATEWAY, dataset: 'http_requests' as never } }), 400);
    expect(zoneDataset.codes).toEqual([10021]);
    expect(zoneDataset.message).toContain('dataset');
    const { dataset: _dataset, ...withoutDataset } = GATEWAY;
    const missing = await fails(server.api.POST('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id } }, body: withoutDataset as never }), 400);
    expect(missing.message).toContain('dataset');
    for (const dataset of ['audit_logs', 'gateway_http', 'access_requests', 'workers_trace_events']) {
      expect((await createJob({ ...GATEWAY, dataset })).dataset).toBe(dataset);
    }
  });

  it('checks logpull_options and the destination on creation and on update', async () => {
    const custom = await fails(server.api.POST('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id } }, body: { ...GATEWAY, logpull_options: 'fields=Datetime,RequestHeaders' } }), 400);
    expect(custom.message).toContain('RequestHeaders carries custom fields, which only the http_requests dataset has');
    const job = await createJob();
    const options = await fails(server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(job.id), body: { logpull_options: 'fields=Datetime&timestamps=weekly' } }), 400);
    expect(options.codes).toEqual([10021]);
    expect(options.message).toContain('logpull_options: timestamps must be one of rfc3339, unix, unixnano, not "weekly"');
    const destination = await fails(server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(job.id), body: { destination_conf: 'ftp://logs/x' } }), 400);
    expect(destination.message).toContain('destination_conf: scheme ftp is not supported');
    const dataset = await fails(server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(job.id), body: { dataset: 'audit_logs' } as never }), 400);
    expect(dataset.message).toContain('dataset');
    expect(await unwrap(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(job.id)))).toEqual(job);
    await fails(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(0)), 400);
    await fails(server.api.GET('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id: 'f'.repeat(32) } } }), 404);
  });

  it('keeps output_options as written, checks them against the dataset, and null clears them', async () => {
    const output_options = { field_names: ['Datetime', 'QueryName'], output_type: 'csv' as const, record_template: '{{.Datetime}} {{ .QueryName }}\n', 'CVE-2021-44228': true };
    const job = await createJob({ ...GATEWAY, output_options });
    // Answered with the defaults of what was left out, as read back.
    const stored = { ...output_options, sample_rate: 1, timestamp_format: 'unixnano' };
    expect(job.output_options).toEqual(stored);
    expect((await unwrap(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(job.id)))).output_options).toEqual(stored);
    const zoneJob = await unwrap(
      server.api.POST('/zones/{zone_id}/logpush/jobs', {
        params: { path: { zone_id: ids.proZone } },
        body: { destination_conf: 's3://logs/http/{DATE}?region=us-east-1', output_options: { field_names: ['RayID', 'RequestHeaders'], timestamp_format: 'rfc3339' } },
      }),
    );
    expect(zoneJob.output_options).toEqual({ field_names: ['RayID', 'RequestHeaders'], timestamp_format: 'rfc3339', output_type: 'ndjson', sample_rate: 1, 'CVE-2021-44228': false });
    const refusals: [Record<string, unknown>, string][] = [
      [{ field_names: ['Datetime', 'RequestHeaders'] }, 'output_options: field_names: RequestHeaders carries custom fields, which only the http_requests dataset has'],
      [{ field_names: [] }, 'output_options: field_names must list at least one field'],
      [{ field_names: ['Datetime'], record_template: '{{range .}}x{{end}}' }, 'record_template: only {{.FieldName}} placeholders are served'],
    ];
    for (const [options, message] of refusals) {
      const refused = await fails(server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(job.id), body: { output_options: options as never } }), 400);
      expect(refused.message).toContain(message);
    }
    const shape = await fails(server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(job.id), body: { output_options: { output_type: 'xml' } as never } }), 400);
    expect(shape.message).toContain('output_type');
    expect((await unwrap(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(job.id)))).output_options).toEqual(stored);
    const cleared = await unwrap(server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(job.id), body: { output_options: null } }));
    expect(cleared.output_options).toBeNull();
  });

  it('keeps zone and account jobs apart: an id of the other scope answers 404', async () => {
    const accountJob = await createJob();
    // Seeded job 1 belongs to the Pro zone of this very account.
    await fails(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(1)), 404);
    await fails(server.api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { ...jobPath(1), body: { enabled: false } }), 404);
    await fails(server.api.DELETE('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(1)), 404);
    const zoneJob = { params: { path: { zone_id: ids.proZone, job_id: accountJob.id } } };
    await fails(server.api.GET('/zones/{zone_id}/logpush/jobs/{job_id}', zoneJob), 404);
    await fails(server.api.PUT('/zones/{zone_id}/logpush/jobs/{job_id}', { ...zoneJob, body: { enabled: true } }), 404);
    await fails(server.api.DELETE('/zones/{zone_id}/logpush/jobs/{job_id}', zoneJob), 404);
    const zoneList = await unwrap(server.api.GET('/zones/{zone_id}/logpush/jobs', { params: { path: { zone_id: ids.proZone } } }));
    expect(zoneList.map((job) => job.id)).not.toContain(accountJob.id);
    const accountList = await unwrap(server.api.GET('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id } } }));
    expect(accountList.map((job) => job.id)).not.toContain(1);
    // Another account's list does not show this account's jobs.
    expect(await unwrap(server.api.GET('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id: secondAccount } } }))).toEqual([]);
    await fails(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(accountJob.id, secondAccount)), 404);
    expect(await unwrap(server.api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', jobPath(accountJob.id)))).toEqual(accountJob);
  });
});

describe('account log push jobs with scoped credentials', () => {
  const as = (token: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), ...bearer(token) } });

  it('refuses every read and write with a token of another account or of a zone only (403, 9109), and changes nothing', async () => {
    const job = await createJob();
    const base = `/accounts/${account_id}/logpush/jobs`;
    const calls: [string, string, RequestInit][] = [
      ['list', base, {}],
      ['create', base, json('POST', GATEWAY)],
      ['get', `${base}/${job.id}`, {}],
      ['update', `${base}/${job.id}`, json('PUT', { enabled: true })],
      ['delete', `${base}/${job.id}`, { method: 'DELETE' }],
    ];
    const before = await (await server.fetch(base, { headers: bearer() })).text();
    for (const token of [otherAccountToken, secondAccountToken, proZoneToken]) {
      for (const [what, path, init] of calls) {
        const response = await server.fetch(path, as(token, init));
        const body = (await response.json()) as { errors: { code: number }[] };
        expect({ what, token, status: response.status, codes: body.errors.map((e) => e.code) }).toEqual({ what, token, status: 403, codes: [9109] });
      }
    }
    expect(await (await server.fetch(base, { headers: bearer() })).text()).toBe(before);
  });

  it('lets a token of the account read and write its jobs', async () => {
    const response = await server.fetch(`/accounts/${secondAccount}/logpush/jobs`, as(secondAccountToken, json('POST', { ...GATEWAY, dataset: 'audit_logs' })));
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: { id: number } };
    expect((await server.fetch(`/accounts/${secondAccount}/logpush/jobs/${result.id}`, as(secondAccountToken))).status).toBe(200);
    expect((await server.fetch(`/accounts/${secondAccount}/logpush/jobs/${result.id}`, as(secondAccountToken, { method: 'DELETE' }))).status).toBe(200);
  });
});

describe('account log push jobs through the official client', () => {
  it('creates, lists, gets, updates and deletes with account_id', async () => {
    const { cf, sent } = officialClient(server);
    const job = (await cf.logpush.jobs.create({ account_id, destination_conf: 's3://logs/sdk-account?region=us-east-1', dataset: 'audit_logs' }))!;
    expect({ method: sent.at(-1)!.method, path: sent.at(-1)!.url.pathname.endsWith(`/accounts/${account_id}/logpush/jobs`) }).toEqual({ method: 'POST', path: true });
    expect(job).toMatchObject({ dataset: 'audit_logs', enabled: false, frequency: 'high' });
    expect((await all(cf.logpush.jobs.list({ account_id }))).map((j) => j!.id)).toContain(job.id);
    expect(await cf.logpush.jobs.get(job.id!, { account_id })).toEqual(job);
    const updated = await cf.logpush.jobs.update(job.id!, { account_id, enabled: true, logpull_options: 'fields=ActorEmail,Action&timestamps=unix' });
    expect(updated).toEqual({ ...job, enabled: true, logpull_options: 'fields=ActorEmail,Action&timestamps=unix' });
    expect(await refusal(cf.logpush.jobs.update(job.id!, { account_id, logpull_options: 'fields=Cookies' }))).toMatchObject({ status: 400, codes: [10021] });
    // The zone path does not know the account's job.
    expect(await refusal(cf.logpush.jobs.get(job.id!, { zone_id: ids.proZone }))).toMatchObject({ status: 404 });
    expect(await cf.logpush.jobs.delete(job.id!, { account_id })).toEqual({ id: job.id });
    expect(await refusal(cf.logpush.jobs.get(job.id!, { account_id }))).toMatchObject({ status: 404 });
  });
});
