/**
 * What each of the runtime's services for workerd (the bucket binding, the assets binding, the
 * trace sink) needs around its own calls: a table of grants, the unguessable tokens workerd
 * injects into every call of one binding (so a worker reaches what its version was given and
 * nothing else), and an HTTP server on a Unix socket only the platform and its workerd processes
 * can reach.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';

/** Grants by token: what a call carrying the token may reach. */
export class Grants<T> {
  readonly #grants = new Map<string, T>();

  /** A new token for `value`. */
  grant(value: T): string {
    const token = randomBytes(24).toString('base64url');
    this.#grants.set(token, value);
    return token;
  }

  revoke(tokens: Iterable<string>): void {
    for (const token of tokens) this.#grants.delete(token);
  }

  /** What the header's token grants, if it is one of ours. */
  of(header: string | string[] | undefined): T | undefined {
    return this.#grants.get(String(header ?? ''));
  }
}

/** An HTTP server on a Unix socket, its connections kept alive between workerd's calls. */
export class SocketServer {
  readonly #listener: RequestListener;
  #server: Server | undefined;

  constructor(listener: RequestListener) {
    this.#listener = listener;
  }

  async listen(socketPath: string): Promise<void> {
    const server = createServer({ keepAliveTimeout: 60_000 }, this.#listener);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    this.#server = server;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

/**
 * A service for workerd: its grants, and its socket, whose calls are handed to `serve` with what
 * the call's grant header grants (undefined for a missing, forged or revoked token).
 */
export abstract class GrantedService<T> {
  readonly #grants = new Grants<T>();
  readonly #socket: SocketServer;

  constructor(grantHeader: string) {
    this.#socket = new SocketServer((request, response) => void this.serve(request, response, this.#grants.of(request.headers[grantHeader])));
  }

  /** A new token for `value`, for workerd to add to every call of one binding. */
  grant(value: T): string {
    return this.#grants.grant(value);
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

  protected abstract serve(request: IncomingMessage, response: ServerResponse, granted: T | undefined): void | Promise<void>;
}
