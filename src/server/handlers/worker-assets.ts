/**
 * Static assets uploads: the session (`.../assets-upload-session`, with the API's credentials)
 * and its uploads (`/workers/assets/upload`, authorized by the session's token, which
 * authentication checked before the body was read: see app.ts). Versions name what a session
 * uploaded by its completion token (workers/upload.ts, then the store).
 */
import { WorkerAssetsError } from '../../store';
import { badRequest } from '../http/errors';
import type { Handler, OperationId } from '../operations';
import { checkManifest, checkUploadedFiles } from '../workers/assets';
import type { AssetsUploadRequest } from '../workers/assets-token';
import { checkScriptName, WorkerCodes } from '../workers/upload';
import { requireAccount } from './access';

type AssetOperation = Extract<OperationId, 'createWorkerAssetsUploadSession' | 'uploadWorkerAssets'>;

export const workerAssetHandlers: { [O in AssetOperation]: Handler<O> } = {
  createWorkerAssetsUploadSession: async (context) => {
    const { account_id: account, script_name: name } = context.params;
    await requireAccount(context, account);
    checkScriptName(name);
    const manifest = checkManifest(context.body.manifest);
    return { result: await context.store.workers.openAssetUpload(account, name, manifest) };
  },

  uploadWorkerAssets: async (context) => {
    const request = context.request as AssetsUploadRequest;
    const session = request.assetsSession!;
    if (session.account_id !== context.params.account_id) {
      throw new WorkerAssetsError('token', `the assets upload token is not valid: it was made for another account than ${context.params.account_id}`);
    }
    if (context.query.base64 !== true) throw badRequest('base64=true is required: files are uploaded base64-encoded', WorkerCodes.invalid);
    const parts = request.workerForm;
    if (parts === undefined) throw badRequest('assets are uploaded as a multipart form, one part per file named by its hash', WorkerCodes.unparsableBody);
    const files = checkUploadedFiles(parts, session.manifest);
    const { jwt } = await context.store.workers.storeAssets(session.id, files);
    return { result: jwt === null ? {} : { jwt } };
  },
};
