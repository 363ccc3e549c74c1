/**
 * Scripts, their versions, deployments and secrets. A version is immutable; what serves is the
 * newest deployment. Every write changes the deployed state's marker in its own transaction.
 */
import { randomUUID } from 'node:crypto';
import { fromJson, toFlag, toJson } from '../codecs';
import { InvalidInputError, NotFoundError, WorkerAssetsError, WorkerVersionNotDeployedError } from '../errors';
import { newId } from '../ids';
import type { WorkersRepository } from '../store';
import type { WriteContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';
import { attachVersionAssets, copyVersionAssets, dropScriptAssets } from './assets';
import { markChanged } from './changes';
import {
  DEFAULT_SETTINGS,
  currentDeploymentRow,
  latestVersionRow,
  readScript,
  scriptRow,
  sha256Hex,
  toDeployment,
  toVersion,
  type Db,
  type StoredBinding,
} from './rows';
import { secretPlace, type SecretBox } from './secret-box';
import type { DeploymentInput, WorkerDeployment, WorkerModuleRef, WorkerVersion, WorkerVersionInput } from '../worker-types';
import { workerScriptLock } from './locks';

export type ScriptOperations = Pick<
  WorkersRepository,
  | 'getScript'
  | 'listScripts'
  | 'uploadVersion'
  | 'getVersion'
  | 'listVersions'
  | 'versionModules'
  | 'createDeployment'
  | 'listDeployments'
  | 'getDeployment'
  | 'listSecrets'
  | 'changeSecrets'
  | 'deleteScript'
  | 'updateScriptSettings'
  | 'setWorkersDev'
>;

export function scriptOperations(executor: Executor, box: () => SecretBox): ScriptOperations {
  const locked = <T>(accountId: string, name: string, work: (ctx: WriteContext) => Promise<T>) =>
    executor.write(async (ctx) => {
      await ctx.lock(workerScriptLock(accountId, name));
      return work(ctx);
    });
  /** The script row a write needs; NotFoundError when there is none. */
  const existing = async (db: Db, accountId: string, name: string) => {
    const row = await scriptRow(db, accountId, name);
    if (row === undefined) throw new NotFoundError('worker_script', name);
    return row;
  };

  return {
    getScript: (accountId, name) => executor.read((ctx) => readScript(ctx.db, accountId, name)),

    listScripts: (accountId) =>
      executor.read(async (ctx) => {
        const names = await ctx.db.selectFrom('worker_scripts').select('name').where('account_id', '=', accountId).orderBy('name').execute();
        const scripts = await Promise.all(names.map(({ name }) => readScript(ctx.db, accountId, name)));
        return scripts.filter((script) => script !== null);
      }),

    uploadVersion: (accountId, name, input, options) =>
      locked(accountId, name, async (ctx) => {
        let row = await scriptRow(ctx.db, accountId, name);
        const created = row === undefined;
        if (row === undefined) {
          if (!options.create) throw new NotFoundError('worker_script', name);
          const account = await ctx.db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
          if (account === undefined) throw new NotFoundError('account', accountId);
          row = {
            account_id: accountId,
            name,
            tag: newId(),
            workers_dev: toFlag(false),
            previews_enabled: toFlag(false),
            settings: toJson(DEFAULT_SETTINGS),
            last_version: 0,
            created_on: ctx.now,
            modified_on: ctx.now,
          };
          await ctx.db.insertInto('worker_scripts').values(row).execute();
        }
        const kept = await keptBindings(ctx.db, accountId, name, input.keep_bindings, input.bindings.map((binding) => binding.name));
        const bindings: StoredBinding[] = [
          ...input.bindings.map((binding): StoredBinding =>
            binding.type === 'secret_text' ? { type: 'secret_text', name: binding.name, sealed: box().seal(binding.text, secretPlace(accountId, name, binding.name)) } : binding,
          ),
          ...kept,
        ];
        // An assets binding kept from the serving version (keep_bindings) needs assets of this version too.
        if (input.assets === undefined && bindings.some((binding) => binding.type === 'assets')) {
          throw new WorkerAssetsError('upload', 'binding of type assets: the upload has no assets (metadata.assets or keep_assets)');
        }
        const modules: WorkerModuleRef[] = [];
        for (const module of input.modules) {
          const sha256 = sha256Hex(module.bytes);
          modules.push({ name: module.name, type: module.type, sha256, size: module.bytes.byteLength });
          await ctx.db
            .insertInto('worker_module_contents')
            .values({ account_id: accountId, sha256, size: module.bytes.byteLength, content: Buffer.from(module.bytes).toString('base64') })
            .onConflict((conflict) => conflict.columns(['account_id', 'sha256']).doNothing())
            .execute();
        }
        const version = await insertVersion(ctx, accountId, name, row.last_version + 1, {
          main_module: input.main_module,
          compatibility_date: input.compatibility_date,
          compatibility_flags: input.compatibility_flags,
          bindings,
          modules,
          annotations: input.annotations,
          source: input.source,
          author_email: input.author_email,
          handlers: input.handlers,
          etag: sha256Hex(Buffer.from(toJson({ modules, main: input.main_module }))),
        });
        if (input.assets !== undefined) {
          const latestVersionId = created ? null : (await latestVersionRow(ctx.db, accountId, name, row.last_version)).id;
          await attachVersionAssets(ctx, box, { accountId, name, versionId: version.id, latestVersionId }, input.assets);
        }
        const deployment = options.deploy
          ? await insertDeployment(ctx, accountId, name, {
              versions: [{ version_id: version.id, percentage: 100 }],
              annotations: {},
              source: input.source,
              author_email: input.author_email,
            })
          : null;
        await markChanged(ctx);
        return { script: (await readScript(ctx.db, accountId, name))!, version, deployment, created };
      }),

    getVersion: (accountId, name, versionId) =>
      executor.read(async (ctx) => {
        const row = await ctx.db
          .selectFrom('worker_versions')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('script_name', '=', name)
          .where('id', '=', versionId)
          .executeTakeFirst();
        return row === undefined ? null : toVersion(row);
      }),

    listVersions: (accountId, name) =>
      executor.read(async (ctx) => {
        if ((await scriptRow(ctx.db, accountId, name)) === undefined) return null;
        const rows = await ctx.db
          .selectFrom('worker_versions')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('script_name', '=', name)
          .orderBy('number', 'desc')
          .execute();
        return rows.map(toVersion);
      }),

    versionModules: (accountId, name, versionId) =>
      executor.read(async (ctx) => {
        const row = await ctx.db
          .selectFrom('worker_versions')
          .select('modules')
          .where('account_id', '=', accountId)
          .where('script_name', '=', name)
          .where('id', '=', versionId)
          .executeTakeFirst();
        if (row === undefined) return null;
        const refs = fromJson<WorkerModuleRef[]>(row.modules);
        return Promise.all(refs.map(async (ref) => ({ ...ref, bytes: await moduleBytes(ctx.db, accountId, ref.sha256) })));
      }),

    createDeployment: (accountId, name, input) =>
      locked(accountId, name, async (ctx) => {
        await existing(ctx.db, accountId, name);
        await checkDeployable(ctx.db, accountId, name, input);
        const deployment = await insertDeployment(ctx, accountId, name, input);
        await markChanged(ctx);
        return deployment;
      }),

    listDeployments: (accountId, name) =>
      executor.read(async (ctx) => {
        if ((await scriptRow(ctx.db, accountId, name)) === undefined) return null;
        const rows = await ctx.db
          .selectFrom('worker_deployments')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('script_name', '=', name)
          .orderBy('number', 'desc')
          .execute();
        return rows.map(toDeployment);
      }),

    getDeployment: (accountId, name, id) =>
      executor.read(async (ctx) => {
        const row = await ctx.db
          .selectFrom('worker_deployments')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('script_name', '=', name)
          .where('id', '=', id)
          .executeTakeFirst();
        return row === undefined ? null : toDeployment(row);
      }),

    listSecrets: (accountId, name) =>
      executor.read(async (ctx) => {
        const serving = await servingVersion(ctx.db, accountId, name);
        if (serving === null) return null;
        return serving.bindings.filter((binding) => binding.type === 'secret_text').map(({ name: secret }) => ({ name: secret, type: 'secret_text' as const }));
      }),

    changeSecrets: (accountId, name, change) =>
      locked(accountId, name, async (ctx) => {
        const script = await existing(ctx.db, accountId, name);
        const latest = await latestVersionRow(ctx.db, accountId, name, script.last_version);
        const deployment = await currentDeploymentRow(ctx.db, accountId, name);
        const shares = deployment === undefined ? [] : fromJson<{ version_id: string; percentage: number }[]>(deployment.versions);
        if (shares.length !== 1 || shares[0]!.version_id !== latest.id) throw new WorkerVersionNotDeployedError(name);
        if (fromJson<WorkerModuleRef[]>(latest.modules).length === 0) {
          throw new WorkerAssetsError('upload', `${name} serves static assets only: it has no worker to give secrets to`);
        }
        const base = fromJson<StoredBinding[]>(latest.bindings);
        for (const gone of change.delete) {
          if (!base.some((binding) => binding.type === 'secret_text' && binding.name === gone)) throw new NotFoundError('worker_secret', gone);
        }
        for (const secret of change.put) {
          const clash = base.find((binding) => binding.name === secret.name && binding.type !== 'secret_text');
          if (clash) throw new InvalidInputError(`binding ${secret.name} of script ${name} is a ${clash.type} binding, not a secret: choose another name`);
        }
        const names = new Set([...change.put.map((secret) => secret.name), ...change.delete]);
        const bindings: StoredBinding[] = [
          ...base.filter((binding) => !names.has(binding.name)),
          ...change.put.map((secret): StoredBinding => ({ type: 'secret_text', name: secret.name, sealed: box().seal(secret.text, secretPlace(accountId, name, secret.name)) })),
        ];
        const version = await insertVersion(ctx, accountId, name, script.last_version + 1, {
          main_module: latest.main_module,
          compatibility_date: latest.compatibility_date,
          compatibility_flags: fromJson<string[]>(latest.compatibility_flags),
          modules: fromJson<WorkerModuleRef[]>(latest.modules),
          handlers: fromJson<string[]>(latest.handlers),
          etag: latest.etag,
          bindings,
          annotations: { 'workers/triggered_by': 'secret' },
          source: change.source,
          author_email: change.author_email,
        });
        await copyVersionAssets(ctx, latest.id, version.id);
        await insertDeployment(ctx, accountId, name, {
          versions: [{ version_id: version.id, percentage: 100 }],
          annotations: { 'workers/triggered_by': 'secret' },
          source: change.source,
          author_email: change.author_email,
        });
        await markChanged(ctx);
        return version;
      }),

    deleteScript: (accountId, name) =>
      locked(accountId, name, async (ctx) => {
        await existing(ctx.db, accountId, name);
        await dropScriptAssets(ctx, accountId, name);
        await ctx.db.deleteFrom('worker_deployments').where('account_id', '=', accountId).where('script_name', '=', name).execute();
        await ctx.db.deleteFrom('worker_schedules').where('account_id', '=', accountId).where('script_name', '=', name).execute();
        await ctx.db.deleteFrom('worker_versions').where('account_id', '=', accountId).where('script_name', '=', name).execute();
        await ctx.db.deleteFrom('worker_scripts').where('account_id', '=', accountId).where('name', '=', name).execute();
        // Routes of the account's zones that ran it no longer run anything.
        const zones = ctx.db.selectFrom('zones').select('id').where('account_id', '=', accountId);
        await ctx.db.deleteFrom('worker_routes').where('script', '=', name).where('zone_id', 'in', zones).execute();
        // Module bytes no version of the account names any more.
        const used = new Set<string>();
        for (const { modules } of await ctx.db.selectFrom('worker_versions').select('modules').where('account_id', '=', accountId).execute()) {
          for (const ref of fromJson<WorkerModuleRef[]>(modules)) used.add(ref.sha256);
        }
        const stored = await ctx.db.selectFrom('worker_module_contents').select('sha256').where('account_id', '=', accountId).execute();
        const unused = stored.map((row) => row.sha256).filter((sha) => !used.has(sha));
        if (unused.length > 0) await ctx.db.deleteFrom('worker_module_contents').where('account_id', '=', accountId).where('sha256', 'in', unused).execute();
        await markChanged(ctx);
      }),

    updateScriptSettings: (accountId, name, patch) =>
      locked(accountId, name, async (ctx) => {
        const row = await existing(ctx.db, accountId, name);
        const settings = { ...fromJson<object>(row.settings), ...patch };
        await ctx.db
          .updateTable('worker_scripts')
          .set({ settings: toJson(settings), modified_on: ctx.now })
          .where('account_id', '=', accountId)
          .where('name', '=', name)
          .execute();
        return (await readScript(ctx.db, accountId, name))!;
      }),

    setWorkersDev: (accountId, name, switches) =>
      locked(accountId, name, async (ctx) => {
        const row = await existing(ctx.db, accountId, name);
        await ctx.db
          .updateTable('worker_scripts')
          .set({
            workers_dev: toFlag(switches.enabled),
            previews_enabled: toFlag(switches.previews_enabled ?? row.previews_enabled !== 0),
            modified_on: ctx.now,
          })
          .where('account_id', '=', accountId)
          .where('name', '=', name)
          .execute();
        await markChanged(ctx);
        return (await readScript(ctx.db, accountId, name))!;
      }),
  };
}

interface VersionFields {
  main_module: string;
  compatibility_date: string;
  compatibility_flags: string[];
  bindings: StoredBinding[];
  modules: WorkerModuleRef[];
  annotations: Record<string, string>;
  source: string;
  author_email: string | null;
  handlers: string[];
  etag: string;
}

async function insertVersion(ctx: WriteContext, accountId: string, name: string, number: number, fields: VersionFields): Promise<WorkerVersion> {
  const row = {
    id: randomUUID(),
    account_id: accountId,
    script_name: name,
    number,
    main_module: fields.main_module,
    compatibility_date: fields.compatibility_date,
    compatibility_flags: toJson(fields.compatibility_flags),
    bindings: toJson(fields.bindings),
    modules: toJson(fields.modules),
    annotations: toJson(fields.annotations),
    source: fields.source,
    author_email: fields.author_email,
    etag: fields.etag,
    handlers: toJson(fields.handlers),
    created_on: ctx.now,
  };
  await ctx.db.insertInto('worker_versions').values(row).execute();
  await ctx.db
    .updateTable('worker_scripts')
    .set({ last_version: number, modified_on: ctx.now })
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .execute();
  return toVersion(row);
}

async function insertDeployment(ctx: WriteContext, accountId: string, name: string, input: DeploymentInput): Promise<WorkerDeployment> {
  const last = await currentDeploymentRow(ctx.db, accountId, name);
  const row = {
    id: randomUUID(),
    account_id: accountId,
    script_name: name,
    number: (last?.number ?? 0) + 1,
    strategy: 'percentage',
    versions: toJson(input.versions),
    annotations: toJson(input.annotations),
    source: input.source,
    author_email: input.author_email,
    created_on: ctx.now,
  };
  await ctx.db.insertInto('worker_deployments').values(row).execute();
  return toDeployment(row);
}

/** A deployment names versions of this script, each once, with percentages adding up to 100. */
async function checkDeployable(db: Db, accountId: string, name: string, input: DeploymentInput): Promise<void> {
  if (input.versions.length === 0 || input.versions.length > 2) {
    throw new InvalidInputError(`a deployment names one or two versions, not ${input.versions.length}`);
  }
  const ids = input.versions.map((version) => version.version_id);
  if (new Set(ids).size !== ids.length) throw new InvalidInputError('a deployment names each version once');
  const total = input.versions.reduce((sum, version) => sum + version.percentage, 0);
  if (Math.abs(total - 100) > 1e-9) throw new InvalidInputError(`the percentages of a deployment add up to 100, not ${total}`);
  const found = await db
    .selectFrom('worker_versions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('script_name', '=', name)
    .where('id', 'in', ids)
    .execute();
  const missing = ids.filter((id) => !found.some((row) => row.id === id));
  if (missing.length > 0) throw new NotFoundError('worker_version', missing[0]!);
}

/**
 * The bindings of the version serving the script (the current deployment's largest share; the
 * newest version before any deployment); null when the script does not exist.
 */
async function servingVersion(db: Db, accountId: string, name: string) {
  const script = await scriptRow(db, accountId, name);
  if (script === undefined || script.last_version === 0) return null;
  const deployment = await currentDeploymentRow(db, accountId, name);
  const versions = deployment === undefined ? [] : fromJson<{ version_id: string; percentage: number }[]>(deployment.versions);
  const chosen = [...versions].sort((a, b) => b.percentage - a.percentage)[0];
  const row =
    chosen === undefined
      ? await latestVersionRow(db, accountId, name, script.last_version)
      : await db.selectFrom('worker_versions').selectAll().where('id', '=', chosen.version_id).executeTakeFirstOrThrow();
  return { bindings: fromJson<StoredBinding[]>(row.bindings) };
}

/** Bindings of the serving version whose types the upload keeps and whose names it does not send. */
async function keptBindings(db: Db, accountId: string, name: string, types: readonly string[], sent: string[]): Promise<StoredBinding[]> {
  if (types.length === 0) return [];
  const serving = await servingVersion(db, accountId, name);
  if (serving === null) return [];
  return serving.bindings.filter((binding) => types.includes(binding.type) && !sent.includes(binding.name));
}

export async function moduleBytes(db: Db, accountId: string, sha256: string): Promise<Uint8Array> {
  const row = await db
    .selectFrom('worker_module_contents')
    .select('content')
    .where('account_id', '=', accountId)
    .where('sha256', '=', sha256)
    .executeTakeFirstOrThrow();
  return new Uint8Array(Buffer.from(row.content, 'base64'));
}
