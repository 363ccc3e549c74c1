// Custom log fields and log push jobs: the spec's third how-to sequence and every constraint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../src/client';
import { apiFailure, ids, startServer, type TestServer } from './harness';

let server: TestServer;
const zone_id = ids.enterpriseZone;
let rulesetId: string;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

type Fields = { request_fields?: { name: string }[]; response_fields?: { name: string }[]; cookie_fields?: { name: string }[] };

function putFields(action_parameters: Fields, expression = 'true') {
  return unwrap(
    server.api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', {
      params: { path: { zone_id, ruleset_id: rulesetId } },
      body: { rules: [{ action: 'log_custom_field', expression, action_parameters }] },
    }),
  );
}


describe('how-to 3: configure custom log fields', () => {
  it('finds no custom fields ruleset, creates it, PUTs the rule and creates the log push job', async () => {
    const rulesets = await unwrap(server.api.GET('/zones/{zone_id}/rulesets', { params: { path: { zone_id } } }));
    expect(rulesets.some((r) => r.kind === 'zone' && r.phase === 'http_log_custom_fields')).toBe(false);
    const created = await unwrap(
      server.api.POST('/zones/{zone_id}/rulesets', {
        params: { path: { zone_id } },
        body: { name: 'Zone-level phase entry point', kind: 'zone', description: '', phase: 'http_log_custom_fields' },
      }),
    );
    rulesetId = created.id;
    const updated = await putFields({
      request_fields: [{ name: 'content-type' }, { name: 'x-forwarded-for' }],
      response_fields: [{ name: 'server' }],
      cookie_fields: [{ name: '__ga' }, { name: 'accountNumber' }],
    });
    expect(updated.version).toBe('2');
    expect(updated.rules).toHaveLength(1);
    expect(updated.rules![0]).toMatchObject({
      action: 'log_custom_field',
      expression: 'true',
      action_parameters: { cookie_fields: [{ name: '__ga' }, { name: 'accountNumber' }] },
    });
    const job = await unwrap(
      server.api.POST('/zones/{zone_id}/logpush/jobs', {
        params: { path: { zone_id } },
        body: {
          name: 'example.com',
          destination_conf: 's3://logs/http?region=us-east-1',
          dataset: 'http_requests',
          logpull_options: 'fields=ClientIP,ClientRequestHost,RequestHeaders,ResponseHeaders,Cookies&timestamps=rfc3339',
          ownership_challenge: 'challenge-token',
        },
      }),
    );
    expect(job.id).toBeGreaterThan(0);
    expect(job).toMatchObject({ dataset: 'http_requests', enabled: false, frequency: 'high', last_error: null });
    const second = await unwrap(
      server.api.POST('/zones/{zone_id}/logpush/jobs', { params: { path: { zone_id } }, body: { destination_conf: 'https://logs.example.com/in' } }),
    );
    expect(second.id).toBeGreaterThan(job.id);
    const entry = await unwrap(
      server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id, phase: 'http_log_custom_fields' } } }),
    );
    expect(entry.id).toBe(rulesetId);
  });
});

describe('custom fields constraints', () => {
  it('refuses a rule with no field at all', async () => {
    const error = await apiFailure(putFields({ request_fields: [], cookie_fields: [] }), 400);
    expect(error.errors[0]!.message).toMatch(/at least one of request_fields, response_fields and cookie_fields/);
  });

  it('refuses an expression other than true', async () => {
    const error = await apiFailure(putFields({ request_fields: [{ name: 'x-a' }] }, 'http.host eq "a"'), 400);
    expect(error.codes).toEqual([20200]);
    expect(error.errors[0]!.message).toMatch(/must have the expression "true"/);
  });

  it('refuses upper-case header names, naming the field', async () => {
    const error = await apiFailure(putFields({ request_fields: [{ name: 'X-Request-Id' }] }), 400);
    expect(error.codes).toEqual([10021]);
    expect(error.errors[0]!.message).toMatch(/request_fields\/0\/name must be a header name in lower case/);
  });

  it('keeps cookie names as the request spells them', async () => {
    const updated = await putFields({ cookie_fields: [{ name: 'SessionID' }, { name: 'sessionid' }] });
    const [rule] = updated.rules!;
    expect(rule!.action === 'log_custom_field' && rule!.action_parameters).toEqual({ cookie_fields: [{ name: 'SessionID' }, { name: 'sessionid' }] });
  });

  it('refuses duplicates', async () => {
    const error = await apiFailure(putFields({ response_fields: [{ name: 'server' }, { name: 'server' }] }), 400);
    expect(error.errors[0]!.message).toMatch(/response_fields\[1\]\.name: "server" is listed twice/);
  });

  it('accepts 40 fields and refuses 41 across the three arrays', async () => {
    const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}` }));
    const ok = await putFields({ request_fields: names('req', 20), response_fields: names('res', 10), cookie_fields: names('c', 10) });
    expect(ok.rules![0]!.action).toBe('log_custom_field');
    const error = await apiFailure(putFields({ request_fields: names('req', 20), response_fields: names('res', 11), cookie_fields: names('c', 10) }), 400);
    expect(error.errors[0]!.message).toMatch(/41 custom fields, but a zone may log at most 40/);
  });

  it('refuses a second rule in the custom fields ruleset', async () => {
    const error = await apiFailure(
      unwrap(
        server.api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', {
          params: { path: { zone_id, ruleset_id: rulesetId } },
          body: {
            rules: [
              { action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'a' }] } },
              { action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'b' }] } },
            ],
          },
        }),
      ),
      400,
    );
    expect(error.errors[0]!.message).toMatch(/holds one log_custom_field rule, not 2/);
  });

  it('refuses other actions in the custom fields phase', async () => {
    const error = await apiFailure(
      unwrap(
        server.api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', {
          params: { path: { zone_id, ruleset_id: rulesetId } },
          body: { rules: [{ action: 'block', expression: 'true' }] },
        }),
      ),
      400,
    );
    expect(error.errors[0]!.message).toMatch(/'block' is not allowed in phase http_log_custom_fields/);
  });
});

describe('log push job checks', () => {
  function create(body: Record<string, unknown>) {
    return unwrap(server.api.POST('/zones/{zone_id}/logpush/jobs', { params: { path: { zone_id } }, body: body as never }));
  }

  it.each([
    [{ destination_conf: 'not a url' }, /destination_conf: "not a url" is not a URL/],
    [{ destination_conf: 'ftp://x/y' }, /scheme ftp is not supported/],
    [{ destination_conf: 's3://b/p', logpull_options: 'fields=&timestamps=rfc3339' }, /fields must list at least one field/],
    [{ destination_conf: 's3://b/p', logpull_options: 'fields=ClientIP,NoSuchField&timestamps=rfc3339' }, /NoSuchField is not a field of the http_requests dataset/],
    [{ destination_conf: 's3://b/p', logpull_options: 'fields=ClientIP&timestamps=iso' }, /timestamps must be one of rfc3339, unix, unixnano/],
    [{ destination_conf: 's3://b/p', logpull_options: 'fields=ClientIP,ClientIP' }, /ClientIP is listed twice/],
    [{ destination_conf: 's3://b/p', logpull_options: 'fields=ClientIP&format=csv' }, /unknown option "format"/],
    [{ destination_conf: 's3://b/p', dataset: 'firewall_events', logpull_options: 'fields=Action,Cookies' }, /Cookies carries custom fields, which only the http_requests dataset has/],
  ])('refuses %j', async (body, message) => {
    const error = await apiFailure(create(body), 400);
    expect(error.codes).toEqual([10021]);
    expect(error.errors[0]!.message).toMatch(message);
  });

  it('refuses an unknown dataset and a bad name through the document', async () => {
    const dataset = await apiFailure(create({ destination_conf: 's3://b/p', dataset: 'everything' }), 400);
    expect(dataset.errors[0]!.message).toMatch(/dataset/);
    // An account dataset is an account job's, not a zone's.
    const accountDataset = await apiFailure(create({ destination_conf: 's3://b/p', dataset: 'workers_trace_events' }), 400);
    expect(accountDataset.errors[0]!.message).toMatch(/dataset/);
    const name = await apiFailure(create({ destination_conf: 's3://b/p', name: 'bad name!' }), 400);
    expect(name.errors[0]!.message).toMatch(/name/);
  });
});
