/**
 * The `assets` binding of deployed workers (`env.ASSETS.fetch(request)`), served to workerd over
 * HTTP on a Unix socket in the runtime's private directory. As for buckets, workerd adds the
 * binding's grant to each of its calls (`injectRequestHeaders`): an unguessable token naming one
 * version's assets, which the worker's code never sees, so a worker reaches its own version's
 * assets and nothing else. Everything the assets answer (html handling, not-found handling, 304)
 * is as at the edge; `run_worker_first` does not apply to the binding.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Grants, SocketServer } from '../granted-socket';
import type { VersionAssets } from './version-assets';

export class AssetsService {
  readonly #grantHeader: string;
  readonly #report: (line: string) => void;
  readonly #grants = new Grants<VersionAssets>();
  readonly #socket = new SocketServer((request, response) => void this.#handle(request, response));

  constructor(grantHeader: string, report: (line: string) => void) {
    this.#grantHeader = grantHeader;
    this.#report = report;
  }

  grant(assets: VersionAssets): string {
    return this.#grants.grant(assets);
  }

  revoke(tokens: Iterable<string>): void {
    this.#grants.revoke(tokens);
  }

  listen(socketPath: string): Promise<void> {
    return this.#socket.listen(socketPath);
  }

  close(): Promise<void> {
    return this.#socket.close();
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const assets = this.#grants.of(request.headers[this.#grantHeader]);
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
