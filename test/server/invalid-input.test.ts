// Every operation of the bundled document, sent every kind of invalid input the document lets us
// derive: bad credentials, bad path ids, bad and unknown query parameters, bodies with missing,
// unknown, mistyped or out-of-range fields, bodies that are not JSON or too large, wrong methods
// and unknown routes. The operations are read from the document, and the valid request each probe
// starts from is a record keyed by operationId: an operation added to the document without a valid
// request here fails `tsc` and the sweep. Every answer must be the error envelope with the status
// and codes of the document's root description, never a 500, HTML or a stack trace.
import { readFileSync } from 'node:fs';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { operations } from '../../generated/api';
import { unwrap } from '../../src/client';
import type { WorkerVersionInput } from '../../src/store';
import { LiveTails } from '../../src/tail';
import { apiKey, bearer, ids, startServer, token, userEmail, type TestServer } from './harness';

type OperationId = keyof operations;
type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

// ---------------------------------------------------------------------------------------------
// The document, as the server reads it

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minProperties?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  discriminator?: { propertyName: string };
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  id: OperationId;
  method: Method;
  template: string;
  parameters: Parameter[];
  body: Schema | undefined;
}

const document = parse(readFileSync(new URL('../../generated/openapi.yaml', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};
const methods: Method[] = ['get', 'put', 'post', 'patch', 'delete'];

/** Follows local `$ref`s and folds a single-entry `allOf` (the document's way to describe a ref). */
function resolve<T extends object>(node: T): T {
  let current = node as T & Schema;
  while (current.$ref) {
    const target = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    current = target as T & Schema;
  }
  if (current.allOf?.length === 1) {
    const { allOf, ...rest } = current;
    current = { ...resolve(allOf[0]!), ...rest } as T & Schema;
  }
  return current;
}

/**
 * Left out of this sweep by name: an assets upload is authorized by its upload session's token,
 * not by the API's credentials the sweep's probes vary; its refusals (tokens, forms, hashes)
 * are tested in test/server/worker-assets.test.ts.
 */
const notSwept = new Set<OperationId>(['uploadWorkerAssets']);

/** The body an operation reads, at most, in MiB. */
const bodyLimitMiB = (operation: { id: OperationId }) => (operation.id === 'createWorkerAssetsUploadSession' ? 16 : 1);

const operationsOfDocument: Operation[] = Object.entries(document.paths).flatMap(([template, item]) =>
  methods
    .filter((method) => item[method])
    .map((method) => {
      const operation = item[method] as { operationId: OperationId; parameters?: Parameter[]; requestBody?: unknown };
      const parameters = [...((item.parameters as Parameter[]) ?? []), ...(operation.parameters ?? [])].map((p) => {
        const parameter = resolve(p);
        return { ...parameter, schema: resolve(parameter.schema) };
      });
      const requestBody = operation.requestBody
        ? resolve(operation.requestBody as { content: Record<string, { schema: Schema }> })
        : undefined;
      const bodySchema = requestBody?.content['application/json']?.schema;
      return { id: operation.operationId, method, template, parameters, body: bodySchema && resolve(bodySchema) };
    }),
).filter((operation) => !notSwept.has(operation.id));

// ---------------------------------------------------------------------------------------------
// A valid request for every operation: each probe breaks exactly one thing in it

type Present<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;
type JsonBody<O extends OperationId> = operations[O] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[O] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : never;

interface ValidRequest<O extends OperationId> {
  params: Present<operations[O]['parameters']['path']>;
  query?: Present<operations[O]['parameters']['query']>;
  body?: JsonBody<O>;
}

type ValidRequests = { [O in OperationId]: ValidRequest<O> };

/** Ids of the Pro zone's rulesets and rules, read from the server rather than copied from the seed. */
interface ProZoneIds {
  managedEntryPoint: string;
  owaspExecuteRule: string;
  customFields: string;
  /** A zone ruleset the sweep deletes at the end. */
  scratchRuleset: string;
  /** A zone ruleset at version 2 whose rules and versions the sweep adds and deletes. */
  editedRuleset: string;
  editedRule: string;
  /** Account rulesets of their own: one to delete, one at version 2 whose version 1 is deleted. */
  accountScratch: string;
  accountVersioned: string;
  accountRule: string;
  /** An account log push job the sweep reads, updates and deletes. */
  accountJob: number;
  /** Of SWEEP_SCRIPT: its first version and deployment, and a route of the Pro zone running it. */
  workerVersion: string;
  workerDeployment: string;
  workerRoute: string;
  /** A live tail of SWEEP_SCRIPT. */
  workerTail: string;
}

function validRequests(pro: ProZoneIds): ValidRequests {
  const zone_id = ids.proZone;
  const customFieldsRule = {
    action: 'log_custom_field' as const,
    expression: 'true',
    action_parameters: { request_fields: [{ name: 'x-request-id' }], cookie_fields: [{ name: 'sessionId' }] },
  };
  return {
    listZones: { params: {}, query: { name: 'contains:example', status: 'active', 'account.id': ids.account, match: 'all', page: 1, per_page: 5, order: 'account.name', direction: 'desc' } },
    getZone: { params: { zone_id } },
    listCertificatePacks: {
      params: { zone_id: ids.enterpriseZone },
      query: { ssl_status: 'all', page: 1, per_page: 5, order: 'created_on', direction: 'ASC' },
    },
    updateUserInvitation: { params: { invite_id: ids.invitation }, body: { status: 'accepted' } },
    listAccountRulesets: { params: { account_id: ids.account }, query: { page: 1, per_page: 20, order: 'name', direction: 'DESC' } },
    getAccountRuleset: { params: { account_id: ids.account, ruleset_id: ids.owasp } },
    listZoneRulesets: { params: { zone_id }, query: { page: 1, per_page: 20, order: 'phase', direction: 'ASC' } },
    createZoneRuleset: {
      params: { zone_id },
      body: { name: 'Custom rules', description: 'Blocks a path', kind: 'custom', phase: 'http_request_firewall_custom' },
    },
    updateZoneRuleset: { params: { zone_id, ruleset_id: pro.customFields }, body: { rules: [customFieldsRule] } },
    getZoneEntrypointRuleset: { params: { zone_id, phase: 'http_request_firewall_managed' } },
    updateZoneEntrypointRuleset: {
      params: { zone_id, phase: 'http_request_firewall_custom' },
      body: {
        name: 'Custom firewall rules',
        rules: [{ action: 'block', expression: 'http.request.uri.path eq "/admin"', description: 'No admin' }],
      },
    },
    updateZoneRulesetRule: {
      params: { zone_id, ruleset_id: pro.managedEntryPoint, rule_id: pro.owaspExecuteRule },
      body: { enabled: true },
    },
    createLogpushJob: {
      params: { zone_id },
      body: {
        name: 'example.org',
        destination_conf: 's3://logs/http_requests/{DATE}?region=us-east-1',
        dataset: 'http_requests',
        logpull_options: 'fields=ClientIP,RequestHeaders,Cookies&timestamps=rfc3339',
      },
    },
    getZoneRuleset: { params: { zone_id, ruleset_id: pro.scratchRuleset } },
    deleteZoneRuleset: { params: { zone_id, ruleset_id: pro.scratchRuleset } },
    deleteAccountRuleset: { params: { account_id: ids.account, ruleset_id: pro.accountScratch } },
    createAccountRuleset: {
      params: { account_id: ids.account },
      body: { name: 'Shared blocks', kind: 'custom', phase: 'http_request_firewall_custom', rules: [{ action: 'block', expression: 'ip.src in {198.51.100.0/24}' }] },
    },
    updateAccountRuleset: {
      params: { account_id: ids.account, ruleset_id: pro.accountVersioned },
      body: { rules: [{ id: pro.accountRule, action: 'block', expression: 'ip.src in {198.51.100.0/24}' }] },
    },
    createAccountRulesetRule: {
      params: { account_id: ids.account, ruleset_id: pro.accountVersioned },
      body: { action: 'log', expression: 'http.request.uri.path eq "/audit"', position: { after: '' } },
    },
    updateAccountRulesetRule: { params: { account_id: ids.account, ruleset_id: pro.accountVersioned, rule_id: pro.accountRule }, body: { enabled: false } },
    getAccountEntrypointRuleset: { params: { account_id: ids.account, phase: 'http_request_firewall_custom' } },
    updateAccountEntrypointRuleset: {
      params: { account_id: ids.account, phase: 'http_request_firewall_custom' },
      body: { rules: [{ action: 'block', expression: 'ip.src in {198.51.100.0/24}' }] },
    },
    listAccountEntrypointRulesetVersions: { params: { account_id: ids.account, phase: 'http_request_firewall_custom' } },
    getAccountEntrypointRulesetVersion: { params: { account_id: ids.account, phase: 'http_request_firewall_custom', ruleset_version: '1' } },
    deleteAccountRulesetRule: { params: { account_id: ids.account, ruleset_id: pro.accountVersioned, rule_id: pro.accountRule } },
    createZoneRulesetRule: {
      params: { zone_id, ruleset_id: pro.editedRuleset },
      body: { action: 'block', expression: 'http.request.uri.path eq "/private"', description: 'No private', position: { index: 1 } },
    },
    deleteZoneRulesetRule: { params: { zone_id, ruleset_id: pro.editedRuleset, rule_id: pro.editedRule } },
    listZoneRulesetVersions: { params: { zone_id, ruleset_id: pro.editedRuleset } },
    getZoneRulesetVersion: { params: { zone_id, ruleset_id: pro.editedRuleset, ruleset_version: '1' } },
    deleteZoneRulesetVersion: { params: { zone_id, ruleset_id: pro.editedRuleset, ruleset_version: '1' } },
    listZoneEntrypointRulesetVersions: { params: { zone_id, phase: 'http_request_firewall_managed' } },
    getZoneEntrypointRulesetVersion: { params: { zone_id, phase: 'http_request_firewall_managed', ruleset_version: '1' } },
    listAccountRulesetVersions: { params: { account_id: ids.account, ruleset_id: ids.owasp } },
    getAccountRulesetVersion: { params: { account_id: ids.account, ruleset_id: ids.owasp, ruleset_version: '2' } },
    deleteAccountRulesetVersion: { params: { account_id: ids.account, ruleset_id: pro.accountVersioned, ruleset_version: '1' } },
    listLogpushJobs: { params: { zone_id } },
    getLogpushJob: { params: { zone_id, job_id: 1 } },
    updateLogpushJob: { params: { zone_id, job_id: 1 }, body: { enabled: true, logpull_options: 'fields=ClientIP,RequestHeaders&timestamps=rfc3339' } },
    deleteLogpushJob: { params: { zone_id, job_id: 1 } },
    listAccountLogpushJobs: { params: { account_id: ids.account } },
    createAccountLogpushJob: {
      params: { account_id: ids.account },
      body: { name: 'gateway-dns', destination_conf: 's3://logs/gateway_dns/{DATE}?region=us-east-1', dataset: 'gateway_dns', logpull_options: 'fields=Datetime,QueryName&timestamps=rfc3339' },
    },
    getAccountLogpushJob: { params: { account_id: ids.account, job_id: pro.accountJob } },
    updateAccountLogpushJob: { params: { account_id: ids.account, job_id: pro.accountJob }, body: { enabled: true, logpull_options: 'fields=Datetime,QueryName,SrcIP' } },
    deleteAccountLogpushJob: { params: { account_id: ids.account, job_id: pro.accountJob } },
    validateFilterExpressionByQuery: { params: {}, query: { expression: 'ip.src in {192.0.2.0/24}' } },
    validateFilterExpression: { params: {}, body: { expression: 'http.request.uri.path contains "/admin"' } },
    getWafMigrationCheck: { params: { zone_id: ids.enterpriseZone }, query: { phase_two: '1' } },
    getWafMigrationConfig: { params: { zone_id: ids.enterpriseZone }, query: { phase_two: '1' } },
    getWafMigrationStatus: { params: { zone_id: ids.enterpriseZone } },
    ...previousWafRequests(),
    ...bucketRequests(),
    ...workerRequests(pro),
    simulateZoneRequest: {
      params: { zone_id },
      body: { method: 'GET', url: 'https://example.org/search?q=shoes', headers: { Accept: 'text/html' }, client_ip: '203.0.113.7' },
    },
  };
}

/** The previous WAF's operations, on zones that still run it (the Pro zone has migrated). */
function previousWafRequests(): Pick<
  ValidRequests,
  Extract<OperationId, `${string}Waf${'Package' | 'Packages' | 'Group' | 'Groups' | 'Rule' | 'Rules' | 'Override' | 'Overrides'}`>
> {
  const zone_id = ids.enterpriseZone;
  const owasp = { zone_id, package_id: ids.enterpriseOwaspPackage };
  const managed = { zone_id, package_id: ids.enterpriseManagedPackage };
  const override = { zone_id: ids.uriOverrideZone, override_id: ids.checkoutOverride };
  const overrideBody = { urls: ['example-shop.com/checkout/*'], rules: { '100015': 'disable' as const }, priority: 3, description: 'Checkout' };
  return {
    listWafPackages: { params: { zone_id }, query: { name: 'OWASP', match: 'all', order: 'name', direction: 'asc', page: 1, per_page: 5 } },
    getWafPackage: { params: owasp },
    updateWafPackage: { params: owasp, body: { sensitivity: 'high', action_mode: 'challenge' } },
    listWafGroups: { params: owasp, query: { name: 'OWASP', mode: 'on', match: 'all', order: 'name', direction: 'desc', page: 1, per_page: 5 } },
    getWafGroup: { params: { ...owasp, group_id: ids.owaspXssGroup } },
    updateWafGroup: { params: { ...owasp, group_id: ids.owaspXssGroup }, body: { mode: 'off' } },
    listWafRules: {
      params: managed,
      query: { description: 'Drupal', mode: 'default', group_id: ids.drupalGroup, priority: '15', match: 'any', order: 'priority', direction: 'asc', page: 1, per_page: 5 },
    },
    getWafRule: { params: { ...managed, waf_rule_id: '100015' } },
    updateWafRule: { params: { ...managed, waf_rule_id: '100015' }, body: { mode: 'disable' } },
    listWafOverrides: { params: { zone_id: ids.uriOverrideZone }, query: { page: 1, per_page: 5 } },
    getWafOverride: { params: override },
    createWafOverride: { params: { zone_id: ids.uriOverrideZone }, body: overrideBody },
    updateWafOverride: { params: override, body: { ...overrideBody, id: ids.checkoutOverride } },
    deleteWafOverride: { params: override },
  };
}

/** The bucket family: SWEEP_BUCKET (made in beforeAll, with CORS rules and an object) is read and changed; SWEEP_CREATED is made then deleted. */
const SWEEP_BUCKET = 'sweep-bucket';
const SWEEP_CREATED = 'sweep-created';
const SWEEP_KEY = 'docs/readme.txt';
const SWEEP_S3_KEYS = new Map([['SWEEPKEY', 'sweep-secret-0123456789']]);

function bucketRequests() {
  const account_id = ids.account;
  const bucket = { account_id, bucket_name: SWEEP_BUCKET };
  const object = { ...bucket, object_key: encodeURIComponent(SWEEP_KEY) };
  const cors = { rules: [{ allowed: { origins: ['https://app.example.com'], methods: ['GET' as const] }, maxAgeSeconds: 60 }] };
  const lifecycle = { rules: [{ id: 'abort', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age' as const, maxAge: 86400 } } }] };
  return {
    verifyUserToken: { params: {} },
    getUser: { params: {} },
    listMemberships: { params: {}, query: { status: 'accepted', page: 1, per_page: 20, direction: 'asc' } },
    listAccounts: { params: {}, query: { name: 'Example', page: 1, per_page: 20, direction: 'asc' } },
    getAccount: { params: { account_id } },
    listBuckets: { params: { account_id }, query: { name_contains: 'sweep', start_after: 'a', per_page: 20, order: 'name', direction: 'asc' } },
    createBucket: { params: { account_id }, body: { name: SWEEP_CREATED, locationHint: 'weur' as const } },
    getBucket: { params: bucket },
    updateBucket: { params: bucket },
    deleteBucket: { params: { account_id, bucket_name: SWEEP_CREATED } },
    getBucketCors: { params: bucket },
    updateBucketCors: { params: bucket, body: cors },
    deleteBucketCors: { params: bucket },
    getBucketLifecycle: { params: bucket },
    updateBucketLifecycle: { params: bucket, body: lifecycle },
    listBucketObjects: { params: bucket, query: { prefix: 'docs/', delimiter: '/', start_after: 'a', per_page: 100 } },
    getBucketObject: { params: object },
    uploadBucketObject: { params: object },
    deleteBucketObject: { params: object },
    createTemporaryCredentials: {
      params: { account_id },
      body: { bucket: SWEEP_BUCKET, parentAccessKeyId: 'SWEEPKEY', permission: 'object-read-only' as const, ttlSeconds: 3600, prefixes: ['docs/'] },
    },
  } satisfies Partial<ValidRequests>;
}

/**
 * The Workers family: SWEEP_SCRIPT (uploaded in beforeAll with a secret, a route and the
 * account's subdomain) is read and changed; SWEEP_DOOMED and SWEEP_SERVICE are deleted.
 */
const SWEEP_SCRIPT = 'sweep-worker';
const SWEEP_DOOMED = 'sweep-doomed';
const SWEEP_SERVICE = 'sweep-service';
/** Secrets change the latest version, deployed: a script the sweep's deployments leave alone. */
const SWEEP_SECRETS = 'sweep-secrets';
const SWEEP_MODULE = "export default { fetch() { return new Response('sweep'); } };";

function workerRequests(pro: ProZoneIds) {
  const account_id = ids.account;
  const script = { account_id, script_name: SWEEP_SCRIPT };
  const secrets = { account_id, script_name: SWEEP_SECRETS };
  return {
    listWorkerScripts: { params: { account_id } },
    // Not swept (notSwept): here for the type only.
    uploadWorkerAssets: { params: { account_id }, query: { base64: true } },
    createWorkerAssetsUploadSession: { params: script, body: { manifest: { '/index.html': { hash: '0123456789abcdef0123456789abcdef', size: 5 } } } },
    uploadWorkerScript: { params: script, query: { bindings_inherit: 'strict' as const, excludeScript: true } },
    getWorkerScriptContent: { params: script },
    deleteWorkerScript: { params: { account_id, script_name: SWEEP_DOOMED }, query: { force: true } },
    getWorkerScriptSettings: { params: script },
    getWorkerScriptLevelSettings: { params: script },
    updateWorkerScriptLevelSettings: { params: script, body: { observability: { enabled: false }, tags: [] } },
    getWorkerScriptSubdomain: { params: script },
    updateWorkerScriptSubdomain: { params: script, body: { enabled: true, previews_enabled: false } },
    deleteWorkerScriptSubdomain: { params: script },
    listWorkerScriptRoutes: { params: script, query: { show_zonename: true } },
    updateWorkerScriptRoutes: { params: script, body: [{ pattern: 'sweep.example.org/*' }] },
    listWorkerVersions: { params: script, query: { deployable: true, page: 1, per_page: 10 } },
    uploadWorkerVersion: { params: script, query: { bindings_inherit: 'strict' as const } },
    getWorkerVersion: { params: { ...script, version_id: pro.workerVersion } },
    listWorkerDeployments: { params: script },
    createWorkerDeployment: { params: script, query: { force: true }, body: { strategy: 'percentage' as const, versions: [{ version_id: pro.workerVersion, percentage: 100 }], annotations: { 'workers/message': 'sweep' } } },
    getWorkerDeployment: { params: { ...script, deployment_id: pro.workerDeployment } },
    listWorkerSecrets: { params: secrets },
    updateWorkerSecret: { params: secrets, body: { name: 'SWEEP_SECRET', text: 'sweep-value', type: 'secret_text' as const } },
    getWorkerSecret: { params: { ...secrets, secret_name: 'SWEEP_SECRET' }, query: { url_encoded: true } },
    deleteWorkerSecret: { params: { ...secrets, secret_name: 'SWEEP_SECRET' }, query: { url_encoded: true } },
    updateWorkerSecrets: { params: secrets, body: { secrets: { BULK_SECRET: { name: 'BULK_SECRET', text: 'bulk', type: 'secret_text' as const } } } },
    getWorkerSchedules: { params: script },
    updateWorkerSchedules: { params: script, body: [{ cron: '*/5 * * * *' }] },
    getWorkerReferences: { params: script },
    listWorkerTailProducers: { params: script },
    createWorkerTail: { params: script, body: { filters: [{ outcome: ['ok'] }, { method: ['GET'] }] } },
    listWorkerTails: { params: script },
    deleteWorkerTail: { params: { ...script, tail_id: pro.workerTail } },
    getWorkerService: { params: { account_id, service_name: SWEEP_SCRIPT } },
    deleteWorkerService: { params: { account_id, service_name: SWEEP_SERVICE }, query: { force: false } },
    getWorker: { params: script },
    getWorkersSubdomain: { params: { account_id } },
    updateWorkersSubdomain: { params: { account_id }, body: { subdomain: 'sweep-corp' } },
    getWorkersSubdomainAvailability: { params: { account_id, subdomain: 'sweep-corp' } },
    deleteWorkersSubdomain: { params: { account_id } },
    listDurableObjectNamespaces: { params: { account_id }, query: { page: 1, per_page: 1000 } },
    listKvNamespaces: { params: { account_id }, query: { page: 1, per_page: 100, order: 'title' as const, direction: 'asc' as const } },
    listWorkerRoutes: { params: { zone_id: ids.proZone } },
    createWorkerRoute: { params: { zone_id: ids.proZone }, body: { pattern: 'sweep-new.example.org/*', script: SWEEP_SCRIPT } },
    getWorkerRoute: { params: { zone_id: ids.proZone, route_id: pro.workerRoute } },
    updateWorkerRoute: { params: { zone_id: ids.proZone, route_id: pro.workerRoute }, body: { pattern: 'sweep-moved.example.org/*', script: SWEEP_SCRIPT } },
    deleteWorkerRoute: { params: { zone_id: ids.proZone, route_id: pro.workerRoute } },
  } satisfies Partial<ValidRequests>;
}

/** The body with a field its schema does not have (in its first item, for a list). */
function withUnknownField(body: unknown): unknown {
  return Array.isArray(body) ? [{ ...(body[0] as object), unknown_field: true }, ...body.slice(1)] : { ...(body as object), unknown_field: true };
}
const unknownFieldPath = (body: unknown) => (Array.isArray(body) ? 'body/0/unknown_field' : 'body/unknown_field');

/** A worker upload's form (the operations that take one are sent it instead of JSON). */
function workerForm(): { raw: string; contentType: string } {
  const boundary = 'sweep-boundary';
  const metadata = JSON.stringify({ main_module: 'index.js', compatibility_date: '2026-11-01', bindings: [{ type: 'plain_text', name: 'GREETING', text: 'hi' }] });
  const raw = [
    `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n${metadata}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="index.js"; filename="index.js"\r\nContent-Type: application/javascript+module\r\n\r\nexport default { fetch() { return new Response('hi'); } };\r\n`,
    `--${boundary}--\r\n`,
  ].join('');
  return { raw, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Operations that take a worker upload's multipart form. */
const takesForm = (operation: Operation) =>
  Boolean((document.paths[operation.template]![operation.method] as { requestBody?: { content?: object } }).requestBody?.content?.hasOwnProperty('multipart/form-data'));

/** Headers some operations need beside their parameters (the PATCH's storage class). */
const requiredHeaders: Partial<Record<OperationId, Record<string, string>>> = {
  updateBucket: { 'cf-r2-storage-class': 'Standard' },
};

/** Operations whose success is not the JSON envelope (an object's bytes, a worker's main module). */
const rawAnswer = (operation: Operation) => operation.id === 'getBucketObject' || operation.id === 'getWorkerScriptContent';
/** What a raw answer holds. */
const rawBody = (operation: Operation) => (operation.id === 'getWorkerScriptContent' ? SWEEP_MODULE : 'hello');

/** Operations that also read JSON sent as text/plain (wrangler's bucket creation). */
const takesPlainTextJson = (operation: Operation) =>
  Boolean((document.paths[operation.template]![operation.method] as { requestBody?: { content?: object } }).requestBody?.content?.hasOwnProperty('text/plain'));

// ---------------------------------------------------------------------------------------------
// Sending a request built from parts

interface Parts {
  params: Record<string, string>;
  query: Record<string, string>;
  /** A JSON value to send; `undefined` sends no body. */
  body?: unknown;
  /** Raw bytes or text instead of `body`. */
  raw?: string | Uint8Array;
  /** Content type of the body; `null` sends none. */
  contentType?: string | null;
  credentials?: Record<string, string>;
  headers?: Record<string, string>;
}

function partsOf(operation: Operation, valid: ValidRequest<OperationId>): Parts {
  const query = Object.fromEntries(Object.entries(valid.query ?? {}).map(([k, v]) => [k, String(v)]));
  const headers = requiredHeaders[operation.id];
  // A worker upload carries its valid form: each probe breaks something else.
  const form = takesForm(operation) ? workerForm() : {};
  return { params: { ...(valid.params as Record<string, string>) }, query, ...(operation.body ? { body: valid.body } : {}), ...form, ...(headers ? { headers } : {}) };
}

function urlOf(template: string, parts: Parts): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => parts.params[name] ?? `{${name}}`);
  const query = new URLSearchParams(parts.query).toString();
  return query ? `${path}?${query}` : path;
}

function send(server: TestServer, method: string, template: string, parts: Parts): Promise<Response> {
  const headers: Record<string, string> = { ...(parts.credentials ?? bearer()), ...requiredHeaders[operationIdOf(method, template)!], ...parts.headers };
  let body: string | Uint8Array | undefined = parts.raw;
  if (body === undefined && parts.body !== undefined) body = JSON.stringify(parts.body);
  const contentType = parts.contentType === undefined ? 'application/json' : parts.contentType;
  if (body !== undefined && contentType !== null) headers['Content-Type'] = contentType;
  return server.fetch(urlOf(template, parts), { method: method.toUpperCase(), headers, ...(body !== undefined ? { body } : {}) });
}

// ---------------------------------------------------------------------------------------------
// What every refusal must look like

interface Expected {
  status: number;
  codes: number[];
  /** Text one of the error messages must contain: the offending field, header or path. */
  mentions?: string;
}

interface Envelope {
  success: boolean;
  result: unknown;
  errors: { code?: number; message: string }[];
  messages: unknown;
}

async function envelopeOf(response: Response): Promise<Envelope> {
  expect(response.headers.get('content-type') ?? '', `content type of a ${response.status} answer`).toMatch(/^application\/json\b/);
  const text = await response.text();
  expect(text).not.toMatch(/<html|<!doctype|<body/i);
  // A stack trace or a source path in an answer means an error escaped unhandled.
  expect(text).not.toMatch(/\bat \S+ \(|\.ts:\d+|node_modules|Error: /);
  return JSON.parse(text) as Envelope;
}

async function expectRefusal(response: Response, expected: Expected): Promise<Envelope> {
  const envelope = await envelopeOf(response);
  expect({ status: response.status, codes: envelope.errors.map((e) => e.code) }).toEqual({
    status: expected.status,
    codes: expected.codes,
  });
  expect(envelope).toMatchObject({ success: false, result: null, messages: [] });
  for (const error of envelope.errors) {
    expect(Object.keys(error).sort()).toEqual(['code', 'message']);
    expect(Number.isInteger(error.code) && error.code! >= 1000).toBe(true);
    expect(error.message.length).toBeGreaterThan(0);
  }
  if (expected.mentions !== undefined) {
    expect(envelope.errors.map((e) => e.message).join('\n')).toContain(expected.mentions);
  }
  return envelope;
}

const Codes = {
  missingCredentials: 9106,
  invalidHeaders: 6003,
  authentication: 10000,
  invalidRequest: 10021,
  malformedJson: 6007,
  payloadTooLarge: 6009,
  unsupportedMediaType: 6006,
  couldNotRoute: 7003,
  noRoute: 7000,
  methodNotAllowed: 7001,
} as const;

const notFoundCodes = [Codes.couldNotRoute, Codes.noRoute];

// ---------------------------------------------------------------------------------------------
// Probes derived from the document

interface Probe {
  name: string;
  change: (parts: Parts) => Parts;
  expected: (parts: Parts, operation: Operation) => Expected;
}

function invalid(mentions: string): Expected {
  return { status: 400, codes: [Codes.invalidRequest], mentions };
}

const credentialProbes: Probe[] = [
  {
    name: 'no credentials',
    change: (p) => ({ ...p, credentials: {} }),
    expected: () => ({ status: 400, codes: [Codes.missingCredentials], mentions: 'Authorization' }),
  },
  {
    name: 'Authorization that is not a bearer token',
    change: (p) => ({ ...p, credentials: { Authorization: 'Basic dXNlcjpwYXNz' } }),
    expected: () => ({ status: 400, codes: [Codes.invalidHeaders], mentions: 'Authorization' }),
  },
  {
    name: 'bearer without a token',
    change: (p) => ({ ...p, credentials: { Authorization: 'Bearer' } }),
    expected: () => ({ status: 400, codes: [Codes.invalidHeaders], mentions: 'Authorization' }),
  },
  {
    name: 'bearer token with a space inside',
    change: (p) => ({ ...p, credentials: { Authorization: `Bearer ${token} extra` } }),
    expected: () => ({ status: 400, codes: [Codes.invalidHeaders], mentions: 'Authorization' }),
  },
  {
    name: 'X-Auth-Email without X-Auth-Key',
    change: (p) => ({ ...p, credentials: { 'X-Auth-Email': userEmail } }),
    expected: () => ({ status: 400, codes: [Codes.invalidHeaders], mentions: 'X-Auth-Key' }),
  },
  {
    name: 'X-Auth-Key without X-Auth-Email',
    change: (p) => ({ ...p, credentials: { 'X-Auth-Key': apiKey } }),
    expected: () => ({ status: 400, codes: [Codes.invalidHeaders], mentions: 'X-Auth-Email' }),
  },
  {
    name: 'X-Auth-Email that is not an email',
    change: (p) => ({ ...p, credentials: { 'X-Auth-Email': 'not-an-email', 'X-Auth-Key': apiKey } }),
    expected: () => ({ status: 400, codes: [Codes.invalidHeaders], mentions: 'X-Auth-Email' }),
  },
  {
    name: 'unknown token',
    change: (p) => ({ ...p, credentials: bearer('0123456789abcdefghijklmnopqrstuvwxyzABCD') }),
    expected: () => ({ status: 403, codes: [Codes.authentication], mentions: 'Authentication error' }),
  },
  {
    name: 'wrong key for the email',
    change: (p) => ({ ...p, credentials: { 'X-Auth-Email': userEmail, 'X-Auth-Key': 'not-the-key' } }),
    expected: () => ({ status: 403, codes: [Codes.authentication], mentions: 'Authentication error' }),
  },
  {
    name: 'right key, other email',
    change: (p) => ({ ...p, credentials: { 'X-Auth-Email': 'someone.else@example.com', 'X-Auth-Key': apiKey } }),
    expected: () => ({ status: 403, codes: [Codes.authentication], mentions: 'Authentication error' }),
  },
];

const identifierPattern = '^[0-9a-f]{32}$';
const versionPattern = '^[1-9][0-9]*$';
const unknownId = 'ffffffffffffffffffffffffffffffff';
/** Previous-WAF rule ids are rule numbers, not 32-hex ids. */
const wafRuleIdPattern = '^[0-9A-Za-z_-]{1,32}$';

function pathParameterProbes(operation: Operation): Probe[] {
  return operation.parameters
    .filter((p) => p.in === 'path')
    .flatMap((parameter): Probe[] => {
      const set = (value: string) => (p: Parts) => ({ ...p, params: { ...p.params, [parameter.name]: value } });
      const refused = () => invalid(`params/${parameter.name}`);
      if (parameter.schema.pattern === identifierPattern) {
        return [
          { name: `${parameter.name} in upper case`, change: (p) => set(p.params[parameter.name]!.toUpperCase())(p), expected: refused },
          { name: `${parameter.name} of 31 characters`, change: set('f'.repeat(31)), expected: refused },
          { name: `${parameter.name} of 33 characters`, change: set('f'.repeat(33)), expected: refused },
          { name: `${parameter.name} of 32 non-hex characters`, change: set('z'.repeat(32)), expected: refused },
          { name: `${parameter.name} that is a name, not an id`, change: set('example.com'), expected: refused },
          {
            name: `${parameter.name} well-formed but unknown`,
            change: set(unknownId),
            expected: (parts) => ({ status: 404, codes: notFoundCodes, mentions: urlOf(operation.template, parts).split('?')[0] }),
          },
        ];
      }
      if (parameter.schema.pattern === wafRuleIdPattern) {
        return [
          { name: `${parameter.name} of 33 characters`, change: set('1'.repeat(33)), expected: refused },
          { name: `${parameter.name} with a character outside its pattern`, change: set('100015.5'), expected: refused },
          {
            name: `${parameter.name} well-formed but unknown`,
            change: set('999999'),
            expected: (parts) => ({ status: 404, codes: notFoundCodes, mentions: urlOf(operation.template, parts).split('?')[0] }),
          },
        ];
      }
      if (parameter.schema.type === 'integer' || parameter.schema.pattern === versionPattern) {
        // Integer job ids and numeric version strings: the same probes, the same answers.
        return [
          { name: `${parameter.name} that is not a number`, change: set('abc'), expected: refused },
          { name: `${parameter.name} of zero`, change: set('0'), expected: refused },
          { name: `${parameter.name} with a fraction`, change: set('1.5'), expected: refused },
          {
            name: `${parameter.name} well-formed but unknown`,
            change: set('987654'),
            expected: (parts) => ({ status: 404, codes: notFoundCodes, mentions: urlOf(operation.template, parts).split('?')[0] }),
          },
        ];
      }
      if (parameter.schema.enum) {
        const first = String(parameter.schema.enum[0]);
        return [
          { name: `${parameter.name} not among its values`, change: set('not_a_known_value'), expected: refused },
          { name: `${parameter.name} in the wrong case`, change: set(first.toUpperCase()), expected: refused },
        ];
      }
      if (parameter.name === 'bucket_name') {
        // The platform's naming rule is the service's (code 10005), as the real service answers.
        return [
          { name: 'bucket_name breaking the naming rule', change: set('Bad_Name'), expected: () => ({ status: 400, codes: [10005], mentions: 'Bad_Name' }) },
          { name: 'bucket_name of 256 characters', change: set('a'.repeat(256)), expected: refused },
          { name: 'bucket_name well-formed but unknown', change: set('no-such-bucket'), expected: () => ({ status: 404, codes: [10006], mentions: 'no-such-bucket' }) },
        ];
      }
      if (parameter.name === 'object_key') {
        return [{ name: 'object_key over 1024 bytes', change: set('k'.repeat(1025)), expected: () => ({ status: 400, codes: [10020], mentions: '1024' }) }];
      }
      if (['script_name', 'service_name', 'version_id', 'deployment_id', 'secret_name'].includes(parameter.name)) {
        // Names and UUIDs the Workers family checks itself: an unknown one is its 10007.
        const tooLong = 'a'.repeat((parameter.schema.maxLength ?? 255) + 1);
        const unknown = parameter.name === 'version_id' || parameter.name === 'deployment_id' ? '00000000-0000-4000-8000-000000000000' : 'no-such-name';
        return [
          { name: `${parameter.name} longer than its schema allows`, change: set(tooLong), expected: refused },
          // An upload to a name not taken creates the script: not a refusal.
          // So does an assets upload session (a first deploy's first call).
          ...(operation.id === 'uploadWorkerScript' || operation.id === 'createWorkerAssetsUploadSession'
            ? []
            : [{ name: `${parameter.name} well-formed but unknown`, change: set(unknown), expected: () => ({ status: 404, codes: [10007], mentions: unknown }) }]),
        ];
      }
      if (parameter.name === 'tail_id') {
        // Tails live in the platform process: an id of none is unknown, 10007.
        return [
          { name: 'tail_id longer than its schema allows', change: set('a'.repeat(65)), expected: refused },
          { name: 'tail_id well-formed but unknown', change: set('0123456789abcdef0123456789abcdef'), expected: () => ({ status: 404, codes: [10007], mentions: '0123456789abcdef0123456789abcdef' }) },
        ];
      }
      if (parameter.name === 'subdomain') {
        // wrangler's look-up before it claims a subdomain: one nobody holds is the platform's 10032.
        return [
          { name: 'subdomain longer than its schema allows', change: set('a'.repeat(64)), expected: refused },
          { name: 'subdomain nobody holds', change: set('nobody-holds-this'), expected: () => ({ status: 404, codes: [10032], mentions: 'subdomain_unavailable' }) },
        ];
      }
      throw new Error(`no probes for path parameter ${parameter.name} of ${operation.id}: teach the sweep its schema`);
    });
}

/** Values a query parameter's schema refuses, each with what it shows. */
function refusedQueryValues(schema: Schema): { what: string; value: string }[] {
  const type = typesOf(schema)[0];
  if (schema.enum) return [{ what: 'not among its values', value: 'not-an-option' }];
  if (type === 'integer') {
    return [
      { what: 'not a number', value: 'abc' },
      { what: 'not an integer', value: '1.5' },
      ...(schema.minimum !== undefined ? [{ what: 'below its minimum', value: String(schema.minimum - 1) }] : []),
      ...(schema.maximum !== undefined ? [{ what: 'above its maximum', value: String(schema.maximum + 1) }] : []),
    ];
  }
  if (type === 'boolean') return [{ what: 'not a boolean', value: 'maybe' }];
  // Over-long strings in a URL are probed on their own below (they meet the HTTP header limit first).
  if (type === 'string') return [];
  throw new Error(`no refused values for query schema ${JSON.stringify(schema)}: teach the sweep its type`);
}

function queryProbes(operation: Operation): Probe[] {
  const declared = operation.parameters.filter((p) => p.in === 'query');
  const unknown: Probe = {
    name: 'unknown query parameter',
    change: (p) => ({ ...p, query: { ...p.query, unknown_parameter: '1' } }),
    expected: () => invalid('unknown_parameter'),
  };
  const bad = declared.flatMap((parameter) =>
    refusedQueryValues(parameter.schema).map(
      ({ what, value }): Probe => ({
        name: `query ${parameter.name} ${what}`,
        change: (p) => ({ ...p, query: { ...p.query, [parameter.name]: value } }),
        expected: () => invalid(`query/${parameter.name}`),
      }),
    ),
  );
  const missing = declared
    .filter((parameter) => parameter.required)
    .map(
      (parameter): Probe => ({
        name: `required query ${parameter.name} missing`,
        change: (p) => {
          const { [parameter.name]: _dropped, ...query } = p.query;
          return { ...p, query };
        },
        expected: () => invalid(`query must have required property '${parameter.name}'`),
      }),
    );
  return [unknown, ...bad, ...missing];
}

/** The JSON types a schema accepts (following oneOf alternatives). */
function typesOf(schema: Schema): string[] {
  const resolved = resolve(schema);
  if (resolved.oneOf) return [...new Set(resolved.oneOf.flatMap(typesOf))];
  if (resolved.type === undefined) return resolved.properties ? ['object'] : [];
  return Array.isArray(resolved.type) ? resolved.type : [resolved.type];
}

/** A JSON value of a type the schema does not accept. */
function mistyped(schema: Schema): unknown {
  const accepted = typesOf(schema);
  const candidates: [string, unknown][] = [
    ['string', 12345],
    ['integer', 'not-a-number'],
    ['number', 'not-a-number'],
    ['boolean', 'not-a-boolean'],
    ['array', 'not-an-array'],
    ['object', 'not-an-object'],
  ];
  const [, value] = candidates.find(([type]) => accepted.includes(type)) ?? [];
  if (value === undefined || accepted.includes(typeof value === 'number' ? 'integer' : 'string')) {
    throw new Error(`no mistyped value for schema ${JSON.stringify(schema)}: teach the sweep its type`);
  }
  return value;
}

function withBody(parts: Parts, body: unknown): Parts {
  return { ...parts, body };
}

function bodyOf(parts: Parts): Record<string, unknown> {
  return parts.body as Record<string, unknown>;
}

function bodyFieldProbes(schema: Schema): Probe[] {
  const properties = Object.entries(schema.properties ?? {}).map(([name, property]) => [name, resolve(property)] as const);
  const probes: Probe[] = [
    {
      name: 'unknown body field',
      change: (p) => withBody(p, withUnknownField(bodyOf(p))),
      expected: (p) => invalid(unknownFieldPath(bodyOf(p))),
    },
  ];
  for (const name of schema.required ?? []) {
    probes.push({
      name: `required body field ${name} missing`,
      change: (p) => {
        const { [name]: _dropped, ...rest } = bodyOf(p);
        return withBody(p, rest);
      },
      expected: () => invalid(`body must have required property '${name}'`),
    });
  }
  if (schema.minProperties) {
    probes.push({ name: 'empty body object', change: (p) => withBody(p, {}), expected: () => invalid('body') });
  }
  for (const [name, property] of properties) {
    const set = (value: unknown) => (p: Parts) => withBody(p, { ...bodyOf(p), [name]: value });
    probes.push({ name: `body field ${name} of the wrong type`, change: set(mistyped(property)), expected: () => invalid(`body/${name}`) });
    if (property.enum) {
      probes.push({ name: `body field ${name} not among its values`, change: set('not-an-option'), expected: () => invalid(`body/${name}`) });
    }
    if (property.minLength) {
      probes.push({ name: `body field ${name} empty`, change: set(''), expected: () => invalid(`body/${name}`) });
    }
    if (property.maxLength !== undefined) {
      probes.push({
        name: `body field ${name} over ${property.maxLength} characters`,
        change: set('a'.repeat(property.maxLength + 1)),
        expected: () => invalid(`body/${name}`),
      });
    }
    if (property.items) {
      probes.push({
        name: `body field ${name} with an item of the wrong type`,
        change: set([mistyped(property.items)]),
        expected: () => invalid(`body/${name}/0`),
      });
      if (typesOf(property.items).includes('object')) {
        probes.push({ name: `body field ${name} with a null item`, change: set([null]), expected: () => invalid(`body/${name}/0`) });
      }
      if (resolve(property.items).discriminator) probes.push(...ruleItemProbes(name));
    }
  }
  return probes;
}

/** Rules are a oneOf keyed by `action`: broken rules must be refused with the rule's own path. */
function ruleItemProbes(field: string): Probe[] {
  const block = { action: 'block', expression: 'true' };
  const executeOwasp = (overrides: object) => ({ action: 'execute', expression: 'true', action_parameters: { id: ids.owasp, overrides } });
  // [what is wrong, the rule, where under body/<field>/0 the message must point]
  const cases: [string, Record<string, unknown>, string][] = [
    ['with an unknown action', { ...block, action: 'explode' }, ''],
    ['without an action', { expression: 'true' }, ''],
    ['with an expression that is not a string', { ...block, expression: 7 }, '/expression'],
    ['with an unknown field', { ...block, colour: 'red' }, '/colour'],
    ['with an id that is not hex', { ...block, id: 'z'.repeat(32) }, '/id'],
    ['execute without action_parameters', { action: 'execute', expression: 'true' }, ''],
    ['execute of a ruleset id that is not hex', { action: 'execute', expression: 'true', action_parameters: { id: 'owasp' } }, '/action_parameters/id'],
    [
      'with a score threshold that is not an integer',
      executeOwasp({ rules: [{ id: ids.owaspLastRule, score_threshold: 'high' }] }),
      '/action_parameters/overrides/rules/0/score_threshold',
    ],
  ];
  return cases.map(([what, value, at]) => ({
    name: `${field}[0] ${what}`,
    change: (p: Parts) => withBody(p, { ...bodyOf(p), [field]: [value] }),
    expected: () => invalid(`body/${field}/0${at}`),
  }));
}

const oneMiB = 1024 * 1024;

function operationIdOf(method: string, template: string): OperationId | undefined {
  return (document.paths[template]?.[method.toLowerCase()] as { operationId: OperationId } | undefined)?.operationId;
}

function bodyFormProbes(operation: Operation): Probe[] {
  const raw = (text: string | Uint8Array, contentType?: string | null) => (p: Parts) => ({
    ...p,
    body: undefined,
    raw: text,
    ...(contentType !== undefined ? { contentType } : {}),
  });
  const unsupported = (mentions: string) => () => ({ status: 415, codes: [Codes.unsupportedMediaType], mentions });
  return [
    { name: 'body that is a JSON array', change: (p) => withBody(p, [bodyOf(p)]), expected: () => invalid('body') },
    { name: 'body that is JSON null', change: raw('null'), expected: () => ({ status: 400, codes: [Codes.malformedJson], mentions: 'must be a JSON object, not null' }) },
    { name: 'body that is a JSON number', change: raw('42'), expected: () => ({ status: 400, codes: [Codes.malformedJson], mentions: 'must be a JSON object, not number' }) },
    { name: 'body that is a JSON string', change: raw('"text"'), expected: () => ({ status: 400, codes: [Codes.malformedJson], mentions: 'must be a JSON object, not string' }) },
    { name: 'malformed JSON', change: raw('{"name": "x",'), expected: () => ({ status: 400, codes: [Codes.malformedJson], mentions: 'JSON' }) },
    {
      name: 'JSON with a trailing comma',
      change: raw('{"a": 1,}'),
      expected: () => ({ status: 400, codes: [Codes.malformedJson], mentions: 'JSON' }),
    },
    // An assets manifest (20,000 paths) is read up to 16 MiB; every other body up to 1 MiB.
    {
      name: `body over ${bodyLimitMiB(operation)} MiB`,
      change: (p) => withBody(p, { ...bodyOf(p), padding: 'x'.repeat(oneMiB * bodyLimitMiB(operation)) }),
      expected: () => ({ status: 413, codes: [Codes.payloadTooLarge], mentions: `${bodyLimitMiB(operation)} MiB` }),
    },
    // Where the document takes JSON sent as text/plain, text/plain that is not JSON is malformed JSON.
    takesPlainTextJson(operation)
      ? { name: 'text/plain body that is not JSON', change: raw('name=x', 'text/plain'), expected: () => ({ status: 400, codes: [Codes.malformedJson], mentions: 'JSON' }) }
      : { name: 'text/plain body', change: (p) => ({ ...p, contentType: 'text/plain' }), expected: unsupported('application/json') },
    {
      name: 'form-encoded body',
      change: raw('name=x&kind=zone', 'application/x-www-form-urlencoded'),
      expected: unsupported('application/json'),
    },
    {
      name: 'body without a content type',
      change: (p) => raw(new TextEncoder().encode(JSON.stringify(p.body)), null)(p),
      expected: unsupported('application/json'),
    },
    {
      name: 'JSON in a charset the server does not read',
      change: (p) => ({ ...p, contentType: 'application/json; charset=latin1' }),
      expected: unsupported('charset'),
    },
    {
      name: 'unsupported content encoding',
      change: (p) => ({ ...p, headers: { 'Content-Encoding': 'compress' } }),
      expected: unsupported('compress'),
    },
  ];
}

function probesOf(operation: Operation): Probe[] {
  return [
    ...credentialProbes,
    ...pathParameterProbes(operation),
    ...queryProbes(operation),
    ...(operation.body ? [...bodyFieldProbes(operation.body), ...bodyFormProbes(operation)] : []),
  ];
}

// ---------------------------------------------------------------------------------------------

let server: TestServer;
/** Live tails as `npm start` gives them (nothing traced: no edge here). */
const tails = new LiveTails({ trace: async () => {} });
let valid: ValidRequests;
const snapshots = new Map<OperationId, string>();
const readOnly = operationsOfDocument.filter((operation) => operation.method === 'get');

/** What every read operation answers: invalid writes must leave all of it as it was. */
async function readEverything(): Promise<Map<OperationId, string>> {
  const answers = new Map<OperationId, string>();
  for (const operation of readOnly) {
    const response = await send(server, operation.method, operation.template, partsOf(operation, valid[operation.id]));
    answers.set(operation.id, `${response.status} ${await response.text()}`);
  }
  return answers;
}

beforeAll(async () => {
  server = await startServer({ s3AccessKeys: SWEEP_S3_KEYS, tails });
  const sweepBucket = server.buckets.account(ids.account);
  await sweepBucket.create(SWEEP_BUCKET);
  await sweepBucket.setCors(SWEEP_BUCKET, [{ allowed: { origins: ['*'], methods: ['GET'] } }]);
  await (await sweepBucket.open(SWEEP_BUCKET)).put(SWEEP_KEY, 'hello', { httpMetadata: { contentType: 'text/plain' } });
  const entryPoint = (phase: 'http_request_firewall_managed' | 'http_log_custom_fields') =>
    unwrap(server.api.GET('/zones/{zone_id}/rulesets/phases/{phase}/entrypoint', { params: { path: { zone_id: ids.proZone, phase } } }));
  const managed = await entryPoint('http_request_firewall_managed');
  const fields = await entryPoint('http_log_custom_fields');
  const owaspRule = managed.rules?.find((rule) => rule.action === 'execute' && rule.action_parameters.id === ids.owasp);
  const scratch = await server.store.rulesets.create({ zone_id: ids.proZone }, { name: 'Scratch', kind: 'custom', phase: 'http_request_firewall_custom' });
  const block = (path: string) => ({ action: 'block', expression: `http.request.uri.path eq "${path}"` });
  const edited = await server.store.rulesets.create({ zone_id: ids.proZone }, { name: 'Edited', kind: 'custom', phase: 'http_request_firewall_custom', rules: [block('/a'), block('/b')] });
  await server.store.rulesets.deleteRule({ zone_id: ids.proZone }, edited.id, edited.rules[0]!.id);
  const accountScratch = await server.store.rulesets.create({ account_id: ids.account }, { name: 'Account scratch', kind: 'custom', phase: 'http_request_firewall_custom' });
  const versioned = await server.store.rulesets.create({ account_id: ids.account }, { name: 'Versioned', kind: 'custom', phase: 'http_request_firewall_custom', rules: [block('/c')] });
  await server.store.rulesets.addRule({ account_id: ids.account }, versioned.id, block('/d'));
  await server.store.rulesets.putEntryPoint({ account_id: ids.account }, 'http_request_firewall_custom', { rules: [block('/e')] });
  const accountJob = await server.store.accountLogpushJobs.create(ids.account, { dataset: 'audit_logs', destination_conf: 's3://logs/audit?region=eu' });
  const upload = (bindings: WorkerVersionInput['bindings']): WorkerVersionInput => ({
    main_module: 'index.js',
    compatibility_date: '2026-11-01',
    compatibility_flags: [],
    bindings,
    modules: [{ name: 'index.js', type: 'esm', bytes: new TextEncoder().encode(SWEEP_MODULE) }],
    keep_bindings: [],
    annotations: {},
    source: 'api',
    author_email: userEmail,
    handlers: ['fetch'],
  });
  const worker = await server.store.workers.uploadVersion(ids.account, SWEEP_SCRIPT, upload([]), { create: true, deploy: true });
  await server.store.workers.uploadVersion(ids.account, SWEEP_SECRETS, upload([{ type: 'secret_text', name: 'SWEEP_SECRET', text: 'first' }]), { create: true, deploy: true });
  for (const name of [SWEEP_DOOMED, SWEEP_SERVICE]) await server.store.workers.uploadVersion(ids.account, name, upload([]), { create: true, deploy: true });
  await server.store.workers.setSubdomain(ids.account, 'sweep-corp');
  await server.store.workers.replaceScriptRoutes(ids.account, SWEEP_SCRIPT, [{ zone_id: ids.proZone, pattern: 'sweep.example.org/*' }]);
  // A route of no script: the script routes the sweep replaces leave it be.
  const route = await server.store.workers.createRoute(ids.proZone, { pattern: 'sweep-off.example.org/*', script: null });
  valid = validRequests({
    managedEntryPoint: managed.id,
    owaspExecuteRule: owaspRule!.id!,
    customFields: fields.id,
    scratchRuleset: scratch.id,
    editedRuleset: edited.id,
    editedRule: edited.rules[1]!.id,
    accountScratch: accountScratch.id,
    accountVersioned: versioned.id,
    accountRule: versioned.rules[0]!.id,
    accountJob: accountJob.id,
    workerVersion: worker.version.id,
    workerDeployment: worker.deployment!.id,
    workerRoute: route.id,
    workerTail: tails.create({ account: ids.account, script: SWEEP_SCRIPT, filters: [], clientAddress: '127.0.0.1', origin: 'ws://127.0.0.1' }).id,
  });
  for (const [id, answer] of await readEverything()) snapshots.set(id, answer);
});

afterAll(async () => {
  await server?.stop();
});

describe('the document', () => {
  it('has the operations this sweep was written against, each with a valid request', () => {
    // A new operation must get a valid request in validRequests (tsc insists) before it is swept.
    const blank = { managedEntryPoint: '', owaspExecuteRule: '', customFields: '', scratchRuleset: '', editedRuleset: '', editedRule: '', accountScratch: '', accountVersioned: '', accountRule: '', accountJob: 0, workerVersion: '', workerDeployment: '', workerRoute: '', workerTail: '' };
    const known = Object.keys(validRequests(blank))
      .filter((id) => !notSwept.has(id as OperationId))
      .sort();
    expect(operationsOfDocument.map((operation) => operation.id).sort()).toEqual(known);
  });

  it('declares a 400 answer for every operation, and 413 and 415 for every operation with a body', () => {
    for (const operation of operationsOfDocument) {
      const responses = Object.keys((document.paths[operation.template]![operation.method] as { responses: object }).responses);
      const success = noContent(operation) ? '204' : '200';
      expect(responses, operation.id).toEqual(expect.arrayContaining([success, '400', '403', ...(operation.body ? ['413', '415'] : [])]));
    }
  });
});

/** Deletions the real service answers with 204 and no body. */
function noContent(operation: Operation): boolean {
  const responses = (document.paths[operation.template]![operation.method] as { responses: object }).responses;
  return '204' in responses;
}

const titled = operationsOfDocument.map((operation) => [`${operation.method.toUpperCase()} ${operation.template} (${operation.id})`, operation] as const);

describe.each(titled)(
  '%s',
  (_title, operation) => {
    // Writes are sent valid once, with real client headers, at the end of the file (they change the store).
    if (operation.method === 'get') {
      it('answers its valid request when nothing is broken (the probes below start from it)', async () => {
        const response = await send(server, operation.method, operation.template, partsOf(operation, valid[operation.id]));
        if (rawAnswer(operation)) return expect({ status: response.status, body: await response.text() }).toEqual({ status: 200, body: rawBody(operation) });
        const envelope = await envelopeOf(response);
        expect({ status: response.status, success: envelope.success }).toEqual({ status: 200, success: true });
      });
    }

    it.each(probesOf(operation).map((probe) => [probe.name, probe] as const))('refuses %s', async (_name, probe) => {
      const parts = probe.change(partsOf(operation, valid[operation.id]));
      const response = await send(server, operation.method, operation.template, parts);
      await expectRefusal(response, probe.expected(parts, operation));
    });
  },
);

describe('bodies that do not decode', () => {
  const withBody = operationsOfDocument.filter((operation) => operation.body);
  const encodings = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

  it.each(Object.keys(encodings))('refuses a body announced as %s that is not, with 400 (every operation with a body)', async (encoding) => {
    const statuses: Record<string, number> = {};
    for (const operation of withBody) {
      const parts = partsOf(operation, valid[operation.id]);
      const response = await send(server, operation.method, operation.template, { ...parts, headers: { 'Content-Encoding': encoding } });
      statuses[operation.id] = response.status;
      if (response.status === 400) await expectRefusal(response, { status: 400, codes: [Codes.malformedJson] });
    }
    expect(statuses).toEqual(Object.fromEntries(withBody.map((operation) => [operation.id, 400])));
  });

  it.each(Object.entries(encodings))('decodes a %s body and validates what is inside', async (encoding, compress) => {
    for (const operation of withBody) {
      const parts = partsOf(operation, valid[operation.id]);
      const raw = compress(Buffer.from(JSON.stringify(withUnknownField(bodyOf(parts)))));
      const response = await send(server, operation.method, operation.template, {
        ...parts,
        body: undefined,
        raw: new Uint8Array(raw),
        headers: { 'Content-Encoding': encoding },
      });
      await expectRefusal(response, invalid(unknownFieldPath(bodyOf(parts))));
    }
  });
});

describe('long expressions in the query', () => {
  const operation = operationsOfDocument.find((o) => o.id === 'validateFilterExpressionByQuery')!;
  const maxLength = operation.parameters.find((p) => p.name === 'expression')!.schema.maxLength!;

  it('answers an expression over the language limit (4096) with the filter failure envelope', async () => {
    const response = await send(server, 'get', operation.template, { params: {}, query: { expression: 'a'.repeat(5000) } });
    const envelope = await envelopeOf(response);
    expect(response.status).toBe(400);
    expect(envelope).toMatchObject({ success: false, result: null, messages: null });
    expect(envelope.errors).toHaveLength(1);
    expect(envelope.errors[0]!.message).toMatch(/^Filter parsing error/);
  });

  it(`answers the longest expression the document allows (${maxLength} characters) with an envelope`, async () => {
    // Node's HTTP parser refuses request lines over 16 KiB with a bare 431 before the app sees them.
    const response = await send(server, 'get', operation.template, { params: {}, query: { expression: 'a'.repeat(maxLength) } });
    const envelope = await envelopeOf(response);
    expect(response.status).toBe(400);
    expect(envelope.success).toBe(false);
  });

  it('refuses an expression over the document limit, naming the parameter', async () => {
    const response = await send(server, 'post', operation.template, { params: {}, query: {}, body: { expression: 'a'.repeat(maxLength + 1) } });
    await expectRefusal(response, invalid('body/expression'));
  });
});

describe('invalid input changes nothing', () => {
  it('leaves every read answering exactly as before the sweep', async () => {
    const after = await readEverything();
    for (const operation of readOnly) expect(after.get(operation.id), operation.id).toBe(snapshots.get(operation.id));
  });
});

describe('wrong methods', () => {
  const allMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  const cases = Object.entries(document.paths).flatMap(([template, item]) => {
    const declared = methods.filter((m) => item[m]).map((m) => m.toUpperCase());
    return allMethods.filter((m) => !declared.includes(m)).map((method) => [method, template, declared] as const);
  });

  it.each(cases)('%s %s answers 405 with the methods of the path in Allow', async (method, template, declared) => {
    // The assets upload's path (not swept, see notSwept) has its account only.
    const operation = operationsOfDocument.find((o) => o.template === template);
    const parts = operation === undefined ? { params: { account_id: ids.account }, query: {} } : { ...partsOf(operation, valid[operation.id]), query: {} };
    const withJson = ['POST', 'PUT', 'PATCH'].includes(method) ? { body: {} } : { body: undefined };
    const response = await send(server, method, template, { ...parts, ...withJson });
    await expectRefusal(response, { status: 405, codes: [Codes.methodNotAllowed], mentions: method });
    const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean);
    expect(allow.sort()).toEqual([...declared].sort());
  });
});

describe('unknown routes', () => {
  const routes = [
    '/nope',
    '/zone',
    `/zones/${ids.proZone}/nope`,
    `/zones/${ids.proZone}/rulesets/phases/http_request_firewall_managed/entrypoint/rules`,
    `/accounts/${ids.account}/rulesets/${ids.owasp}/rules/nope/more`,
    `/accounts/${ids.account}/r2`,
    `/user/invites`,
    '',
  ];

  it.each(routes)('GET %s answers 404 with codes 7003 and 7000', async (route) => {
    const response = await server.fetch(route, { headers: bearer() });
    await expectRefusal(response, { status: 404, codes: notFoundCodes, mentions: route || '/' });
  });

  it.each(['/', '/client/v3/zones', '/v4/zones', '/favicon.ico'])('GET %s outside the API answers the same 404 envelope', async (route) => {
    const origin = new URL(server.baseUrl).origin;
    const response = await fetch(`${origin}${route}`, { headers: bearer() });
    await expectRefusal(response, { status: 404, codes: notFoundCodes, mentions: route });
  });

  it.each(routes)('GET %s without credentials answers the same 404: routing comes before authentication', async (route) => {
    const response = await server.fetch(route);
    await expectRefusal(response, { status: 404, codes: notFoundCodes, mentions: route || '/' });
  });

  it('a known route without credentials still answers 400 (9106), and with a trailing slash too', async () => {
    for (const route of [`/zones/${ids.proZone}`, `/zones/${ids.proZone}/`]) {
      const response = await server.fetch(route);
      await expectRefusal(response, { status: 400, codes: [Codes.missingCredentials], mentions: 'Authorization' });
    }
  });

  it('HEAD answers as GET without the body: the same status and headers', async () => {
    const path = `/zones/${ids.proZone}`;
    const [get, head] = await Promise.all([server.fetch(path, { headers: bearer() }), server.fetch(path, { method: 'HEAD', headers: bearer() })]);
    const body = await get.text();
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await head.text()).toBe('');
  });

  it('HEAD where there is no GET answers 405 with Allow, and HEAD of an unknown route 404', async () => {
    const rule = await server.fetch(`/zones/${ids.proZone}/rulesets/${ids.owasp}/rules/${ids.owaspLastRule}`, { method: 'HEAD', headers: bearer() });
    expect(rule.status).toBe(405);
    expect(rule.headers.get('allow')).toBe('PATCH, DELETE');
    const unknown = await server.fetch('/nope', { method: 'HEAD', headers: bearer() });
    expect(unknown.status).toBe(404);
  });

  it('POST with a JSON body to an unknown route answers 404 too', async () => {
    const response = await server.fetch(`/zones/${ids.proZone}/nope`, {
      method: 'POST',
      headers: { ...bearer(), 'Content-Type': 'application/json' },
      body: '{"name":"x"}',
    });
    await expectRefusal(response, { status: 404, codes: notFoundCodes, mentions: `/zones/${ids.proZone}/nope` });
  });
});

describe('headers that real clients send', () => {
  // The official client library sends these on every request; they must change nothing.
  const clientHeaders = {
    'api-version': '2026-11-22',
    'User-Agent': 'Cloudflare/JS 7.3.0',
    Accept: 'application/json',
    'X-Stainless-Lang': 'js',
    'X-Stainless-Package-Version': '7.3.0',
    'X-Stainless-OS': 'Linux',
    'X-Stainless-Arch': 'x64',
    'X-Stainless-Runtime': 'node',
    'X-Stainless-Runtime-Version': 'v20.20.2',
    'X-Stainless-Retry-Count': '0',
    'X-Stainless-Timeout': '60',
  };

  // In document order, each write once: they change the store, so this runs after the sweep.
  it.each(operationsOfDocument.map((operation) => [operation.id, operation] as const))('%s succeeds with them', async (_id, operation) => {
    const response = await send(server, operation.method, operation.template, {
      ...partsOf(operation, valid[operation.id]),
      headers: clientHeaders,
    });
    if (noContent(operation)) {
      expect({ status: response.status, body: await response.text() }).toEqual({ status: 204, body: '' });
      return;
    }
    if (rawAnswer(operation)) return expect({ status: response.status, body: await response.text() }).toEqual({ status: 200, body: rawBody(operation) });
    const envelope = await envelopeOf(response);
    expect({ status: response.status, success: envelope.success, errors: envelope.errors }).toEqual({ status: 200, success: true, errors: [] });
  });
});
