// The reference worker needs no Node API: loaded in a context that has only the Web platform's
// globals, importing nothing outside its own folder, it still does its job.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import ts from 'typescript';
import { afterAll, describe, expect, test } from 'vitest';
import { createBucket, declareStreamLength, FixedLengthStream, MemoryEngine } from '../../src/bucket';
import { ROOT } from './commands';

const FOLDER = join(ROOT, 'src/worker/reference');

/** Globals a worker runtime offers; nothing of Node (no process, Buffer, require, setImmediate). */
const WEB_GLOBALS = {
  Request, Response, Headers, URL, URLSearchParams, TextEncoder, TextDecoder, crypto, ReadableStream,
  WritableStream, TransformStream, FixedLengthStream, Blob, AbortController, atob, btoa, structuredClone, setTimeout, clearTimeout, console,
  // The binding's errors come from this realm; the worker must recognise them as the platform's own.
  Error, TypeError, RangeError,
};

interface LoadedWorker {
  fetch(request: Request, env: Record<string, unknown>): Promise<Response>;
}

/** Loads `index.ts` of the folder into a fresh context, each file compiled on its own. */
function loadInWebContext(): { worker: LoadedWorker; imports: string[] } {
  const context = vm.createContext({ ...WEB_GLOBALS });
  const imports: string[] = [];
  const modules = new Map<string, { exports: Record<string, unknown> }>();
  const load = (file: string): Record<string, unknown> => {
    const cached = modules.get(file);
    if (cached) return cached.exports;
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    const module = { exports: {} as Record<string, unknown> };
    modules.set(file, module);
    const run = vm.runInContext(`(function (exports, require, module) {\n${outputText}\n})`, context, { filename: file }) as (
      exports: unknown,
      require: (specifier: string) => unknown,
      module: unknown,
    ) => void;
    run(module.exports, (specifier) => {
      imports.push(specifier);
      if (!/^\.\/[\w-]+$/.test(specifier)) throw new Error(`${file} imports ${specifier} at run time`);
      return load(join(FOLDER, `${specifier}.ts`));
    }, module);
    return module.exports;
  };
  const worker = load(join(FOLDER, 'index.ts')).default as LoadedWorker;
  return { worker, imports };
}

describe('the reference worker in a context with Web APIs only', () => {
  const { worker, imports } = loadInWebContext();
  const bucket = createBucket({ engine: new MemoryEngine() });
  afterAll(() => bucket.close());
  const env = { MY_BUCKET: bucket, AUTH_KEY_SECRET: 'secret', ALLOW_LIST: 'cat-pic.jpg, ranged.txt' };
  /** A request as the host hands it over: a body of known length, as its Content-Length gives. */
  const call = (path: string, init: RequestInit = {}) => {
    const request = new Request(`https://worker.example${path}`, init);
    if (typeof init.body === 'string') declareStreamLength(request.body!, new TextEncoder().encode(init.body).byteLength);
    return worker.fetch(request, env);
  };

  test('imports nothing but its own files at run time', () => {
    expect([...new Set(imports)].sort()).toEqual(['./authorization', './object-responses']);
  });

  test('stores, serves, ranges and refuses', async () => {
    const put = await call('/cat-pic.jpg', { method: 'PUT', body: 'meow', headers: { 'X-Custom-Auth-Key': 'secret', 'Content-Type': 'image/jpeg' } });
    expect([put.status, await put.text()]).toEqual([200, 'Put cat-pic.jpg successfully!']);
    const got = await call('/cat-pic.jpg');
    expect([got.status, got.headers.get('content-type'), await got.text()]).toEqual([200, 'image/jpeg', 'meow']);
    await call('/ranged.txt', { method: 'PUT', body: '0123456789', headers: { 'X-Custom-Auth-Key': 'secret' } });
    const ranged = await call('/ranged.txt', { headers: { Range: 'bytes=2-3' } });
    expect([ranged.status, ranged.headers.get('content-range'), await ranged.text()]).toEqual([206, 'bytes 2-3/10', '23']);
    const unsatisfiable = await call('/ranged.txt', { headers: { Range: 'bytes=50-' } });
    expect([unsatisfiable.status, unsatisfiable.headers.get('content-range')]).toEqual([416, 'bytes */10']);
    expect((await call('/cat-pic.jpg', { method: 'PUT', body: 'x', headers: { 'X-Custom-Auth-Key': 'nope' } })).status).toBe(403);
    expect((await call('/elsewhere')).status).toBe(403);
    expect((await call('/cat-pic.jpg', { method: 'POST' })).headers.get('allow')).toBe('PUT, GET, DELETE');
    const deleted = await call('/cat-pic.jpg', { method: 'DELETE', headers: { 'X-Custom-Auth-Key': 'secret' } });
    expect([deleted.status, await deleted.text()]).toEqual([200, 'Deleted!']);
  });

  test('without its bucket binding it says what is missing', async () => {
    await expect(worker.fetch(new Request('https://worker.example/cat-pic.jpg'), { ALLOW_LIST: 'cat-pic.jpg' })).rejects.toThrow(
      'env.MY_BUCKET is not bound: add [[r2_buckets]] with binding = "MY_BUCKET" to the configuration.',
    );
  });
});
