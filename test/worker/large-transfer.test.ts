// A 256 MiB object through the reference worker, up and down, streamed: the bytes arrive intact
// and the host's memory never holds the object whole.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { memoryField, pseudoRandomChunk, resetPeakMemory } from '../support/process-memory';
import { COMMAND_TEST_TIMEOUT_MS, expectCleanStop, type Host } from './commands';
import { startReferenceWorker } from './reference-host';

vi.setConfig({ testTimeout: COMMAND_TEST_TIMEOUT_MS, hookTimeout: COMMAND_TEST_TIMEOUT_MS });

const SECRET = 'large-transfer-secret';
const MiB = 1024 * 1024;
const SIZE = 256 * MiB;
const CHUNK = MiB;
/**
 * A host that buffered the upload or the download whole would grow by at least the object's
 * 256 MiB. Streaming, it grows by what the collector has not reclaimed yet: 15-58 MiB seen on
 * Node 24, whose V8 lets up to about 64 MiB of freed buffers wait for the next collection.
 */
const MEMORY_BOUND = 96 * MiB;

let host: Host;
beforeAll(async () => {
  host = await startReferenceWorker(['big.bin'], SECRET);
});
afterAll(() => expectCleanStop(host));

const chunk = (index: number) => pseudoRandomChunk(index, CHUNK);

/** The first transfers compile code and fill pools; memory is measured after them. */
async function warmUp(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const body = new Blob(Array.from({ length: 8 }, (_, index) => chunk(index))).stream();
    const headers = { 'X-Custom-Auth-Key': SECRET, 'Content-Length': String(8 * CHUNK) };
    const put = await fetch(`${host.url}/big.bin`, { method: 'PUT', body, headers, duplex: 'half' } as RequestInit);
    expect(put.status).toBe(200);
    expect((await (await fetch(`${host.url}/big.bin`)).arrayBuffer()).byteLength).toBe(8 * CHUNK);
  }
}

test('256 MiB streamed up and down, intact, without the host holding it whole', async () => {
  await warmUp();
  const sent = createHash('sha256');
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index === SIZE / CHUNK) return controller.close();
      const bytes = chunk(index++);
      sent.update(bytes);
      controller.enqueue(bytes);
    },
  });

  const beforeUpload = resetPeakMemory(host.pid);
  const stored = await fetch(`${host.url}/big.bin`, {
    method: 'PUT',
    body,
    // Streamed with its length, as the platform needs to store a stream.
    headers: { 'X-Custom-Auth-Key': SECRET, 'Content-Type': 'application/octet-stream', 'Content-Length': String(SIZE) },
    duplex: 'half',
  } as RequestInit);
  expect(stored.status).toBe(200);
  expect(await stored.text()).toBe('Put big.bin successfully!');
  expect(memoryField(host.pid, 'VmHWM') - beforeUpload).toBeLessThan(MEMORY_BOUND);

  const beforeDownload = resetPeakMemory(host.pid);
  const response = await fetch(`${host.url}/big.bin`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-length')).toBe(String(SIZE));
  expect(response.headers.get('content-type')).toBe('application/octet-stream');
  const received = createHash('sha256');
  let size = 0;
  for await (const part of response.body! as unknown as AsyncIterable<Uint8Array>) {
    received.update(part);
    size += part.byteLength;
  }
  expect(size).toBe(SIZE);
  expect(received.digest('hex')).toBe(sent.digest('hex'));
  expect(memoryField(host.pid, 'VmHWM') - beforeDownload).toBeLessThan(MEMORY_BOUND);

  // A range deep inside the object comes from the right place.
  const ranged = await fetch(`${host.url}/big.bin`, { headers: { Range: `bytes=${40 * MiB + 3}-${40 * MiB + 10}` } });
  expect(ranged.status).toBe(206);
  expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(chunk(40).subarray(3, 11));
});
