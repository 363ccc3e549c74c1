/**
 * Static assets of workers: upload sessions (the manifest announced, the hashes the account does
 * not hold yet asked for in buckets), their contents kept once per account by hash, and each
 * version's manifest and configuration. Tokens are signed JWTs (asset-tokens.ts); a session's
 * manifest is the one a completion token brings to a version.
 */
import { randomUUID } from 'node:crypto';
import { formatTimestamp, parseTimestamp } from '../clock';
import { fromJson, toJson } from '../codecs';
import { NotFoundError, WorkerAssetsError } from '../errors';
import type { WorkersRepository } from '../store';
import type { WriteContext } from '../transaction/context';
import type { Executor } from '../transaction/executor';
import type { AssetManifest, WorkerAssetsConfig, WorkerAssetsInput, WorkerVersionAssets } from '../worker-types';
import { ASSET_TOKEN_PURPOSE, signAssetToken, TOKEN_SECONDS, verifyAssetToken } from './asset-tokens';
import { assetSessionLock } from './locks';
import type { Db } from './rows';
import type { SecretBox } from './secret-box';

/** Files asked for in one upload request, at most (and BUCKET_BYTES of them). */
const BUCKET_FILES = 50;
/** Bytes asked for in one upload request, at most: base64 makes them 4/3 bigger, under the 64 MiB a form may hold. */
const BUCKET_BYTES = 40 * 1024 * 1024;
/** Hashes looked up per query. */
const LOOKUP_BATCH = 500;

export type AssetOperations = Pick<WorkersRepository, 'openAssetUpload' | 'assetUploadSession' | 'storeAssets' | 'versionAssets'>;

export function assetOperations(executor: Executor, box: () => SecretBox): AssetOperations {
  const key = () => box().derive(ASSET_TOKEN_PURPOSE);
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const token = (session: { id: string; account_id: string; script_name: string }, typ: 'upload' | 'complete') => {
    const iat = nowSeconds();
    return signAssetToken(key(), { sub: session.id, acc: session.account_id, scr: session.script_name, typ, iat, exp: iat + TOKEN_SECONDS });
  };

  return {
    openAssetUpload: (accountId, name, manifest) =>
      executor.write(async (ctx) => {
        const account = await ctx.db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
        if (account === undefined) throw new NotFoundError('account', accountId);
        // Sessions past their time are dropped as new ones open.
        await ctx.db.deleteFrom('worker_asset_sessions').where('expires_on', '<', ctx.now).execute();
        const session = { id: randomUUID(), account_id: accountId, script_name: name };
        const expires = formatTimestamp(parseTimestamp(ctx.now) + TOKEN_SECONDS * 1_000_000);
        await ctx.db.insertInto('worker_asset_sessions').values({ ...session, manifest: toJson(manifest), expires_on: expires }).execute();
        const missing = await missingHashes(ctx.db, accountId, manifest);
        if (missing.length === 0) return { jwt: token(session, 'complete'), buckets: [] };
        return { jwt: token(session, 'upload'), buckets: bucketsOf(missing, manifest) };
      }),

    assetUploadSession: (uploadToken) =>
      executor.read(async (ctx) => {
        const claims = verifyAssetToken(key(), uploadToken, 'upload', nowSeconds());
        const row = await ctx.db.selectFrom('worker_asset_sessions').selectAll().where('id', '=', claims.sub).executeTakeFirst();
        if (row === undefined || row.account_id !== claims.acc || row.script_name !== claims.scr) {
          throw new WorkerAssetsError('token', 'the assets upload token is not valid: its upload session is over');
        }
        return { id: row.id, account_id: row.account_id, script_name: row.script_name, manifest: fromJson<AssetManifest>(row.manifest) };
      }),

    storeAssets: (sessionId, files) =>
      executor.write(async (ctx) => {
        await ctx.lock(assetSessionLock(sessionId));
        const row = await ctx.db.selectFrom('worker_asset_sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
        if (row === undefined) throw new WorkerAssetsError('token', 'the assets upload token is not valid: its upload session is over');
        for (const file of files) {
          await ctx.db
            .insertInto('worker_asset_contents')
            .values({ account_id: row.account_id, hash: file.hash, size: file.bytes.byteLength, content_type: file.content_type, content: Buffer.from(file.bytes).toString('base64') })
            .onConflict((conflict) => conflict.columns(['account_id', 'hash']).doNothing())
            .execute();
        }
        const missing = await missingHashes(ctx.db, row.account_id, fromJson<AssetManifest>(row.manifest));
        return { jwt: missing.length === 0 ? token(row, 'complete') : null };
      }),

    versionAssets: (accountId, name, versionId) =>
      executor.read(async (ctx) => {
        const row = await ctx.db
          .selectFrom('worker_version_assets')
          .select(['manifest', 'config'])
          .where('version_id', '=', versionId)
          .where('account_id', '=', accountId)
          .where('script_name', '=', name)
          .executeTakeFirst();
        return row === undefined ? null : { manifest: fromJson<AssetManifest>(row.manifest), config: fromJson<WorkerAssetsConfig>(row.config) };
      }),
  };
}

/** The manifest's hashes the account does not hold, each once, in manifest order. */
async function missingHashes(db: Db, accountId: string, manifest: AssetManifest): Promise<string[]> {
  const hashes = [...new Set(Object.values(manifest).map((entry) => entry.hash))];
  const held = new Set<string>();
  for (let at = 0; at < hashes.length; at += LOOKUP_BATCH) {
    const rows = await db
      .selectFrom('worker_asset_contents')
      .select('hash')
      .where('account_id', '=', accountId)
      .where('hash', 'in', hashes.slice(at, at + LOOKUP_BATCH))
      .execute();
    for (const { hash } of rows) held.add(hash);
  }
  return hashes.filter((hash) => !held.has(hash));
}

function bucketsOf(hashes: string[], manifest: AssetManifest): string[][] {
  const sizes = new Map(Object.values(manifest).map((entry) => [entry.hash, entry.size]));
  const buckets: string[][] = [];
  let bucket: string[] = [];
  let bytes = 0;
  for (const hash of hashes) {
    const size = sizes.get(hash) ?? 0;
    if (bucket.length > 0 && (bucket.length >= BUCKET_FILES || bytes + size > BUCKET_BYTES)) {
      buckets.push(bucket);
      bucket = [];
      bytes = 0;
    }
    bucket.push(hash);
    bytes += size;
  }
  if (bucket.length > 0) buckets.push(bucket);
  return buckets;
}

/**
 * The assets a new version gets, in its upload's transaction: a completion token's session
 * (every file held by now, the token the script's own), or the latest version's kept. The
 * session ends with it.
 */
export async function attachVersionAssets(
  ctx: WriteContext,
  box: () => SecretBox,
  target: { accountId: string; name: string; versionId: string; latestVersionId: string | null },
  input: WorkerAssetsInput,
): Promise<void> {
  let assets: WorkerVersionAssets;
  if (input.kind === 'token') {
    // The version's upload is the API's (its credentials checked): a bad completion token is a bad upload.
    let claims;
    try {
      claims = verifyAssetToken(box().derive(ASSET_TOKEN_PURPOSE), input.token, 'complete', Math.floor(Date.now() / 1000));
    } catch (error) {
      throw new WorkerAssetsError('upload', `metadata.assets.jwt: ${(error as Error).message}`);
    }
    if (claims.acc !== target.accountId || claims.scr !== target.name) {
      throw new WorkerAssetsError('upload', `metadata.assets.jwt: the assets completion token is not valid: it was made for another ${claims.acc !== target.accountId ? 'account' : 'script'}`);
    }
    const session = await ctx.db.selectFrom('worker_asset_sessions').selectAll().where('id', '=', claims.sub).executeTakeFirst();
    if (session === undefined) throw new WorkerAssetsError('upload', 'metadata.assets.jwt: the assets completion token is not valid: its upload session is over (a version used it, or it expired)');
    const manifest = fromJson<AssetManifest>(session.manifest);
    const missing = await missingHashes(ctx.db, target.accountId, manifest);
    if (missing.length > 0) throw new WorkerAssetsError('upload', `the assets upload is not complete: ${missing.length} file(s) were never uploaded`);
    assets = { manifest, config: input.config };
    await ctx.db.deleteFrom('worker_asset_sessions').where('id', '=', session.id).execute();
  } else {
    const kept = target.latestVersionId === null ? undefined : await ctx.db.selectFrom('worker_version_assets').selectAll().where('version_id', '=', target.latestVersionId).executeTakeFirst();
    if (kept === undefined) throw new WorkerAssetsError('upload', 'keep_assets: the latest version of the script has no assets to keep');
    assets = { manifest: fromJson<AssetManifest>(kept.manifest), config: input.config ?? fromJson<WorkerAssetsConfig>(kept.config) };
  }
  await ctx.db
    .insertInto('worker_version_assets')
    .values({ version_id: target.versionId, account_id: target.accountId, script_name: target.name, manifest: toJson(assets.manifest), config: toJson(assets.config) })
    .execute();
}

/** A version made from another (secrets changed) keeps its assets as they were. */
export async function copyVersionAssets(ctx: WriteContext, fromVersionId: string, toVersionId: string): Promise<void> {
  const row = await ctx.db.selectFrom('worker_version_assets').selectAll().where('version_id', '=', fromVersionId).executeTakeFirst();
  if (row === undefined) return;
  await ctx.db.insertInto('worker_version_assets').values({ ...row, version_id: toVersionId }).execute();
}

/**
 * A deleted script's assets: its versions' manifests and open sessions go, then the contents no
 * version or open session of the account names any more.
 */
export async function dropScriptAssets(ctx: WriteContext, accountId: string, name: string): Promise<void> {
  await ctx.db.deleteFrom('worker_version_assets').where('account_id', '=', accountId).where('script_name', '=', name).execute();
  await ctx.db.deleteFrom('worker_asset_sessions').where('account_id', '=', accountId).where('script_name', '=', name).execute();
  const used = new Set<string>();
  const manifests = [
    ...(await ctx.db.selectFrom('worker_version_assets').select('manifest').where('account_id', '=', accountId).execute()),
    ...(await ctx.db.selectFrom('worker_asset_sessions').select('manifest').where('account_id', '=', accountId).execute()),
  ];
  for (const { manifest } of manifests) for (const entry of Object.values(fromJson<AssetManifest>(manifest))) used.add(entry.hash);
  const stored = await ctx.db.selectFrom('worker_asset_contents').select('hash').where('account_id', '=', accountId).execute();
  const unused = stored.map((row) => row.hash).filter((hash) => !used.has(hash));
  for (let at = 0; at < unused.length; at += LOOKUP_BATCH) {
    await ctx.db.deleteFrom('worker_asset_contents').where('account_id', '=', accountId).where('hash', 'in', unused.slice(at, at + LOOKUP_BATCH)).execute();
  }
}

/** The version's assets for the read model; undefined when it has none. */
export async function readVersionAssets(db: Db, versionId: string): Promise<WorkerVersionAssets | undefined> {
  const row = await db.selectFrom('worker_version_assets').select(['manifest', 'config']).where('version_id', '=', versionId).executeTakeFirst();
  return row === undefined ? undefined : { manifest: fromJson<AssetManifest>(row.manifest), config: fromJson<WorkerAssetsConfig>(row.config) };
}

/** An asset's bytes for the runtime; null when the account holds no such hash. */
export async function readAssetContent(db: Db, accountId: string, hash: string): Promise<{ bytes: Uint8Array; content_type: string | null } | null> {
  const row = await db.selectFrom('worker_asset_contents').select(['content', 'content_type']).where('account_id', '=', accountId).where('hash', '=', hash).executeTakeFirst();
  return row === undefined ? null : { bytes: new Uint8Array(Buffer.from(row.content, 'base64')), content_type: row.content_type };
}
