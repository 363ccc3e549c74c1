/**
 * The `assets` binding of deployed workers (`env.ASSETS.fetch(request)`), served to workerd over
 * HTTP on a Unix socket in the runtime's private directory. As for buckets, workerd adds the
 * binding's grant to each of its calls (`injectRequestHeaders`): an unguessable token naming one
 * version's assets, which the worker's code never sees, so a worker reaches its own version's
 * assets and nothing else. Everything the assets answer (html handling, not-found handling, 304)
 * is as at the edge; `run_worker_first` does not apply to the binding.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GrantedService } from '../granted-socket';
import type { VersionAssets } from './version-assets';

export class AssetsService extends GrantedService<VersionAssets> {
  readonly #report: (line: string) => void;

  constructor(grantHeader: string, report: (line: string) => void) {
    super(grantHeader);
    this.#report = report;
  }

  protected async serve(request: IncomingMessage, response: ServerResponse, assets: VersionAssets | undefined): Promise<void> {
    try {
      if (assets === undefined) {
        request.resume();
        response.writeHead(403, { 'content-type': 'text/plain; charset=UTF-8' });
        response.end('This binding is no longer served.');
        return;
      }
      await assets.serve(request, response);
    } catch (error) {
      this.#report(`assets binding call failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) response.writeHead(500, { 'content-length': '0' });
      response.end();
    }
  }
}
