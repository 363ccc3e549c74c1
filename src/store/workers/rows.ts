/** Rows of the workers tables and the records they stand for. */
import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import { fromFlag, fromJson } from '../codecs';
import type { WorkerDeploymentsTable, WorkerScriptsTable, WorkerVersionsTable } from '../schema/tables';
import type { ReadContext } from '../transaction/context';
import type {
  WorkerBinding,
  WorkerDeployment,
  WorkerModuleRef,
  WorkerScript,
  WorkerScriptSettings,
  WorkerVersion,
} from '../worker-types';

/** A binding as stored: a secret's value sealed. */
export type StoredBinding = Exclude<WorkerBinding, { type: 'secret_text' }> | { type: 'secret_text'; name: string; sealed: string };

export type Db = ReadContext['db'];

export function toVersion(row: Selectable<WorkerVersionsTable>): WorkerVersion {
  return {
    id: row.id,
    script_name: row.script_name,
    number: row.number,
    main_module: row.main_module,
    compatibility_date: row.compatibility_date,
    compatibility_flags: fromJson(row.compatibility_flags),
    bindings: fromJson<StoredBinding[]>(row.bindings).map(withoutSecret),
    modules: fromJson<WorkerModuleRef[]>(row.modules),
    annotations: fromJson(row.annotations),
    source: row.source,
    author_email: row.author_email,
    etag: row.etag,
    handlers: fromJson(row.handlers),
    created_on: row.created_on,
  };
}

function withoutSecret(binding: StoredBinding): WorkerBinding {
  return binding.type === 'secret_text' ? { type: 'secret_text', name: binding.name } : binding;
}

export function toDeployment(row: Selectable<WorkerDeploymentsTable>): WorkerDeployment {
  return {
    id: row.id,
    script_name: row.script_name,
    strategy: 'percentage',
    versions: fromJson(row.versions),
    annotations: fromJson(row.annotations),
    source: row.source,
    author_email: row.author_email,
    created_on: row.created_on,
  };
}

export function toScript(row: Selectable<WorkerScriptsTable>, latest: WorkerVersion, deployment: WorkerDeployment | null): WorkerScript {
  return {
    name: row.name,
    tag: row.tag,
    workers_dev: fromFlag(row.workers_dev),
    previews_enabled: fromFlag(row.previews_enabled),
    settings: fromJson<WorkerScriptSettings>(row.settings),
    created_on: row.created_on,
    modified_on: row.modified_on,
    deployment,
    latest,
  };
}

export const DEFAULT_SETTINGS: WorkerScriptSettings = { logpush: false, observability: null, tags: [], tail_consumers: null };

export async function scriptRow(db: Db, accountId: string, name: string) {
  return db.selectFrom('worker_scripts').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
}

export async function latestVersionRow(db: Db, accountId: string, name: string, number: number) {
  return db
    .selectFrom('worker_versions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('script_name', '=', name)
    .where('number', '=', number)
    .executeTakeFirstOrThrow();
}

export async function currentDeploymentRow(db: Db, accountId: string, name: string) {
  return db
    .selectFrom('worker_deployments')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('script_name', '=', name)
    .orderBy('number', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The script with its newest version and the deployment serving now; null when there is none. */
export async function readScript(db: Db, accountId: string, name: string): Promise<WorkerScript | null> {
  const row = await scriptRow(db, accountId, name);
  if (row === undefined) return null;
  const [latest, deployment] = await Promise.all([latestVersionRow(db, accountId, name, row.last_version), currentDeploymentRow(db, accountId, name)]);
  return toScript(row, toVersion(latest), deployment === undefined ? null : toDeployment(deployment));
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
