// The platform's own runtime, locally: Miniflare runs workerd (shipped inside its npm package)
// with a real bucket binding. One instance per test file; every worker it runs gets its own
// socket, so a test file reaches each compatibility date over plain HTTP.
import { join } from 'node:path';
import { build } from 'esbuild';
import { Log, LogLevel, Miniflare } from 'miniflare';

export const ROOT = join(import.meta.dirname, '../..');

/** The compatibility date a project created today gets, and one from before `enable_fast_jsg_struct`. */
export const CURRENT_DATE = '2026-07-01';
export const OLD_DATE = '2024-09-23';
export const COMPATIBILITY_DATES = [OLD_DATE, CURRENT_DATE] as const;

/** A module worker bundled as the platform's tooling would upload it: one ES module, no Node API. */
export async function bundleWorker(entry: string): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return outputFiles[0]!.text;
}

export interface MiniflareWorker {
  /** A name unique in the instance. */
  name: string;
  script: string;
  compatibilityDate: string;
  compatibilityFlags?: string[];
  /** Binding name to bucket name; each bucket is empty at the start, kept in memory. */
  buckets?: Record<string, string>;
  /** Vars and secrets: strings, or JSON values. */
  bindings?: Record<string, unknown>;
}

export interface RunningMiniflare {
  miniflare: Miniflare;
  /** The base URL (ending without a slash) of each worker, by name. */
  urls: Record<string, string>;
  dispose(): Promise<void>;
}

/** Starts one Miniflare instance running these workers, each reachable on its own port. */
export async function startMiniflare(workers: MiniflareWorker[]): Promise<RunningMiniflare> {
  const miniflare = new Miniflare({
    log: new Log(LogLevel.WARN),
    workers: workers.map((worker) => ({
      name: worker.name,
      modules: true,
      script: worker.script,
      compatibilityDate: worker.compatibilityDate,
      compatibilityFlags: worker.compatibilityFlags ?? [],
      r2Buckets: worker.buckets ?? {},
      bindings: (worker.bindings ?? {}) as Record<string, never>,
      unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
    })),
  });
  await miniflare.ready;
  const urls: Record<string, string> = {};
  for (const { name } of workers) urls[name] = (await miniflare.unsafeGetDirectURL(name)).href.replace(/\/$/, '');
  return { miniflare, urls, dispose: () => miniflare.dispose() };
}
