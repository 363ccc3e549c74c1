// The typed client against the Prism mock of the bundled document: every operation answers its
// documented example, and invalid requests are refused by the mock's validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, paginate, unwrap, type ApiClient } from '../../src/client';
import { firstExample, loadBundle, operationsOf } from '../support/bundle';
import { UNKNOWN_ACTION } from '../support/rule-wording';
import { startPrism, type RunningMock } from './prism';

const zone = 'db737a563ced53f224ff5eae44905c5e';
const account = '023e105f4ecef8ad9ca31a8372d0c353';
const owasp = '4814384a9e5d4991b9815dcfc25d2f1f';
const pro = '9d6991f5ca85bf43524971c922c4bcfc';
const proEntryPoint = '942dcaba0b1a1d77db8b4463785b3c84';
const customRuleset = 'c2f0a7d94b1e4e6f9a3d5b8c7e6f1a20';
const accountRuleset = '6b1d3f5a7c9e4b2d8f0a1c3e5b7d9f2a';
const accountRule = '8d2e4f6a1b3c4d5e9f7a6b5c4d3e2f1a';
const doc = loadBundle();

let mock: RunningMock;
let api: ApiClient;

beforeAll(async () => {
  mock = await startPrism();
  api = createApiClient({ baseUrl: mock.baseUrl, credentials: { token: 'mock-token' } });
}, 150_000);
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
  ...previousWafCalls(),
  ...bucketCalls(),
  ...workerCalls(),
  listZones: () => unwrap(api.GET('/zones', { params: { query: { name: 'example.com', per_page: 20, direction: 'asc' } } })),
  getZoneRuleset: () => unwrap(api.GET('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path: { zone_id: pro, ruleset_id: proEntryPoint } } })),
  deleteZoneRuleset: async () => (await api.DELETE('/zones/{zone_id}/rulesets/{ruleset_id}', { params: { path: { zone_id: pro, ruleset_id: proEntryPoint } } })).response.status,
  deleteAccountRuleset: async () =>
    (await api.DELETE('/accounts/{account_id}/rulesets/{ruleset_id}', { params: { path: { account_id: account, ruleset_id: owasp } } })).response.status,
  createZoneRulesetRule: () =>
    unwrap(
      api.POST('/zones/{zone_id}/rulesets/{ruleset_id}/rules', {
        params: { path: { zone_id: pro, ruleset_id: customRuleset } },
        body: { action: 'managed_challenge', expression: 'http.request.uri.path eq "/login"', position: { before: '' } },
      }),
    ),
  deleteZoneRulesetRule: () =>
    unwrap(
      api.DELETE('/zones/{zone_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
        params: { path: { zone_id: pro, ruleset_id: customRuleset, rule_id: '3e0b5f6a7c8d4e9fa0b1c2d3e4f5a6b7' } },
      }),
    ),
  createAccountRuleset: () =>
    unwrap(
      api.POST('/accounts/{account_id}/rulesets', {
        params: { path: { account_id: account } },
        body: { name: 'Shared blocks', kind: 'custom', phase: 'http_request_firewall_custom' },
      }),
    ),
  updateAccountRuleset: () =>
    unwrap(api.PUT('/accounts/{account_id}/rulesets/{ruleset_id}', { params: { path: { account_id: account, ruleset_id: accountRuleset } }, body: { rules: [] } })),
  createAccountRulesetRule: () =>
    unwrap(
      api.POST('/accounts/{account_id}/rulesets/{ruleset_id}/rules', {
        params: { path: { account_id: account, ruleset_id: accountRuleset } },
        body: { action: 'block', expression: 'ip.src in {198.51.100.0/24}' },
      }),
    ),
  updateAccountRulesetRule: () =>
    unwrap(
      api.PATCH('/accounts/{account_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
        params: { path: { account_id: account, ruleset_id: accountRuleset, rule_id: accountRule } },
        body: { enabled: false },
      }),
    ),
  deleteAccountRulesetRule: () =>
    unwrap(
      api.DELETE('/accounts/{account_id}/rulesets/{ruleset_id}/rules/{rule_id}', {
        params: { path: { account_id: account, ruleset_id: accountRuleset, rule_id: accountRule } },
      }),
    ),
  getAccountEntrypointRuleset: () =>
    unwrap(api.GET('/accounts/{account_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { account_id: account, phase: 'http_request_firewall_custom' } } })),
  updateAccountEntrypointRuleset: () =>
    unwrap(
      api.PUT('/accounts/{account_id}/rulesets/phases/{phase}/entrypoint', {
        params: { path: { account_id: account, phase: 'http_request_firewall_custom' } },
        body: { rules: [] },
      }),
    ),
  listAccountEntrypointRulesetVersions: () =>
    unwrap(
      api.GET('/accounts/{account_id}/rulesets/phases/{phase}/entrypoint/versions', { params: { path: { account_id: account, phase: 'http_request_firewall_custom' } } }),
    ),
  getAccountEntrypointRulesetVersion: () =>
    unwrap(
      api.GET('/accounts/{account_id}/rulesets/phases/{phase}/entrypoint/versions/{ruleset_version}', {
        params: { path: { account_id: account, phase: 'http_request_firewall_custom', ruleset_version: '1' } },
      }),
    ),
  listZoneRulesetVersions: () => unwrap(api.GET('/zones/{zone_id}/rulesets/{ruleset_id}/versions', { params: { path: { zone_id: pro, ruleset_id: proEntryPoint } } })),
  getZoneRulesetVersion: () =>
    unwrap(
      api.GET('/zones/{zone_id}/rulesets/{ruleset_id}/versions/{ruleset_version}', {
        params: { path: { zone_id: pro, ruleset_id: proEntryPoint, ruleset_version: '1' } },
      }),
    ),
  deleteZoneRulesetVersion: async () =>
    (
      await api.DELETE('/zones/{zone_id}/rulesets/{ruleset_id}/versions/{ruleset_version}', {
        params: { path: { zone_id: pro, ruleset_id: proEntryPoint, ruleset_version: '1' } },
      })
    ).response.status,
  listZoneEntrypointRulesetVersions: () =>
    unwrap(api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint/versions', { params: { path: { zone_id: pro, phase: 'http_request_firewall_managed' } } })),
  getZoneEntrypointRulesetVersion: () =>
    unwrap(
      api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint/versions/{ruleset_version}', {
        params: { path: { zone_id: pro, phase: 'http_request_firewall_managed', ruleset_version: '1' } },
      }),
    ),
  listAccountRulesetVersions: () =>
    unwrap(api.GET('/accounts/{account_id}/rulesets/{ruleset_id}/versions', { params: { path: { account_id: account, ruleset_id: proEntryPoint } } })),
  getAccountRulesetVersion: () =>
    unwrap(
      api.GET('/accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}', {
        params: { path: { account_id: account, ruleset_id: owasp, ruleset_version: '1' } },
      }),
    ),
  deleteAccountRulesetVersion: async () =>
    (
      await api.DELETE('/accounts/{account_id}/rulesets/{ruleset_id}/versions/{ruleset_version}', {
        params: { path: { account_id: account, ruleset_id: owasp, ruleset_version: '1' } },
      })
    ).response.status,
  listLogpushJobs: () => unwrap(api.GET('/zones/{zone_id}/logpush/jobs', { params: { path: { zone_id: zone } } })),
  getLogpushJob: () => unwrap(api.GET('/zones/{zone_id}/logpush/jobs/{job_id}', { params: { path: { zone_id: zone, job_id: 1 } } })),
  updateLogpushJob: () =>
    unwrap(api.PUT('/zones/{zone_id}/logpush/jobs/{job_id}', { params: { path: { zone_id: zone, job_id: 1 } }, body: { enabled: true } })),
  deleteLogpushJob: () => unwrap(api.DELETE('/zones/{zone_id}/logpush/jobs/{job_id}', { params: { path: { zone_id: zone, job_id: 1 } } })),
  listAccountLogpushJobs: () => unwrap(api.GET('/accounts/{account_id}/logpush/jobs', { params: { path: { account_id: account } } })),
  createAccountLogpushJob: () =>
    unwrap(
      api.POST('/accounts/{account_id}/logpush/jobs', {
        params: { path: { account_id: account } },
        body: { destination_conf: 's3://logs-bucket/gateway_dns/{DATE}?region=us-east-1', dataset: 'gateway_dns' },
      }),
    ),
  getAccountLogpushJob: () => unwrap(api.GET('/accounts/{account_id}/logpush/jobs/{job_id}', { params: { path: { account_id: account, job_id: 3 } } })),
  updateAccountLogpushJob: () =>
    unwrap(api.PUT('/accounts/{account_id}/logpush/jobs/{job_id}', { params: { path: { account_id: account, job_id: 3 } }, body: { enabled: true } })),
  deleteAccountLogpushJob: () => unwrap(api.DELETE('/accounts/{account_id}/logpush/jobs/{job_id}', { params: { path: { account_id: account, job_id: 3 } } })),
  simulateZoneRequest: () =>
    unwrap(
      api.POST('/zones/{zone_id}/simulate', {
        params: { path: { zone_id: '9d6991f5ca85bf43524971c922c4bcfc' } },
        body: { method: 'GET', url: 'https://example.org/search?q=<script>alert(document.cookie)</script>', client_ip: '203.0.113.7' },
      }),
    ),
};

/** The bucket family and the look-ups tools make first, with the names and ids of their examples. */
function bucketCalls(): Record<string, () => Promise<unknown>> {
  const account_id = account;
  const bucket = { account_id, bucket_name: 'my-bucket' };
  const object = { ...bucket, object_key: 'docs%2Freadme.txt' };
  const cors = { rules: [{ allowed: { origins: ['https://app.example.com'], methods: ['GET' as const] } }] };
  const lifecycle = { rules: [{ id: 'a', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age' as const, maxAge: 86400 } } }] };
  return {
    verifyUserToken: () => unwrap(api.GET('/user/tokens/verify')),
    getUser: () => unwrap(api.GET('/user')),
    listMemberships: () => unwrap(api.GET('/memberships')),
    listAccounts: () => unwrap(api.GET('/accounts')),
    getAccount: () => unwrap(api.GET('/accounts/{account_id}', { params: { path: { account_id } } })),
    listBuckets: () => unwrap(api.GET('/accounts/{account_id}/r2/buckets', { params: { path: { account_id } } })),
    createBucket: () => unwrap(api.POST('/accounts/{account_id}/r2/buckets', { params: { path: { account_id } }, body: { name: 'my-bucket' } })),
    getBucket: () => unwrap(api.GET('/accounts/{account_id}/r2/buckets/{bucket_name}', { params: { path: bucket } })),
    updateBucket: () =>
      unwrap(api.PATCH('/accounts/{account_id}/r2/buckets/{bucket_name}', { params: { path: bucket, header: { 'cf-r2-storage-class': 'InfrequentAccess' } } })),
    deleteBucket: () => unwrap(api.DELETE('/accounts/{account_id}/r2/buckets/{bucket_name}', { params: { path: bucket } })),
    getBucketCors: () => unwrap(api.GET('/accounts/{account_id}/r2/buckets/{bucket_name}/cors', { params: { path: bucket } })),
    updateBucketCors: () => unwrap(api.PUT('/accounts/{account_id}/r2/buckets/{bucket_name}/cors', { params: { path: bucket }, body: cors })),
    deleteBucketCors: () => unwrap(api.DELETE('/accounts/{account_id}/r2/buckets/{bucket_name}/cors', { params: { path: bucket } })),
    getBucketLifecycle: () => unwrap(api.GET('/accounts/{account_id}/r2/buckets/{bucket_name}/lifecycle', { params: { path: bucket } })),
    updateBucketLifecycle: () =>
      unwrap(api.PUT('/accounts/{account_id}/r2/buckets/{bucket_name}/lifecycle', { params: { path: bucket }, body: lifecycle })),
    listBucketObjects: () => unwrap(api.GET('/accounts/{account_id}/r2/buckets/{bucket_name}/objects', { params: { path: bucket } })),
    // An object's bytes are not the envelope: the typed client reads them as text.
    getBucketObject: async () =>
      (await api.GET('/accounts/{account_id}/r2/buckets/{bucket_name}/objects/{object_key}', { params: { path: object }, parseAs: 'text' })).data,
    uploadBucketObject: () =>
      unwrap(
        api.PUT('/accounts/{account_id}/r2/buckets/{bucket_name}/objects/{object_key}', {
          params: { path: object },
          body: 'hello',
          bodySerializer: (body) => body ?? '',
          headers: { 'Content-Type': 'text/plain' },
        }),
      ),
    deleteBucketObject: () =>
      unwrap(api.DELETE('/accounts/{account_id}/r2/buckets/{bucket_name}/objects/{object_key}', { params: { path: object } })),
    createTemporaryCredentials: () =>
      unwrap(
        api.POST('/accounts/{account_id}/r2/temp-access-credentials', {
          params: { path: { account_id } },
          body: { bucket: 'my-bucket', parentAccessKeyId: 'LOCALKEY', permission: 'object-read-only', ttlSeconds: 3600 },
        }),
      ),
  };
}

/** The Workers family, with the names and ids of its examples; uploads sent as the multipart forms they are. */
function workerCalls(): Record<string, () => Promise<unknown>> {
  const account_id = account;
  const script = { account_id, script_name: 'hello-worker' };
  const version_id = '18f97339-c287-4872-9bdd-e2135c07ec12';
  const route = { zone_id: zone, route_id: '9a7806061c88ada191ed06f989cc3dac' };
  const secret = { ...script, secret_name: 'API_KEY' };
  const upload = async (method: 'PUT' | 'POST', path: string) => {
    const form = new FormData();
    form.set('metadata', new Blob([JSON.stringify({ main_module: 'index.js' })], { type: 'application/json' }));
    form.set('index.js', new Blob(['export default {}'], { type: 'application/javascript+module' }), 'index.js');
    const response = await fetch(`${mock.baseUrl}${path}`, { method, headers: { Authorization: 'Bearer mock-token' }, body: form });
    return ((await response.json()) as { result: unknown }).result;
  };
  return {
    listWorkerScripts: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts', { params: { path: { account_id } } })),
    uploadWorkerScript: () => upload('PUT', `/accounts/${account_id}/workers/scripts/hello-worker`),
    createWorkerAssetsUploadSession: () =>
      unwrap(
        api.POST('/accounts/{account_id}/workers/scripts/{script_name}/assets-upload-session', {
          params: { path: script },
          body: { manifest: { '/index.html': { hash: '7f3c5e0b1a2d4c6e8f9a0b1c2d3e4f50', size: 1024 } } },
        }),
      ),
    uploadWorkerAssets: async () => {
      const form = new FormData();
      form.set('7f3c5e0b1a2d4c6e8f9a0b1c2d3e4f50', new Blob([Buffer.from('<h1>home</h1>').toString('base64')], { type: 'text/html' }), '7f3c5e0b1a2d4c6e8f9a0b1c2d3e4f50');
      const response = await fetch(`${mock.baseUrl}/accounts/${account_id}/workers/assets/upload?base64=true`, { method: 'POST', headers: { Authorization: 'Bearer mock-session-jwt' }, body: form });
      return ((await response.json()) as { result: unknown }).result;
    },
    getWorkerScriptContent: async () =>
      (await api.GET('/accounts/{account_id}/workers/scripts/{script_name}', { params: { path: script }, parseAs: 'text' })).data,
    deleteWorkerScript: () => unwrap(api.DELETE('/accounts/{account_id}/workers/scripts/{script_name}', { params: { path: script } })),
    getWorkerScriptSettings: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/settings', { params: { path: script } })),
    getWorkerScriptLevelSettings: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/script-settings', { params: { path: script } })),
    updateWorkerScriptLevelSettings: () =>
      unwrap(api.PATCH('/accounts/{account_id}/workers/scripts/{script_name}/script-settings', { params: { path: script }, body: { tags: [] } })),
    getWorkerScriptSubdomain: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/subdomain', { params: { path: script } })),
    updateWorkerScriptSubdomain: () =>
      unwrap(api.POST('/accounts/{account_id}/workers/scripts/{script_name}/subdomain', { params: { path: script }, body: { enabled: true } })),
    deleteWorkerScriptSubdomain: () => unwrap(api.DELETE('/accounts/{account_id}/workers/scripts/{script_name}/subdomain', { params: { path: script } })),
    listWorkerScriptRoutes: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/routes', { params: { path: script } })),
    updateWorkerScriptRoutes: () =>
      unwrap(api.PUT('/accounts/{account_id}/workers/scripts/{script_name}/routes', { params: { path: script }, body: [{ pattern: 'shop.example.com/*' }] })),
    listWorkerVersions: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/versions', { params: { path: script } })),
    uploadWorkerVersion: () => upload('POST', `/accounts/${account_id}/workers/scripts/hello-worker/versions`),
    getWorkerVersion: () =>
      unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/versions/{version_id}', { params: { path: { ...script, version_id } } })),
    listWorkerDeployments: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/deployments', { params: { path: script } })),
    createWorkerDeployment: () =>
      unwrap(
        api.POST('/accounts/{account_id}/workers/scripts/{script_name}/deployments', {
          params: { path: script },
          body: { strategy: 'percentage', versions: [{ version_id, percentage: 100 }] },
        }),
      ),
    getWorkerDeployment: () =>
      unwrap(
        api.GET('/accounts/{account_id}/workers/scripts/{script_name}/deployments/{deployment_id}', {
          params: { path: { ...script, deployment_id: 'bcf48806-b317-4351-9ee7-36e7d557d4de' } },
        }),
      ),
    listWorkerSecrets: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/secrets', { params: { path: script } })),
    updateWorkerSecret: () =>
      unwrap(
        api.PUT('/accounts/{account_id}/workers/scripts/{script_name}/secrets', { params: { path: script }, body: { name: 'API_KEY', text: 'x', type: 'secret_text' } }),
      ),
    getWorkerSecret: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/secrets/{secret_name}', { params: { path: secret } })),
    deleteWorkerSecret: () => unwrap(api.DELETE('/accounts/{account_id}/workers/scripts/{script_name}/secrets/{secret_name}', { params: { path: secret } })),
    updateWorkerSecrets: () =>
      unwrap(
        api.PATCH('/accounts/{account_id}/workers/scripts/{script_name}/secrets-bulk', {
          params: { path: script },
          body: { secrets: { API_KEY: { name: 'API_KEY', text: 'x', type: 'secret_text' } } },
        }),
      ),
    getWorkerSchedules: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/schedules', { params: { path: script } })),
    updateWorkerSchedules: () =>
      unwrap(api.PUT('/accounts/{account_id}/workers/scripts/{script_name}/schedules', { params: { path: script }, body: [{ cron: '*/5 * * * *' }, { cron: '0 9 * * MON-FRI' }] })),
    getWorkerReferences: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/references', { params: { path: script } })),
    listWorkerTailProducers: () => unwrap(api.GET('/accounts/{account_id}/workers/tails/by-consumer/{script_name}', { params: { path: script } })),
    createWorkerTail: () => unwrap(api.POST('/accounts/{account_id}/workers/scripts/{script_name}/tails', { params: { path: script }, body: { filters: [{ outcome: ['exception'] }] } })),
    listWorkerTails: () => unwrap(api.GET('/accounts/{account_id}/workers/scripts/{script_name}/tails', { params: { path: script } })),
    deleteWorkerTail: () => unwrap(api.DELETE('/accounts/{account_id}/workers/scripts/{script_name}/tails/{tail_id}', { params: { path: { ...script, tail_id: '03dc9f77817b488fb26c5861ec18f791' } } })),
    getWorkerService: () =>
      unwrap(api.GET('/accounts/{account_id}/workers/services/{service_name}', { params: { path: { account_id, service_name: 'hello-worker' } } })),
    deleteWorkerService: () =>
      unwrap(api.DELETE('/accounts/{account_id}/workers/services/{service_name}', { params: { path: { account_id, service_name: 'hello-worker' } } })),
    getWorker: () => unwrap(api.GET('/accounts/{account_id}/workers/workers/{script_name}', { params: { path: script } })),
    getWorkersSubdomainAvailability: () => unwrap(api.GET('/accounts/{account_id}/workers/subdomains/{subdomain}', { params: { path: { account_id, subdomain: 'example-corp' } } })),
    getWorkersSubdomain: () => unwrap(api.GET('/accounts/{account_id}/workers/subdomain', { params: { path: { account_id } } })),
    updateWorkersSubdomain: () => unwrap(api.PUT('/accounts/{account_id}/workers/subdomain', { params: { path: { account_id } }, body: { subdomain: 'example-corp' } })),
    deleteWorkersSubdomain: () => unwrap(api.DELETE('/accounts/{account_id}/workers/subdomain', { params: { path: { account_id } } })),
    listDurableObjectNamespaces: () => unwrap(api.GET('/accounts/{account_id}/workers/durable_objects/namespaces', { params: { path: { account_id } } })),
    listKvNamespaces: () => unwrap(api.GET('/accounts/{account_id}/storage/kv/namespaces', { params: { path: { account_id } } })),
    listWorkerRoutes: () => unwrap(api.GET('/zones/{zone_id}/workers/routes', { params: { path: { zone_id: zone } } })),
    createWorkerRoute: () =>
      unwrap(api.POST('/zones/{zone_id}/workers/routes', { params: { path: { zone_id: zone } }, body: { pattern: 'shop.example.com/*', script: 'hello-worker' } })),
    getWorkerRoute: () => unwrap(api.GET('/zones/{zone_id}/workers/routes/{route_id}', { params: { path: route } })),
    updateWorkerRoute: () =>
      unwrap(api.PUT('/zones/{zone_id}/workers/routes/{route_id}', { params: { path: route }, body: { pattern: 'shop.example.com/*', script: 'hello-worker' } })),
    deleteWorkerRoute: () => unwrap(api.DELETE('/zones/{zone_id}/workers/routes/{route_id}', { params: { path: route } })),
  };
}

/** The previous WAF's operations, with the ids of their examples. */
function previousWafCalls(): Record<string, () => Promise<unknown>> {
  const owasp = { zone_id: zone, package_id: '436d8cdf3866e6731f627fefee999131' };
  const managed = { zone_id: zone, package_id: 'ac7e2edf57885e8b0639bf8198bdc91b' };
  const group = { ...owasp, group_id: 'bce73ee49082c71ef00733b29d7edd2c' };
  const rule = { ...managed, waf_rule_id: '100015' };
  const shop = '4664f8ed5074f32e2702495db5e75b64';
  const override = { zone_id: shop, override_id: '67bc645a492070540e1c031371fa1204' };
  const body = { urls: ['example-shop.com/checkout/*'], rules: { '100015': 'disable' as const } };
  return {
    listWafPackages: () => unwrap(api.GET('/zones/{zone_id}/firewall/waf/packages', { params: { path: { zone_id: zone } } })),
    getWafPackage: () => unwrap(api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}', { params: { path: owasp } })),
    updateWafPackage: () =>
      unwrap(api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}', { params: { path: owasp }, body: { sensitivity: 'high' } })),
    listWafGroups: () => unwrap(api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups', { params: { path: owasp } })),
    getWafGroup: () => unwrap(api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups/{group_id}', { params: { path: group } })),
    updateWafGroup: () =>
      unwrap(api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}/groups/{group_id}', { params: { path: group }, body: { mode: 'off' } })),
    listWafRules: () => unwrap(api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules', { params: { path: managed } })),
    getWafRule: () => unwrap(api.GET('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules/{waf_rule_id}', { params: { path: rule } })),
    updateWafRule: () =>
      unwrap(api.PATCH('/zones/{zone_id}/firewall/waf/packages/{package_id}/rules/{waf_rule_id}', { params: { path: rule }, body: { mode: 'disable' } })),
    listWafOverrides: () => unwrap(api.GET('/zones/{zone_id}/firewall/waf/overrides', { params: { path: { zone_id: shop } } })),
    createWafOverride: () => unwrap(api.POST('/zones/{zone_id}/firewall/waf/overrides', { params: { path: { zone_id: shop } }, body })),
    getWafOverride: () => unwrap(api.GET('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: override } })),
    updateWafOverride: () => unwrap(api.PUT('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: override }, body })),
    deleteWafOverride: () => unwrap(api.DELETE('/zones/{zone_id}/firewall/waf/overrides/{override_id}', { params: { path: override } })),
  };
}

describe('the mock serves the documented examples', () => {
  const operations = operationsOf(doc);

  it('has a call for every operation of the document', () => {
    expect(Object.keys(calls).sort()).toEqual(operations.map((o) => o.operationId).sort());
    expect(operations).toHaveLength(130);
  });

  for (const op of operations) {
    if ('204' in (op.operation as { responses: object }).responses) {
      it(`${op.operationId} answers 204 with no body`, async () => {
        expect(await calls[op.operationId]!()).toBe(204);
      });
      continue;
    }
    it(`${op.operationId} answers its first 200 example`, async () => {
      const expected = firstExample(doc, op.operation, '200') as { result: unknown } | string;
      expect(await calls[op.operationId]!()).toEqual(typeof expected === 'string' ? expected : expected.result);
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

  it('names the allowed actions of a rule whose action is unknown, as the server does', async () => {
    const { response, error } = await api.PUT('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', {
      params: { path: { zone_id: zone, phase: 'http_request_firewall_custom' } },
      body: { rules: [{ action: 'explode', expression: 'true' }] } as never,
    });
    expect(refusal(response, error)).toEqual([UNKNOWN_ACTION]);
  });

  it('rejects a failed call through unwrap as an ApiError', async () => {
    const failure = await unwrap(api.GET('/zones/{zone_id}', { params: { path: { zone_id: 'x' } } })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(400);
    expect((failure as ApiError).codes).toEqual([10021, 10021]);
  });
});
