// Raw TCP clients that misbehave as slow clients do: they stall, send half a request line, or
// trickle a header, and report what the server sent before it closed the connection.
import net from 'node:net';
import tls from 'node:tls';

export type SlowKind = 'nothing' | 'half a request line' | 'a trickled header';

export interface RawConnection {
  socket: net.Socket;
  /** Resolves once the server (or the test) closed the connection: what it sent, and after how long. */
  closed: Promise<{ received: string; afterMs: number }>;
  /** Resolves once the connection is established (the TLS handshake done, for TLS). */
  connected: Promise<void>;
}

/** Opens a connection to `url`'s port (TLS when `tls` is set) and collects what the server sends. */
export function rawConnection(url: string, options: { tls?: boolean } = {}): RawConnection {
  const { hostname, port } = new URL(url);
  const socket = options.tls
    ? tls.connect({ host: hostname, port: Number(port), rejectUnauthorized: false })
    : net.connect(Number(port), hostname);
  const opened = Date.now();
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<{ received: string; afterMs: number }>((resolve) => socket.once('close', () => resolve({ received, afterMs: Date.now() - opened })));
  const connected = new Promise<void>((resolve) => socket.once(options.tls ? 'secureConnect' : 'connect', () => resolve()));
  return { socket, closed, connected };
}

/** A slow client of one kind; the trickle sends one byte every `trickleMs` until the server cuts it. */
export function slowClient(url: string, kind: SlowKind, trickleMs = 100): RawConnection {
  const connection = rawConnection(url);
  const { socket } = connection;
  let trickle: NodeJS.Timeout | undefined;
  void connection.connected.then(() => {
    if (kind === 'half a request line') socket.write('GET /some/pa');
    if (kind === 'a trickled header') {
      const header = `GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(1000)}`;
      let at = 0;
      trickle = setInterval(() => socket.writable && socket.write(header[at++ % header.length]!), trickleMs);
    }
  });
  void connection.closed.then(() => clearInterval(trickle));
  return connection;
}

/** Sends one whole request on a raw connection and resolves with the response's status line. */
export async function wellBehaved(url: string, path = '/', headers: Record<string, string> = {}): Promise<string> {
  const connection = rawConnection(url);
  await connection.connected;
  const host = new URL(url).host;
  const lines = [`GET ${path} HTTP/1.1`, `Host: ${host}`, 'Connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  connection.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const { received } = await connection.closed;
  return received.split('\r\n')[0]!;
}
