/**
 * A worker upload checked before anything is stored: the name, the metadata, every module
 * (parsed with acorn, as the platform's runtime would refuse it at start-up), the bindings
 * (types this platform serves, buckets that exist), and the size limit. What passes becomes the
 * store's WorkerVersionInput; anything else is the platform's error, naming what is wrong.
 */
import { gzipSync } from 'node:zlib';
import { parse, type Node } from 'acorn';
import type { AccountBuckets } from '../../bucket';
import type { ModuleType, WorkerBindingInput, WorkerModuleInput, WorkerVersionInput } from '../../store';
import { checkAssetsMetadata } from './assets';
import { badRequest } from '../http/errors';
import { formMetadata, type FormPart } from './form';

export const WorkerCodes = {
  scriptNotFound: 10007,
  invalidName: 10016,
  routeExists: 10020,
  invalid: 10021,
  routeNotInZone: 10022,
  unparsableBody: 10026,
  tooLarge: 10027,
  subdomainTaken: 10031,
  /** The platform's answer for a subdomain no account holds ("subdomain_unavailable": there is none, so it can be claimed). */
  subdomainUnclaimed: 10032,
  bindingWithoutName: 10052,
  bindingTooLarge: 10054,
  latestNotDeployed: 10215,
  /** An account's cron triggers over the limit ("workers.api.error.too_many_crons"). */
  tooManyCrons: 10072,
  /** A cron expression the platform does not accept ("invalid cron string"). */
  invalidCron: 10100,
} as const;

/** The platform's limit on a worker's modules, gzip-compressed (paid plans). */
export const MAX_COMPRESSED_BYTES = 10 * 1024 * 1024;
/** The platform's limit on one environment variable or secret. */
export const MAX_BINDING_TEXT_BYTES = 5 * 1024;
const NAME = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Used when an upload names no compatibility date (workerd's oldest). */
export const DEFAULT_COMPATIBILITY_DATE = '2021-11-03';

/** Event handlers a module worker may export. */
const HANDLERS = ['fetch', 'scheduled', 'queue', 'email', 'tail', 'trace', 'test', 'alarm'];

const MODULE_TYPES: Record<string, ModuleType> = {
  'application/javascript+module': 'esm',
  'text/javascript+module': 'esm',
  'application/javascript': 'commonjs',
  'text/javascript': 'commonjs',
  'text/plain': 'text',
  'application/octet-stream': 'data',
  'application/wasm': 'wasm',
  'application/source-map': 'sourcemap',
};

/**
 * Metadata members and what happens to them: those read into the version, the script's
 * settings applied after it, and what has nothing to do here (Durable Objects' code update).
 */
const METADATA_MEMBERS = new Set([
  'main_module',
  'body_part',
  'bindings',
  'compatibility_date',
  'compatibility_flags',
  'keep_bindings',
  'keep_secrets',
  'annotations',
  'code_update_strategy',
  'usage_model',
  'logpush',
  'observability',
  'tags',
  'tail_consumers',
  'assets',
  'keep_assets',
]);

export function checkScriptName(name: string): void {
  if (!NAME.test(name)) {
    throw badRequest(
      `Invalid Worker name ${JSON.stringify(name)}: use lower-case letters, digits, - and _ (at most 63 characters, not starting or ending with -).`,
      WorkerCodes.invalidName,
    );
  }
}

export interface CheckedUpload {
  version: WorkerVersionInput;
  /** Script settings the metadata sets (applied after the version is stored). */
  settings: { observability?: { enabled: boolean } | null; tags?: string[] };
}

/** The form as a new version; `buckets` are the account's, to check r2_bucket bindings against. */
export async function checkUpload(
  parts: FormPart[],
  buckets: AccountBuckets,
  who: { source: string; author_email: string | null },
): Promise<CheckedUpload> {
  const metadata = formMetadata(parts);
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw badRequest('the upload has no metadata: send a `metadata` part (JSON) naming main_module, bindings and compatibility_date', WorkerCodes.invalid);
  }
  const meta = metadata as Record<string, unknown>;
  for (const key of Object.keys(meta)) {
    if (!METADATA_MEMBERS.has(key)) throw badRequest(`metadata.${key} is not served by this platform`, WorkerCodes.invalid);
  }
  if (meta.body_part !== undefined) {
    throw badRequest('service-worker uploads (metadata.body_part) are not served: upload an ES module worker (metadata.main_module)', WorkerCodes.invalid);
  }
  const modules = modulesOf(parts);
  // An assets-only worker (what wrangler uploads without `main`): no module, its assets alone.
  const assetsOnly = meta.main_module === undefined && modules.length === 0 && (meta.assets !== undefined || meta.keep_assets === true || meta.keep_assets === 'true');
  const assets = checkAssetsMetadata(meta.assets, meta.keep_assets, !assetsOnly);
  let main: WorkerModuleInput | undefined;
  let handlers: string[] = [];
  if (!assetsOnly) {
    if (typeof meta.main_module !== 'string' || meta.main_module === '') {
      throw badRequest('metadata.main_module is required: it names the module the worker starts from (or upload assets alone: metadata.assets and no module)', WorkerCodes.invalid);
    }
    main = modules.find((module) => module.name === meta.main_module);
    if (!main) throw badRequest(`No such module "${meta.main_module}": metadata.main_module names no part of the upload`, WorkerCodes.invalid);
    if (main.type !== 'esm') throw badRequest(`the main module ${main.name} must be an ES module (Content-Type: application/javascript+module), not ${main.type}`, WorkerCodes.invalid);
    handlers = ['fetch'];
    for (const module of modules) {
      const program = parseModule(module);
      if (module === main && program) handlers = exportedHandlers(program);
    }
  }
  const compressed = modules.reduce((sum, module) => sum + gzipSync(module.bytes).byteLength, 0);
  if (compressed > MAX_COMPRESSED_BYTES) {
    throw badRequest(
      `Your Worker exceeded the size limit of 10 MiB (gzip): its modules compress to ${(compressed / 1024 / 1024).toFixed(1)} MiB`,
      WorkerCodes.tooLarge,
    );
  }
  const compatibilityDate = meta.compatibility_date ?? DEFAULT_COMPATIBILITY_DATE;
  if (typeof compatibilityDate !== 'string' || !DATE.test(compatibilityDate) || Number.isNaN(Date.parse(compatibilityDate))) {
    throw badRequest(`metadata.compatibility_date must be a date written YYYY-MM-DD, not ${JSON.stringify(compatibilityDate)}`, WorkerCodes.invalid);
  }
  const flags = stringList(meta.compatibility_flags, 'compatibility_flags');
  const keep = stringList(meta.keep_bindings, 'keep_bindings');
  if (meta.keep_secrets === true) keep.push('secret_text');
  if (meta.usage_model !== undefined && meta.usage_model !== 'standard') {
    throw badRequest(`metadata.usage_model ${JSON.stringify(meta.usage_model)} is not served: only standard`, WorkerCodes.invalid);
  }
  if (meta.logpush === true) throw badRequest('metadata.logpush: Workers Logpush is not served by this platform', WorkerCodes.invalid);
  if (Array.isArray(meta.tail_consumers) && meta.tail_consumers.length > 0) {
    throw badRequest('metadata.tail_consumers: tail consumers are not served by this platform', WorkerCodes.invalid);
  }
  const annotations = meta.annotations === undefined ? {} : stringRecord(meta.annotations, 'annotations');
  const bindings = await checkBindings(meta.bindings, buckets);
  const assetsBinding = bindings.find((binding) => binding.type === 'assets');
  if (assetsBinding !== undefined && assets === undefined) throw badRequest(`binding ${assetsBinding.name} of type assets: the upload has no assets (metadata.assets or keep_assets)`, WorkerCodes.invalid);
  if (assetsOnly && bindings.length > 0) throw badRequest('an assets-only worker (no module) takes no bindings', WorkerCodes.invalid);
  if (bindings.filter((binding) => binding.type === 'assets').length > 1) throw badRequest('a worker has at most one binding of type assets', WorkerCodes.invalid);
  const settings: CheckedUpload['settings'] = {};
  if (meta.observability !== undefined) settings.observability = meta.observability as { enabled: boolean } | null;
  if (meta.tags !== undefined) settings.tags = stringList(meta.tags, 'tags');
  return {
    version: {
      main_module: main?.name ?? '',
      compatibility_date: compatibilityDate,
      compatibility_flags: flags,
      bindings,
      modules,
      keep_bindings: keep,
      annotations: { ...annotations, 'workers/triggered_by': annotations['workers/triggered_by'] ?? 'upload' },
      source: who.source,
      author_email: who.author_email,
      handlers,
      ...(assets === undefined ? {} : { assets }),
    },
    settings,
  };
}

function modulesOf(parts: FormPart[]): WorkerModuleInput[] {
  const modules: WorkerModuleInput[] = [];
  for (const part of parts) {
    if (part.name === 'metadata' || part.name.startsWith('metadata[')) continue;
    const name = part.filename ?? part.name;
    const mediaType = (part.contentType ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase();
    const type = MODULE_TYPES[mediaType];
    if (type === undefined) throw badRequest(`module ${name}: Content-Type ${mediaType} is not a module type this platform serves`, WorkerCodes.invalid);
    if (modules.some((module) => module.name === name)) throw badRequest(`module ${name} is uploaded twice`, WorkerCodes.invalid);
    modules.push({ name, type, bytes: new Uint8Array(part.bytes) });
  }
  return modules;
}

/** A JavaScript module parsed as the runtime would (ES2024 and later, module or script). */
function parseModule(module: WorkerModuleInput): Node | null {
  if (module.type !== 'esm' && module.type !== 'commonjs') return null;
  const source = Buffer.from(module.bytes).toString('utf8');
  try {
    return parse(source, { ecmaVersion: 'latest', sourceType: module.type === 'esm' ? 'module' : 'script', allowHashBang: true });
  } catch (error) {
    throw badRequest(`Uncaught SyntaxError: ${(error as Error).message} in ${module.name}`, WorkerCodes.invalid);
  }
}

/** The handlers a default-exported object names (`fetch`, `scheduled`...), else `fetch`. */
function exportedHandlers(program: Node): string[] {
  const body = (program as unknown as { body: { type: string; declaration?: { type: string; properties?: { key?: { name?: string; value?: string } }[] } }[] }).body;
  const exported = body.find((node) => node.type === 'ExportDefaultDeclaration')?.declaration;
  if (exported?.type !== 'ObjectExpression') return ['fetch'];
  const names = (exported.properties ?? []).map((property) => property.key?.name ?? property.key?.value).filter((name): name is string => typeof name === 'string');
  const handlers = names.filter((name) => HANDLERS.includes(name));
  return handlers.length > 0 ? handlers : ['fetch'];
}

async function checkBindings(value: unknown, buckets: AccountBuckets): Promise<WorkerBindingInput[]> {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw badRequest('metadata.bindings must be a list', WorkerCodes.invalid);
  const seen = new Set<string>();
  const bindings: WorkerBindingInput[] = [];
  for (const [index, binding] of value.entries()) {
    if (binding === null || typeof binding !== 'object') throw badRequest(`metadata.bindings[${index}] must be an object`, WorkerCodes.invalid);
    const { type, name } = binding as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') throw badRequest(`metadata.bindings[${index}] has no name`, WorkerCodes.bindingWithoutName);
    if (seen.has(name)) throw badRequest(`binding ${name} is declared twice`, WorkerCodes.invalid);
    seen.add(name);
    bindings.push(await checkBinding(binding as Record<string, unknown>, String(type), name, buckets));
  }
  return bindings;
}

async function checkBinding(binding: Record<string, unknown>, type: string, name: string, buckets: AccountBuckets): Promise<WorkerBindingInput> {
  const only = (allowed: string[]) => {
    const extra = Object.keys(binding).filter((key) => !['type', 'name', ...allowed].includes(key));
    if (extra.length > 0) throw badRequest(`binding ${name} of type ${type}: ${extra.join(', ')} is not a member of this binding type`, WorkerCodes.invalid);
  };
  switch (type) {
    case 'plain_text':
    case 'secret_text': {
      only(['text']);
      if (typeof binding.text !== 'string') throw badRequest(`binding ${name} of type ${type} needs a text value`, WorkerCodes.invalid);
      if (Buffer.byteLength(binding.text) > MAX_BINDING_TEXT_BYTES) {
        throw badRequest(`binding ${name}: an environment variable or secret is at most 5 KiB`, WorkerCodes.bindingTooLarge);
      }
      return { type, name, text: binding.text };
    }
    case 'json':
      only(['json']);
      if (!('json' in binding)) throw badRequest(`binding ${name} of type json needs a json value`, WorkerCodes.invalid);
      if (Buffer.byteLength(JSON.stringify(binding.json)) > MAX_BINDING_TEXT_BYTES) {
        throw badRequest(`binding ${name}: an environment variable is at most 5 KiB`, WorkerCodes.bindingTooLarge);
      }
      return { type, name, json: binding.json };
    case 'r2_bucket': {
      only(['bucket_name', 'jurisdiction']);
      const bucket = binding.bucket_name;
      const jurisdiction = binding.jurisdiction;
      if (typeof bucket !== 'string' || bucket === '') throw badRequest(`binding ${name} of type r2_bucket needs a bucket_name`, WorkerCodes.invalid);
      if (jurisdiction !== undefined && jurisdiction !== 'eu' && jurisdiction !== 'fedramp' && jurisdiction !== 'default') {
        throw badRequest(`binding ${name}: jurisdiction ${JSON.stringify(jurisdiction)} is not one of eu, fedramp`, WorkerCodes.invalid);
      }
      try {
        await buckets.get(bucket, jurisdiction === undefined || jurisdiction === 'default' ? {} : { jurisdiction });
      } catch {
        throw badRequest(`binding ${name} of type r2_bucket: bucket ${bucket} does not exist in the account${jurisdiction ? ` (jurisdiction ${jurisdiction})` : ''}`, WorkerCodes.invalid);
      }
      return { type, name, bucket_name: bucket, ...(jurisdiction === undefined || jurisdiction === 'default' ? {} : { jurisdiction }) };
    }
    case 'assets':
      only([]);
      return { type, name };
    default:
      throw badRequest(`binding ${name} of type ${type} is not served by this platform (served: plain_text, json, r2_bucket, secret_text, assets)`, WorkerCodes.invalid);
  }
}

function stringList(value: unknown, member: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw badRequest(`metadata.${member} must be a list of strings`, WorkerCodes.invalid);
  return [...(value as string[])];
}

function stringRecord(value: unknown, member: string): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((item) => typeof item !== 'string')) {
    throw badRequest(`metadata.${member} must be an object of strings`, WorkerCodes.invalid);
  }
  return { ...(value as Record<string, string>) };
}

