/**
 * The Workers family: scripts uploaded from multipart forms, versions, deployments, secrets, the
 * workers.dev switches and the look-ups wrangler makes on the way. Uploads are checked whole
 * (workers/upload.ts) before the store writes anything, in one transaction.
 */
import type { AccountBuckets } from '../../bucket';
import type { WorkerScript } from '../../store';
import { ApiError, badRequest } from '../http/errors';
import type { Context, Handler, OperationId } from '../operations';
import type { FormPart, FormRequest } from '../workers/form';
import { checkScriptName, checkUpload, WorkerCodes } from '../workers/upload';
import { deploymentView, routeView, scriptView, servingVersionId, versionView } from '../workers/views';
import { patternHost, requirePatternInZone } from '../workers/route-patterns';
import { requireAccount } from './access';
import { checkedCrons, MAX_CRON_TRIGGERS_PER_ACCOUNT } from '../workers/schedules';

type WorkerOperation =
  | 'listWorkerScripts'
  | 'uploadWorkerScript'
  | 'getWorkerScriptContent'
  | 'deleteWorkerScript'
  | 'getWorkerScriptSettings'
  | 'getWorkerScriptLevelSettings'
  | 'updateWorkerScriptLevelSettings'
  | 'getWorkerScriptSubdomain'
  | 'updateWorkerScriptSubdomain'
  | 'deleteWorkerScriptSubdomain'
  | 'listWorkerScriptRoutes'
  | 'updateWorkerScriptRoutes'
  | 'listWorkerVersions'
  | 'uploadWorkerVersion'
  | 'getWorkerVersion'
  | 'listWorkerDeployments'
  | 'createWorkerDeployment'
  | 'getWorkerDeployment'
  | 'listWorkerSecrets'
  | 'updateWorkerSecret'
  | 'getWorkerSecret'
  | 'deleteWorkerSecret'
  | 'updateWorkerSecrets'
  | 'getWorkerSchedules'
  | 'updateWorkerSchedules'
  | 'getWorkerReferences'
  | 'listWorkerTailProducers'
  | 'getWorkerService'
  | 'deleteWorkerService'
  | 'getWorker'
  | 'getWorkersSubdomain'
  | 'getWorkersSubdomainAvailability'
  | 'updateWorkersSubdomain'
  | 'deleteWorkersSubdomain'
  | 'listDurableObjectNamespaces'
  | 'listKvNamespaces';

export function workerNotFound(name: string): ApiError {
  return ApiError.of(404, WorkerCodes.scriptNotFound, `This Worker does not exist on your account: ${name}.`);
}

const SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The path's account (reached by the credentials) and script name (checked as the platform names them). */
async function scriptPath<O extends OperationId>(context: Context<O>): Promise<{ account: string; name: string }> {
  const params = context.params as { account_id: string; script_name?: string; service_name?: string };
  await requireAccount(context, params.account_id);
  return { account: params.account_id, name: params.script_name ?? params.service_name! };
}

export async function existingScript<O extends OperationId>(context: Context<O>): Promise<{ account: string; script: WorkerScript }> {
  const { account, name } = await scriptPath(context);
  const script = await context.store.workers.getScript(account, name);
  if (script === null) throw workerNotFound(name);
  return { account, script };
}

/** Where a write comes from, as versions and deployments record it. */
function origin<O extends OperationId>(context: Context<O>) {
  const agent = String(context.request.headers['user-agent'] ?? '');
  return { source: agent.startsWith('wrangler') ? 'wrangler' : 'api', author_email: context.principal.email };
}

function form<O extends OperationId>(context: Context<O>): FormPart[] {
  const parts = (context.request as FormRequest).workerForm;
  if (parts === undefined) throw badRequest('a worker is uploaded as a multipart form', WorkerCodes.unparsableBody);
  return parts;
}

async function accountBucketsOf<O extends OperationId>(context: Context<O>, account: string): Promise<AccountBuckets> {
  return context.buckets.account(account);
}

async function settingsView<O extends OperationId>(context: Context<O>, account: string, script: WorkerScript) {
  const serving = await context.store.workers.getVersion(account, script.name, servingVersionId(script));
  const version = serving ?? script.latest;
  return {
    bindings: version.bindings.map((binding) => ({ ...binding })),
    compatibility_date: version.compatibility_date,
    compatibility_flags: version.compatibility_flags,
    logpush: script.settings.logpush,
    placement: {},
    tags: script.settings.tags,
    tail_consumers: script.settings.tail_consumers,
    usage_model: 'standard',
    observability: script.settings.observability,
  };
}

function levelSettingsView(script: WorkerScript) {
  const { logpush, observability, tags, tail_consumers } = script.settings;
  return { logpush, observability, tags, tail_consumers };
}

function secretNameOf(name: string): string {
  if (!SECRET_NAME.test(name)) throw badRequest(`secret name ${JSON.stringify(name)}: use letters, digits and _ (not starting with a digit)`, WorkerCodes.invalid);
  return name;
}

function secretText(name: string, text: string): { name: string; text: string } {
  secretNameOf(name);
  if (Buffer.byteLength(text) > 5 * 1024) throw badRequest(`secret ${name}: a secret is at most 5 KiB`, WorkerCodes.bindingTooLarge);
  return { name, text };
}

function emptyList() {
  return { result: [], result_info: { page: 1, per_page: 0, count: 0, total_count: 0, total_pages: 0 } };
}

export const workerHandlers: { [O in WorkerOperation]: Handler<O> } = {
  listWorkerScripts: async (context) => {
    await requireAccount(context, context.params.account_id);
    const scripts = await context.store.workers.listScripts(context.params.account_id);
    return { result: scripts.map((script) => scriptView(script)) };
  },

  uploadWorkerScript: async (context) => {
    const { account, name } = await scriptPath(context);
    checkScriptName(name);
    const upload = await checkUpload(form(context), await accountBucketsOf(context, account), origin(context));
    const { script, version } = await context.store.workers.uploadVersion(account, name, upload.version, { create: true, deploy: true });
    const updated = Object.keys(upload.settings).length > 0 ? await context.store.workers.updateScriptSettings(account, name, upload.settings) : script;
    return { result: scriptView(updated, { deployment_id: version.id }) };
  },

  getWorkerScriptContent: async (context) => {
    const { account, script } = await existingScript(context);
    const versionId = servingVersionId(script);
    const modules = (await context.store.workers.versionModules(account, script.name, versionId)) ?? [];
    const version = await context.store.workers.getVersion(account, script.name, versionId);
    const main = modules.find((module) => module.name === version?.main_module) ?? modules[0];
    if (main === undefined) throw ApiError.of(404, WorkerCodes.scriptNotFound, `${script.name} has no script content: it serves static assets only.`);
    return {
      stream: {
        status: 200,
        headers: { 'content-type': 'application/javascript', 'content-length': String(main.bytes.byteLength) },
        body: new Blob([main.bytes as Uint8Array<ArrayBuffer>]).stream(),
      },
    };
  },

  deleteWorkerScript: async (context) => {
    const { account, script } = await existingScript(context);
    await context.store.workers.deleteScript(account, script.name);
    context.tails?.removeScript(account, script.name);
    return { result: null };
  },

  getWorkerScriptSettings: async (context) => {
    const { account, script } = await existingScript(context);
    return { result: await settingsView(context, account, script) };
  },

  getWorkerScriptLevelSettings: async (context) => {
    const { script } = await existingScript(context);
    return { result: levelSettingsView(script) };
  },

  updateWorkerScriptLevelSettings: async (context) => {
    const { account, script } = await existingScript(context);
    const patch = context.body;
    if (patch.logpush === true) throw badRequest('logpush: Workers Logpush is not served by this platform', WorkerCodes.invalid);
    if (Array.isArray(patch.tail_consumers) && patch.tail_consumers.length > 0) {
      throw badRequest('tail_consumers: tail consumers are not served by this platform', WorkerCodes.invalid);
    }
    const updated = await context.store.workers.updateScriptSettings(account, script.name, {
      ...(patch.logpush === undefined ? {} : { logpush: patch.logpush }),
      ...(patch.observability === undefined ? {} : { observability: patch.observability as { enabled: boolean } | null }),
      ...(patch.tags === undefined ? {} : { tags: patch.tags ?? [] }),
      ...(patch.tail_consumers === undefined ? {} : { tail_consumers: null }),
    });
    return { result: levelSettingsView(updated) };
  },

  getWorkerScriptSubdomain: async (context) => {
    const { script } = await existingScript(context);
    return { result: { enabled: script.workers_dev, previews_enabled: script.previews_enabled } };
  },

  updateWorkerScriptSubdomain: async (context) => {
    const { account, script } = await existingScript(context);
    const { enabled, previews_enabled } = context.body;
    const updated = await context.store.workers.setWorkersDev(account, script.name, { enabled, ...(previews_enabled === undefined ? {} : { previews_enabled }) });
    return { result: { enabled: updated.workers_dev, previews_enabled: updated.previews_enabled } };
  },

  deleteWorkerScriptSubdomain: async (context) => {
    const { account, script } = await existingScript(context);
    const updated = await context.store.workers.setWorkersDev(account, script.name, { enabled: false });
    return { result: { enabled: updated.workers_dev, previews_enabled: updated.previews_enabled } };
  },

  listWorkerScriptRoutes: async (context) => {
    const { account, script } = await existingScript(context);
    const routes = (await context.store.workers.listScriptRoutes(account, script.name)) ?? [];
    return { result: routes.map((route) => ({ ...routeView(route), script: script.name, zone_id: route.zone_id, zone_name: route.zone_name })) };
  },

  updateWorkerScriptRoutes: async (context) => {
    const { account, script } = await existingScript(context);
    const zones = (await context.store.zones.list({ account_id: account }, { per_page: 1000 })).items;
    const placed = context.body.map((route) => {
      if (route.custom_domain === true) throw badRequest(`route ${route.pattern}: custom domains are not served by this platform`, WorkerCodes.invalid);
      const host = patternHost(route.pattern);
      const zone =
        route.zone_id !== undefined
          ? zones.find((candidate) => candidate.id === route.zone_id)
          : route.zone_name !== undefined
            ? zones.find((candidate) => candidate.name === route.zone_name)
            : zones.filter((candidate) => host === candidate.name || host.endsWith(`.${candidate.name}`)).sort((a, b) => b.name.length - a.name.length)[0];
      if (zone === undefined) {
        const named = route.zone_id ?? route.zone_name;
        throw badRequest(
          named === undefined ? `Could not find zone for ${route.pattern}: no zone of the account holds ${host}` : `route ${route.pattern}: ${named} is not a zone of the account`,
          WorkerCodes.routeNotInZone,
        );
      }
      requirePatternInZone(route.pattern, zone.name);
      return { zone_id: zone.id, pattern: route.pattern };
    });
    const routes = await context.store.workers.replaceScriptRoutes(account, script.name, placed);
    return { result: routes.map((route) => ({ ...routeView(route), script: script.name, zone_id: route.zone_id, zone_name: route.zone_name })) };
  },

  listWorkerVersions: async (context) => {
    const { account, script } = await existingScript(context);
    const versions = (await context.store.workers.listVersions(account, script.name)) ?? [];
    const page = context.query.page ?? 1;
    const perPage = context.query.per_page ?? 10;
    const items = versions.slice((page - 1) * perPage, page * perPage);
    return {
      result: { items: items.map(versionView) },
      result_info: { page, per_page: perPage, count: items.length, total_count: versions.length, total_pages: Math.ceil(versions.length / perPage) },
    };
  },

  uploadWorkerVersion: async (context) => {
    const { account, script } = await existingScript(context);
    const upload = await checkUpload(form(context), await accountBucketsOf(context, account), origin(context));
    const { version } = await context.store.workers.uploadVersion(account, script.name, upload.version, { create: false, deploy: false });
    return { result: { ...versionView(version), startup_time_ms: 0 } };
  },

  getWorkerVersion: async (context) => {
    const { account, script } = await existingScript(context);
    const version = await context.store.workers.getVersion(account, script.name, context.params.version_id);
    if (version === null) throw ApiError.of(404, WorkerCodes.scriptNotFound, `Version ${context.params.version_id} of ${script.name} does not exist.`);
    return { result: versionView(version) };
  },

  listWorkerDeployments: async (context) => {
    const { account, script } = await existingScript(context);
    const deployments = (await context.store.workers.listDeployments(account, script.name)) ?? [];
    return { result: { deployments: deployments.map(deploymentView) } };
  },

  createWorkerDeployment: async (context) => {
    const { account, script } = await existingScript(context);
    const { versions, annotations = {} } = context.body;
    const deployment = await context.store.workers.createDeployment(account, script.name, {
      versions,
      annotations: { ...annotations, 'workers/triggered_by': annotations['workers/triggered_by'] ?? 'deployment' },
      ...origin(context),
    });
    return { result: deploymentView(deployment) };
  },

  getWorkerDeployment: async (context) => {
    const { account, script } = await existingScript(context);
    const deployment = await context.store.workers.getDeployment(account, script.name, context.params.deployment_id);
    if (deployment === null) throw ApiError.of(404, WorkerCodes.scriptNotFound, `Deployment ${context.params.deployment_id} of ${script.name} does not exist.`);
    return { result: deploymentView(deployment) };
  },

  listWorkerSecrets: async (context) => {
    const { account, script } = await existingScript(context);
    return { result: (await context.store.workers.listSecrets(account, script.name)) ?? [] };
  },

  updateWorkerSecret: async (context) => {
    const { account, script } = await existingScript(context);
    const secret = secretText(context.body.name, context.body.text);
    await context.store.workers.changeSecrets(account, script.name, { put: [secret], delete: [], ...origin(context) });
    return { result: { name: secret.name, type: 'secret_text' as const } };
  },

  getWorkerSecret: async (context) => {
    const { account, script } = await existingScript(context);
    const secrets = (await context.store.workers.listSecrets(account, script.name)) ?? [];
    const found = secrets.find((secret) => secret.name === context.params.secret_name);
    if (!found) throw ApiError.of(404, WorkerCodes.scriptNotFound, `Secret ${context.params.secret_name} of ${script.name} does not exist.`);
    return { result: found };
  },

  deleteWorkerSecret: async (context) => {
    const { account, script } = await existingScript(context);
    await context.store.workers.changeSecrets(account, script.name, { put: [], delete: [context.params.secret_name], ...origin(context) });
    return { result: null };
  },

  updateWorkerSecrets: async (context) => {
    const { account, script } = await existingScript(context);
    const { secrets, version_tags } = context.body;
    if (version_tags !== undefined && Object.keys(version_tags).length > 0) throw badRequest('version_tags are not kept by this platform', WorkerCodes.invalid);
    const put: { name: string; text: string }[] = [];
    const remove: string[] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      if (secret === null) remove.push(secretNameOf(name));
      else {
        if (secret.name !== name) throw badRequest(`secrets.${name}: its name is ${secret.name}`, WorkerCodes.invalid);
        put.push(secretText(name, secret.text));
      }
    }
    await context.store.workers.changeSecrets(account, script.name, { put, delete: remove, ...origin(context) });
    const now = (await context.store.workers.listSecrets(account, script.name)) ?? [];
    return { result: Object.fromEntries(now.map((secret) => [secret.name, secret])) };
  },

  getWorkerSchedules: async (context) => {
    const { account, name } = await scriptPath(context);
    const schedules = await context.store.workers.listSchedules(account, name);
    if (schedules === null) throw workerNotFound(name);
    return { result: { schedules } };
  },

  updateWorkerSchedules: async (context) => {
    const { account, name } = await scriptPath(context);
    const crons = checkedCrons(context.body.map((schedule) => schedule.cron));
    return { result: { schedules: await context.store.workers.replaceSchedules(account, name, crons, MAX_CRON_TRIGGERS_PER_ACCOUNT) } };
  },

  getWorkerReferences: async (context) => {
    await existingScript(context);
    return { result: { services: { incoming: [], outgoing: [], pages_function: false }, durable_objects: [], dispatch_outbounds: [] } };
  },

  listWorkerTailProducers: async (context) => {
    await existingScript(context);
    return emptyList();
  },

  getWorkerService: async (context) => {
    const { script } = await existingScript(context);
    const dates = { created_on: script.created_on, modified_on: script.modified_on };
    return {
      result: {
        id: script.name,
        default_environment: { environment: 'production', ...dates, script: scriptView(script) },
        ...dates,
        environments: [{ environment: 'production', ...dates }],
      },
    };
  },

  deleteWorkerService: async (context) => {
    const { account, script } = await existingScript(context);
    await context.store.workers.deleteScript(account, script.name);
    context.tails?.removeScript(account, script.name);
    return { result: null };
  },

  getWorker: async (context) => {
    const { script } = await existingScript(context);
    return {
      result: {
        id: script.tag,
        name: script.name,
        created_on: script.created_on,
        updated_on: script.modified_on,
        logpush: script.settings.logpush,
        observability: script.settings.observability ?? { enabled: false },
        subdomain: { enabled: script.workers_dev, previews_enabled: script.previews_enabled },
        tags: script.settings.tags,
        tail_consumers: script.settings.tail_consumers ?? [],
      },
    };
  },

  getWorkersSubdomain: async (context) => {
    const account = context.params.account_id;
    await requireAccount(context, account);
    const subdomain = await context.store.workers.getSubdomain(account);
    if (subdomain === null) throw ApiError.of(404, WorkerCodes.scriptNotFound, 'This account has no workers.dev subdomain.');
    return { result: { subdomain } };
  },

  getWorkersSubdomainAvailability: async (context) => {
    const account = context.params.account_id;
    await requireAccount(context, account);
    const { subdomain } = context.params;
    const holder = await context.store.workers.subdomainHolder(subdomain);
    // As the platform answers wrangler's look-up before it claims one: an error either way
    // unless the account holds it already.
    if (holder === null) throw ApiError.of(404, WorkerCodes.subdomainUnclaimed, 'subdomain_unavailable');
    if (holder !== account) throw badRequest(`The workers.dev subdomain ${subdomain} belongs to another account.`, WorkerCodes.subdomainTaken);
    return { result: { subdomain } };
  },

  updateWorkersSubdomain: async (context) => {
    const account = context.params.account_id;
    await requireAccount(context, account);
    const { subdomain } = context.body;
    if (!SUBDOMAIN.test(subdomain)) {
      throw badRequest(`subdomain ${JSON.stringify(subdomain)}: use lower-case letters, digits and -, at most 63 characters, not starting or ending with -`, WorkerCodes.invalid);
    }
    return { result: { subdomain: await context.store.workers.setSubdomain(account, subdomain) } };
  },

  deleteWorkersSubdomain: async (context) => {
    const account = context.params.account_id;
    await requireAccount(context, account);
    await context.store.workers.deleteSubdomain(account);
    return { result: null };
  },

  listDurableObjectNamespaces: async (context) => {
    await requireAccount(context, context.params.account_id);
    return emptyList();
  },

  listKvNamespaces: async (context) => {
    await requireAccount(context, context.params.account_id);
    return emptyList();
  },
};
