// The streamed response writer both faces use (src/streamed-body.ts), over a real node:http server
// and real sockets: every byte in order, no reading ahead of a slow client, and a body whose client
// left or whose storage failed cancelled, the connection cut, and only the storage's failure heard.
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStreamedBody } from '../src/streamed-body';

/** What the next request's body is, and what became of it. */
interface Case {
  body: ReadableStream<Uint8Array>;
  failures: unknown[];
  response?: ServerResponse;
  written?: Promise<void>;
}

let server: Server;
let url: string;
let current: Case;

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    current.response = response;
    current.written = writeStreamedBody(response, current.body, (error) => current.failures.push(error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function serve(body: ReadableStream<Uint8Array>): Case {
  current = { body, failures: [] };
  return current;
}

function request(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, { agent: false }, resolve).on('error', reject));
}

/** The whole body, or the error that cut it short. */
function readAll(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('aborted')));
  });
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** A body of `count` chunks of `size` bytes, each filled with its index; counts what was read of it. */
function chunks(count: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (seen.pulled === count) return controller.close();
        controller.enqueue(new Uint8Array(size).fill(seen.pulled % 256));
        seen.pulled += 1;
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

describe('writeStreamedBody', () => {
  it('writes every chunk in order and ends the response', async () => {
    const { body, seen } = chunks(200, 1000);
    const served = serve(body);
    const received = await readAll(await request());
    expect(received.length).toBe(200_000);
    for (let index = 0; index < 200; index += 1) expect(received[index * 1000]).toBe(index % 256);
    await served.written;
    expect(seen).toEqual({ pulled: 200, cancelled: false });
    expect(served.failures).toEqual([]);
  });

  it('reads no further than the socket takes while the client is not reading', async () => {
    // 64 MiB offered in 64 KiB chunks; the client reads nothing until the writer has stopped pulling.
    const { body, seen } = chunks(1024, 64 * 1024);
    const served = serve(body);
    const response = await request();
    response.pause();
    let before = -1;
    while (before !== seen.pulled) {
      before = seen.pulled;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // What the kernel's socket buffers and the response's own buffer hold, far from the whole.
    expect(seen.pulled * 64 * 1024).toBeLessThan(16 * 1024 * 1024);
    response.resume();
    expect((await readAll(response)).length).toBe(64 * 1024 * 1024);
    await served.written;
    expect(seen.pulled).toBe(1024);
  });

  it('cancels the body when the client leaves while the next chunk is being read, and reports nothing', async () => {
    let release: (() => void) | undefined;
    let cancelled = false;
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          pulls += 1;
          // The second chunk comes only after the client has gone.
          if (pulls === 2) await new Promise<void>((resolve) => (release = resolve));
          controller.enqueue(new Uint8Array(16 * 1024));
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const served = serve(body);
    const response = await request();
    await until(() => release !== undefined);
    response.destroy();
    await until(() => served.response!.destroyed);
    release!();
    await served.written;
    expect(cancelled).toBe(true);
    expect(served.failures).toEqual([]);
  });

  it('cuts the connection and reports the failure when the body fails mid-way', async () => {
    let pulls = 0;
    const failure = new Error('the disk went away');
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulls += 1;
          if (pulls === 3) throw failure;
          controller.enqueue(new Uint8Array(1000).fill(7));
        },
      },
      { highWaterMark: 0 },
    );
    const served = serve(body);
    // Cut before or after the head reached the client: either way, never an answer that looks whole.
    const outcome = await request().then(readAll).then(
      () => 'whole',
      () => 'cut',
    );
    expect(outcome).toBe('cut');
    await served.written;
    expect(served.failures).toEqual([failure]);
  });
});
