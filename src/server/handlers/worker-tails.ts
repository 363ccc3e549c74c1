/**
 * Live tails of a script (`wrangler tail`, the official client's `workers.scripts.tail`): created,
 * listed and deleted here; read over a WebSocket the platform serves on this port (src/tail/).
 */
import { TailFilterError, TailRefusal, type TailFilter } from '../../tail';
import { ApiError, badRequest, Codes } from '../http/errors';
import type { Handler } from '../operations';
import { WorkerCodes } from '../workers/upload';
import { existingScript } from './workers';

type TailOperation = 'createWorkerTail' | 'listWorkerTails' | 'deleteWorkerTail';

function tailsOf<T>(tails: T | undefined): T {
  if (tails === undefined) throw badRequest('live tails are served by `npm start` with its edge on, where deployed workers run; this server runs none', WorkerCodes.invalid);
  return tails;
}

/** The WebSocket origin of this port, as the client reached it. */
function originOf(host: string | undefined, encrypted: boolean): string {
  return `${encrypted ? 'wss' : 'ws'}://${host ?? 'localhost'}`;
}

export const workerTailHandlers: { [O in TailOperation]: Handler<O> } = {
  createWorkerTail: async (context) => {
    // A body may be left out (the official client sends none), but one that was not read as JSON is refused.
    const headers = context.request.headers;
    if (context.body === undefined && (Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined)) {
      throw ApiError.of(415, Codes.unsupportedMediaType, 'unsupported media type: request bodies must be application/json');
    }
    const { account, script } = await existingScript(context);
    const tails = tailsOf(context.tails);
    const filters = ((context.body as { filters?: TailFilter[] } | undefined)?.filters ?? []) as TailFilter[];
    const socket = context.request.socket as { remoteAddress?: string; encrypted?: boolean };
    try {
      const tail = tails.create({ account, script: script.name, filters, clientAddress: socket.remoteAddress ?? '', origin: originOf(context.request.headers.host, socket.encrypted === true) });
      return { result: tail };
    } catch (error) {
      if (error instanceof TailRefusal) throw ApiError.of(error.status, error.code, error.message);
      if (error instanceof TailFilterError) throw badRequest(error.message, WorkerCodes.invalid);
      throw error;
    }
  },

  // Where no edge runs workers there are no tails: none listed, none to delete.
  listWorkerTails: async (context) => {
    const { account, script } = await existingScript(context);
    return { result: context.tails?.list(account, script.name) ?? [] };
  },

  deleteWorkerTail: async (context) => {
    const { account, script } = await existingScript(context);
    if (!context.tails?.remove(account, script.name, context.params.tail_id)) throw ApiError.of(404, WorkerCodes.scriptNotFound, `Tail ${context.params.tail_id} of ${script.name} does not exist (it was deleted, or expired).`);
    return { result: null };
  },
};
