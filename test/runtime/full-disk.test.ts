// A deployed worker (in workerd, its bucket through the platform's bucket service) when the data
// directory's file system is full: its binding's write rejects with the error the in-process
// binding throws (its message naming the cause and what to do), reads, listings and deletes go
// on, and the write succeeds once space is freed.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountSmallFilesystem } from '../support/small-filesystem';
import { ACCOUNT, deployed, moduleVersion, startHarness, type Harness } from './harness';

const mounted = mountSmallFilesystem(24);
const filesystem = 'unavailable' in mounted ? undefined : mounted;
const skipped = 'unavailable' in mounted ? ` (skipped: this process cannot mount a tmpfs: ${mounted.unavailable})` : '';

/** Answers what its binding did, or the message of what it threw. */
const WORKER = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const key = url.pathname.slice(1);
    try {
      if (request.method === 'PUT') {
        const stored = await env.FILES.put(key, new Uint8Array(Number(url.searchParams.get('size'))));
        return new Response('stored ' + stored.size);
      }
      if (request.method === 'DELETE') {
        await env.FILES.delete(key);
        return new Response('deleted');
      }
      if (key === '') return new Response((await env.FILES.list()).objects.map((o) => o.key).join(','));
      const object = await env.FILES.get(key);
      return new Response(object === null ? 'missing' : 'read ' + (await object.arrayBuffer()).byteLength);
    } catch (error) {
      return new Response(error.message, { status: 507 });
    }
  },
};
`;

const MiB = 1024 * 1024;
let harness: Harness | undefined;

beforeAll(async () => {
  if (!filesystem) return;
  harness = await startHarness({ parentDir: filesystem.directory });
  await harness.catalogue.create('files');
  await harness.runtime.apply(deployed({ files: moduleVersion(WORKER, [{ type: 'r2_bucket', name: 'FILES', bucket_name: 'files' }]) }));
}, 60_000);

afterAll(async () => {
  await harness?.close();
  filesystem?.unmount();
});

const call = async (path: string, init?: RequestInit) => {
  const response = await fetch(`${harness!.url}/${ACCOUNT}/files${path}`, init);
  return { status: response.status, text: await response.text() };
};

describe.skipIf(!filesystem)(`a deployed worker's binding on a full 24 MiB file system${skipped}`, () => {
  it('rejects the write saying the storage is full, keeps reads, lists and deletes working, and writes again once space is freed', async () => {
    expect(await call('/kept?size=1024', { method: 'PUT' })).toEqual({ status: 200, text: 'stored 1024' });
    const filler = filesystem!.fill(256 * 1024);
    try {
      expect(await call(`/big?size=${MiB}`, { method: 'PUT' })).toEqual({
        status: 507,
        text: "put: There is no room left in the bucket's storage (no space left on the device (ENOSPC)); nothing was stored. Delete objects or free space, then retry. (10001)",
      });
      expect(await call('/big')).toEqual({ status: 200, text: 'missing' });
      expect(await call('/kept')).toEqual({ status: 200, text: 'read 1024' });
      expect(await call('/')).toEqual({ status: 200, text: 'kept' });
      expect(await call('/kept', { method: 'DELETE' })).toEqual({ status: 200, text: 'deleted' });
    } finally {
      rmSync(filler);
    }
    expect(await call(`/big?size=${MiB}`, { method: 'PUT' })).toEqual({ status: 200, text: `stored ${MiB}` });
    expect(await call('/')).toEqual({ status: 200, text: 'big' });
  });
});
