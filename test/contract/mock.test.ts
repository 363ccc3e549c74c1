// The typed client against the Prism mock of the bundled document: every operation answers its
// documented example, and invalid requests are refused by the mock's validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, paginate, unwrap, type ApiClient } from '../../src/client';
import { firstExample, loadBundle, operationsOf } from '../support/bundle';
import { startPrism, type RunningMock } from './prism';

const zone = 'db737a563ced53f224ff5eae44905c5e';
const account = '023e105f4ecef8ad9ca31a8372d0c353';
const owasp = '4814384a9e5d4991b9815dcfc25d2f1f';
const doc = loadBundle();

let mock: RunningMock;
let api: ApiClient;

beforeAll(async () => {
  mock = await startPrism();
  api = createApiClient({ baseUrl: mock.baseUrl, credentials: { token: 'mock-token' } });
});
afterAll(async () => {
  await mock?.stop();
});

// One valid call per operation, keyed by operationId.
const calls: Record<string, () => Promise<unknown>> = {
  getZone: () => unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: zone } } })),
  listCertificatePacks: () =>
    unwrap(api.GET('/zones/{zone_id}/ssl/certificate_packs', { params: { path: { zone_id: zone }, query: { ssl_status: 'all' } } })),
  updateUserInvitation: () =>
    unwrap(api.PATCH('/user/invites/{invite_id}', { params: { path: { invite_id: '54cc8d424f72455b004f6066cb96b244' } }, body: { status: 'accepted' } })),
  listAccountRulesets: () => unwrap(api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: account } } })),
  getAccountRuleset: () =>
    unwrap(api.GET('/accounts/{account_id}/rulesets/{ruleset_id}', { params: { path: { account_id: account, ruleset_id: owasp } } })),
  listZoneRulesets: () => unwrap(api.GET('/zones/{zone_id}/rulesets', { params: { path: { zone_id: zone } } })),
  createZoneRuleset: () =>
    unwrap(
      api.POST('/zones/{zone_id}/rulesets', {
        params: { path: { zone_id: zone } },
        body: { name: 'Zone-level phase entry point', kind: 'zone', phase: 'http_log_custom_fields' },
      }),
    ),
  updateZoneRuleset: () =>
    unwrap(
      api.PUT('/zones/{zone_id}/rulesets/{ruleset_id}', {
        params: { path: { zone_id: zone, ruleset_id: 'a86d3b2c9e4f4b7d8c1e2f3a4b5c6d7e' } },
        body: {
          rules: [{ action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'content-type' }] } }],
        },
      }),
    ),
  getZoneEntrypointRuleset: () =>
    unwrap(
      api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
        params: { path: { zone_id: zone, phase: 'http_request_firewall_managed' } },
      }),
    ),
  updateZoneEntrypointRuleset: () =>
    unwrap(
      api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
        params: { path: { zone_id: zone, phase: 'http_request_firewall_managed' }, query: { waf_migration: 'pending', phase_two: '1' } },
        body: { name: 'default', rules: [{ action: 'execute', expression: 'true', action_parameters: { id: owasp } }] },
      }),
    ),
  updateZoneRulesetRule: () =>
    unwrap(
      api.PATCH('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
        params: { path: { zone_id: zone, ruleset_id: '942dcaba0b1a1d77db8b4463785b3c84', rule_id: 'ba12ae99f709ee792f7a886b03b32e89' } },
        body: { enabled: true },
      }),
    ),
  createLogpushJob: () =>
    unwrap(
      api.POST('/zones/{zone_id}/logpush/jobs', {
        params: { path: { zone_id: zone } },
        body: { destination_conf: 's3://logs/{DATE}?region=us-east-1', dataset: 'http_requests', logpull_options: 'fields=ClientIP&timestamps=rfc3339' },
      }),
    ),
  validateFilterExpressionByQuery: () =>
    unwrap(api.GET('/filters/validate-expr', { params: { query: { expression: 'ssl' } } })),
  validateFilterExpression: () => unwrap(api.POST('/filters/validate-expr', { body: { expression: 'ssl' } })),
  getWafMigrationCheck: () =>
    unwrap(api.GET('/zones/{zone_id}/waf_migration/check', { params: { path: { zone_id: zone }, query: { phase_two: '1' } } })),
  getWafMigrationConfig: () =>
    unwrap(api.GET('/zones/{zone_id}/waf_migration/config', { params: { path: { zone_id: zone }, query: { phase_two: '1' } } })),
  getWafMigrationStatus: () => unwrap(api.GET('/zones/{zone_id}/waf_migration/status', { params: { path: { zone_id: zone } } })),
  simulateZoneRequest: () =>
    unwrap(
      api.POST('/zones/{zone_id}/simulate', {
        params: { path: { zone_id: '9d6991f5ca85bf43524971c922c4bcfc' } },
        body: { method: 'GET', url: 'https://example.org/search?q=<script>alert(document.cookie)</script>', client_ip: '203.0.113.7' },
      }),
    ),
};

describe('the mock serves the documented examples', () => {
  const operations = operationsOf(doc);

  it('has a call for every operation of the document', () => {
    expect(Object.keys(calls).sort()).toEqual(operations.map((o) => o.operationId).sort());
    expect(operations).toHaveLength(18);
  });

  for (const op of operations) {
    it(`${op.operationId} answers its first 200 example`, async () => {
      const expected = firstExample(doc, op.operation, '200') as { result: unknown };
      expect(await calls[op.operationId]!()).toEqual(expected.result);
    });
  }

  it('iterates all pages of a list operation', async () => {
    const items = [];
    for await (const ruleset of paginate((page) =>
      api.GET('/accounts/{account_id}/rulesets', { params: { path: { account_id: account }, query: { page } } }),
    )) {
      items.push(ruleset.id);
    }
    expect(items).toEqual([owasp, 'efb7b8c949ac4650a09736fc376e9aee']);
  });
});

describe('the mock refuses invalid requests', () => {
  type Envelope = { success: boolean; result: unknown; errors: { code: number; message: string }[] };
  // The mock answers 400 in the API's envelope, one error per violation, worded as the server words them.
  function refusal(response: Response, error: unknown): string[] {
    expect(response.status).toBe(400);
    const envelope = error as Envelope;
    expect(envelope).toMatchObject({ success: false, result: null });
    expect(new Set(envelope.errors.map((e) => e.code))).toEqual(new Set([10021]));
    return envelope.errors.map((e) => e.message);
  }

  it('refuses a body field of the wrong type', async () => {
    const { response, error } = await api.PATCH('/user/invites/{invite_id}', {
      params: { path: { invite_id: '54cc8d424f72455b004f6066cb96b244' } },
      body: { status: 5 as unknown as 'accepted' },
    });
    expect(refusal(response, error)).toContain('body/status must be string');
  });

  it('refuses a body without its required fields', async () => {
    const { response, error } = await api.POST('/zones/{zone_id}/rulesets', { params: { path: { zone_id: zone } }, body: {} as never });
    expect(refusal(response, error)).toEqual(
      expect.arrayContaining(["body must have required property 'name'", "body must have required property 'kind'"]),
    );
  });

  it('refuses an identifier that is not 32 hex characters', async () => {
    const { response, error } = await api.GET('/zones/{zone_id}', { params: { path: { zone_id: 'not-a-zone' } } });
    expect(refusal(response, error)).toContain('params/zone_id must match pattern "^[0-9a-f]{32}$"');
  });

  it('refuses unknown body fields', async () => {
    const { response, error } = await api.POST('/filters/validate-expr', { body: { expression: 'ssl', kind: 'zone' } as never });
    expect(refusal(response, error)).toEqual(["body must NOT have additional properties; found 'kind'"]);
  });

  it('rejects a failed call through unwrap as an ApiError', async () => {
    const failure = await unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: 'x' } } })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(400);
    expect((failure as ApiError).codes).toEqual([10021, 10021]);
  });
});
