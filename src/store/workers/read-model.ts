/**
 * What the runtime needs to serve what is deployed, read in one snapshot: per account its
 * workers.dev subdomain and scripts; per script its workers.dev switch and the current
 * deployment's versions with their modules (bytes), compatibility and bindings (secrets
 * opened); per zone its name and routes. `changeMarker` is one row read: poll it, and take a
 * new snapshot when it moved.
 */
import { fromFlag, fromJson } from '../codecs';
import type { Executor } from '../transaction/executor';
import { readAssetContent, readVersionAssets } from './assets';
import { changeMarker } from './changes';
import type { Db, StoredBinding } from './rows';
import { SECRETS_KEY_FILE, SECRETS_KEY_VARIABLE, SecretSealError, secretPlace, sealedKeyId, type SecretBox } from './secret-box';
import type { DeployedBinding, DeployedModule, DeployedScript, DeployedWorkers, DeployedWorkersReader, DeployedZone, DeploymentVersion, WorkerModuleRef } from '../worker-types';

/** Module bytes never change for a hash: kept across snapshots, dropped once no snapshot names them. */
type ModuleCache = Map<string, Uint8Array>;

export function deployedWorkersReader(executor: Executor, box: () => SecretBox): DeployedWorkersReader {
  let modules: ModuleCache = new Map();
  return {
    changeMarker: () => executor.readStatement(({ db }) => changeMarker(db)),
    snapshot: async () => {
      const next: ModuleCache = new Map();
      const snapshot = await executor.read(async ({ db }) => readSnapshot(db, box, modules, next));
      modules = next;
      return snapshot;
    },
    claimScheduledRun: claimScheduledRun(executor),
    assetContent: (accountId, hash) => executor.readStatement(({ db }) => readAssetContent(db, accountId, hash)),
    checkSecretsKey: async () => {
      const foreign = await executor.read(({ db }) => foreignKeyIds(db, box));
      if (foreign.length === 0) return;
      throw new SecretSealError(
        `the store holds workers' secrets sealed under another key (key id ${foreign.join(', ')}; this platform's key is ${box().keyId}): ` +
          `give it the key they were sealed with (${SECRETS_KEY_VARIABLE}, or the ${SECRETS_KEY_FILE} file of the data directory they were sealed in)`,
      );
    },
  };
}

/** Ids of the keys that sealed stored secrets, other than the store's own. */
async function foreignKeyIds(db: Db, box: () => SecretBox): Promise<string[]> {
  const rows = await db.selectFrom('worker_versions').select('bindings').where('bindings', 'like', '%"sealed":%').execute();
  if (rows.length === 0) return [];
  const own = box().keyId;
  const foreign = new Set<string>();
  for (const row of rows) {
    for (const binding of fromJson<StoredBinding[]>(row.bindings)) {
      if (binding.type !== 'secret_text') continue;
      const keyId = sealedKeyId(binding.sealed);
      if (keyId !== own) foreign.add(keyId ?? '(damaged)');
    }
  }
  return [...foreign].sort();
}

async function readSnapshot(db: Db, box: () => SecretBox, cached: ModuleCache, kept: ModuleCache): Promise<DeployedWorkers> {
  const marker = await changeMarker(db);
  const subdomainRows = await db.selectFrom('worker_subdomains').select(['account_id', 'subdomain']).execute();
  const scriptRows = await db.selectFrom('worker_scripts').select(['account_id', 'name', 'tag', 'workers_dev']).orderBy('account_id').orderBy('name').execute();
  const scripts: DeployedScript[] = [];
  for (const script of scriptRows) {
    const deployment = await db
      .selectFrom('worker_deployments')
      .select(['id', 'versions'])
      .where('account_id', '=', script.account_id)
      .where('script_name', '=', script.name)
      .orderBy('number', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (deployment === undefined) continue;
    const shares = fromJson<DeploymentVersion[]>(deployment.versions);
    const versions = [];
    for (const share of shares) {
      const row = await db.selectFrom('worker_versions').selectAll().where('id', '=', share.version_id).executeTakeFirstOrThrow();
      const refs = fromJson<WorkerModuleRef[]>(row.modules);
      const modules: DeployedModule[] = [];
      for (const ref of refs) {
        const key = `${script.account_id}/${ref.sha256}`;
        let bytes = kept.get(key) ?? cached.get(key);
        if (bytes === undefined) {
          const content = await db
            .selectFrom('worker_module_contents')
            .select('content')
            .where('account_id', '=', script.account_id)
            .where('sha256', '=', ref.sha256)
            .executeTakeFirstOrThrow();
          bytes = new Uint8Array(Buffer.from(content.content, 'base64'));
        }
        kept.set(key, bytes);
        modules.push({ name: ref.name, type: ref.type, sha256: ref.sha256, bytes });
      }
      const bindings = fromJson<StoredBinding[]>(row.bindings).map((binding): DeployedBinding =>
        binding.type === 'secret_text'
          ? { type: 'secret_text', name: binding.name, text: box().open(binding.sealed, secretPlace(script.account_id, script.name, binding.name)) }
          : binding,
      );
      const assets = await readVersionAssets(db, row.id);
      versions.push({
        ...share,
        version: {
          id: row.id,
          number: row.number,
          main_module: row.main_module,
          compatibility_date: row.compatibility_date,
          compatibility_flags: fromJson<string[]>(row.compatibility_flags),
          modules,
          bindings,
          ...(assets === undefined ? {} : { assets }),
        },
      });
    }
    const cronRows = await db
      .selectFrom('worker_schedules')
      .select('cron')
      .where('account_id', '=', script.account_id)
      .where('script_name', '=', script.name)
      .orderBy('position')
      .execute();
    const crons = cronRows.map((row) => row.cron);
    scripts.push({ account_id: script.account_id, name: script.name, tag: script.tag, workers_dev: fromFlag(script.workers_dev), deployment_id: deployment.id, versions, crons });
  }
  const routeRows = await db
    .selectFrom('worker_routes')
    .innerJoin('zones', 'zones.id', 'worker_routes.zone_id')
    .select(['worker_routes.id', 'worker_routes.zone_id', 'worker_routes.pattern', 'worker_routes.script', 'zones.name as zone_name', 'zones.account_id'])
    .orderBy('worker_routes.zone_id')
    .orderBy('worker_routes.pattern')
    .execute();
  const zones = new Map<string, DeployedZone>();
  for (const row of routeRows) {
    let zone = zones.get(row.zone_id);
    if (zone === undefined) zones.set(row.zone_id, (zone = { id: row.zone_id, name: row.zone_name, account_id: row.account_id, routes: [] }));
    zone.routes.push({ id: row.id, pattern: row.pattern, script: row.script });
  }
  return {
    marker,
    subdomains: Object.fromEntries(subdomainRows.map((row) => [row.account_id, row.subdomain])),
    scripts,
    zones: [...zones.values()],
  };
}

/** How long a claim is kept: far longer than any instance's clock may be off or late. */
const CLAIM_KEPT_MS = 24 * 60 * 60 * 1000;

/** The claim of one run; false when another caller (another instance) claimed it first. */
export function claimScheduledRun(executor: Executor) {
  return (accountId: string, script: string, cron: string, minute: number): Promise<boolean> =>
    executor.write(async (ctx) => {
      const inserted = await ctx.db
        .insertInto('worker_schedule_runs')
        .values({ account_id: accountId, script_name: script, cron, minute: new Date(minute).toISOString(), claimed_on: ctx.now })
        .onConflict((conflict) => conflict.columns(['account_id', 'script_name', 'cron', 'minute']).doNothing())
        .executeTakeFirst();
      const claimed = Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
      // Old claims go as new ones come (by the minute's index: usually nothing to find); no run
      // is ever claimed that far back.
      if (claimed) await ctx.db.deleteFrom('worker_schedule_runs').where('minute', '<', new Date(minute - CLAIM_KEPT_MS).toISOString()).execute();
      return claimed;
    });
}
