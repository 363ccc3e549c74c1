/**
 * Deployed workers, running. Each version of each deployed script runs in a workerd process of
 * its own, started when a deployment names it; requests pick a version of their script by the
 * deployment's percentages and stay on the process they started on; versions no deployment
 * names any more finish their requests in flight, then stop. The buckets of their bindings are
 * served by the platform's bucket service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BucketCatalogue } from '../bucket';
import { BucketService, GRANT_HEADER } from './bucket-service/service';
import { cachedReader } from './assets/content-cache';
import { AssetsService } from './assets/service';
import { VersionAssets, type AssetReader } from './assets/version-assets';
import type { DeployedVersion, DeployedWorkers } from './deployed';
import { instanceKey, VersionInstance, WAIT_UNTIL_MS, type InstanceContext, type RunResult, type ScheduledResult } from './instance';
import type { RunRequest } from './proxy';
import { TraceSink, type Traces } from './tails/trace-sink';
import { CpuWatchdog } from './watchdog';
import { workerdBinary } from './workerd/binary';

export interface WorkersRuntimeOptions {
  /** The buckets bindings name: the platform's catalogue (the API's, S3's). */
  catalogue: BucketCatalogue;
  /** CPU time a request may use before its worker is cut off. */
  cpuMs: number;
  /** A worker's log lines (console output, uncaught exceptions), tagged with its script and version. */
  log: (entry: { script: string; version: string; level: string; message: string }) => void;
  /** What the runtime noticed: starts that failed, processes that ended. Never a secret. */
  report: (line: string) => void;
  /** How long a retired version lives on after its last request, for its `ctx.waitUntil` work. */
  waitUntilMs?: number;
  /** The traces of tailed scripts' invocations (see `trace`), by the account, script and version that produced them. */
  onTraces?: (traces: Traces) => void;
  /** Static assets' bytes by account and hash (the store's); cached here. */
  assetContent?: AssetReader;
}

/** Bytes of assets kept in memory. */
const ASSET_CACHE_BYTES = 64 * 1024 * 1024;

/** One version of a script's deployment: its worker's process (none for assets only) and its assets. */
interface Choice {
  percentage: number;
  versionId: string;
  instance: VersionInstance | undefined;
  assets: VersionAssets | undefined;
}

export class WorkersRuntime {
  readonly #options: WorkersRuntimeOptions;
  readonly #directory: string;
  readonly #bucketService: BucketService;
  readonly #traceSink: TraceSink;
  readonly #assetsService: AssetsService;
  readonly #readAsset: AssetReader;
  readonly #context: InstanceContext;
  readonly #watchdog: CpuWatchdog;
  /** What serves each script now, by `<account>/<script>`. */
  #table = new Map<string, Choice[]>();
  /** The instances deployments name, by key. */
  readonly #instances = new Map<string, VersionInstance>();
  /** Instances no deployment names any more, finishing their requests. */
  readonly #retired = new Set<VersionInstance>();
  #applying: Promise<void> = Promise.resolve();
  #closed = false;
  /** What is deployed, as last applied (tracing a script applies it again). */
  #deployed: DeployedWorkers = { subdomains: {}, scripts: [], zones: [] };
  /** The scripts being tailed, by `<account>/<script>`: their versions run with the platform's tail worker. */
  readonly #traced = new Set<string>();

  private constructor(options: WorkersRuntimeOptions, directory: string, bucketService: BucketService, assetsService: AssetsService, traceSink: TraceSink) {
    this.#options = options;
    this.#directory = directory;
    this.#bucketService = bucketService;
    this.#assetsService = assetsService;
    this.#traceSink = traceSink;
    this.#readAsset = cachedReader(options.assetContent ?? (async () => null), ASSET_CACHE_BYTES);
    this.#context = {
      binary: workerdBinary(),
      directory,
      bucketSocketPath: path.join(directory, 'buckets.sock'),
      assetsSocketPath: path.join(directory, 'assets.sock'),
      grantHeader: GRANT_HEADER,
      grant: (account, bucket) => bucketService.grant({ account, bucket }),
      grantAssets: (assets) => assetsService.grant(assets),
      revoke: (tokens) => {
        bucketService.revoke(tokens);
        assetsService.revoke(tokens);
      },
      log: options.log,
      report: options.report,
      traceSocketPath: path.join(directory, 'traces.sock'),
      traceGrant: (source) => traceSink.grant(source),
      traceRevoke: (token) => traceSink.revoke([token]),
      trace: (traces) => options.onTraces?.(traces),
    };
    this.#watchdog = new CpuWatchdog(options.cpuMs, () => [...this.#instances.values(), ...this.#retired]);
  }

  /** Opens the runtime's private directory (sockets and configuration files, this user only) and its bucket service. */
  static async start(options: WorkersRuntimeOptions): Promise<WorkersRuntime> {
    const directory = mkdtempSync(path.join(tmpdir(), 'edge-'));
    const bucketService = new BucketService(options.catalogue, options.report);
    const assetsService = new AssetsService(GRANT_HEADER, options.report);
    const traceSink = new TraceSink((traces) => options.onTraces?.(traces), options.report);
    try {
      await bucketService.listen(path.join(directory, 'buckets.sock'));
      await assetsService.listen(path.join(directory, 'assets.sock'));
      await traceSink.listen(path.join(directory, 'traces.sock'));
    } catch (error) {
      await Promise.allSettled([bucketService.close(), assetsService.close(), traceSink.close()]);
      rmSync(directory, { recursive: true, force: true });
      throw error;
    }
    return new WorkersRuntime(options, directory, bucketService, assetsService, traceSink);
  }

  /**
   * Tails a script or stops tailing it. A tailed script's versions run with the platform's tail
   * worker beside them, so they are started again (as a deployment would start them: the new
   * processes first, requests in flight finishing on the old ones); resolves once the next
   * request is traced. A script nobody tails runs without it and pays nothing for it.
   */
  trace(account: string, script: string, on: boolean): Promise<void> {
    const key = `${account}/${script}`;
    if (this.#traced.has(key) === on) return this.#applying;
    if (on) this.#traced.add(key);
    else this.#traced.delete(key);
    return this.apply(this.#deployed);
  }

  /** The runtime's private directory (this user only): its sockets, and configuration files while a version starts. */
  get directory(): string {
    return this.#directory;
  }

  /**
   * Runs what is deployed from now on: versions not yet running are started (and awaited, so
   * that the next request finds them listening), the table of what serves each script is swapped
   * at once, and versions no longer named retire. Calls are taken in turn.
   */
  apply(deployed: DeployedWorkers): Promise<void> {
    const next = this.#applying.then(() => this.#apply(deployed));
    this.#applying = next.catch(() => {});
    return next;
  }

  async #apply(deployed: DeployedWorkers): Promise<void> {
    if (this.#closed) return;
    this.#deployed = deployed;
    const table = new Map<string, Choice[]>();
    const wanted = new Set<string>();
    for (const script of deployed.scripts) {
      const choices: Choice[] = [];
      const traced = this.#traced.has(`${script.account_id}/${script.name}`);
      for (const { percentage, version } of script.versions) {
        const hasWorker = version.modules.length > 0;
        const assets = this.#versionAssets(script.account_id, version, hasWorker);
        let instance: VersionInstance | undefined;
        if (hasWorker) {
          const key = instanceKey(script.account_id, script.name, version, traced);
          wanted.add(key);
          instance = this.#instances.get(key);
          if (!instance) {
            instance = new VersionInstance(this.#context, script.account_id, script.name, version, assets, traced);
            this.#instances.set(key, instance);
          }
        }
        choices.push({ percentage, versionId: version.id, instance, assets });
      }
      if (choices.length > 0) table.set(`${script.account_id}/${script.name}`, choices);
    }
    // A version that cannot start answers its requests with the platform's error; the others serve.
    await Promise.allSettled([...table.values()].flat().map(({ instance }) => instance?.start()));
    this.#table = table;
    const servedAssets = new Set([...table.values()].flat().flatMap(({ assets }) => (assets ? [assets] : [])));
    for (const [key, assets] of this.#assets) if (!servedAssets.has(assets)) this.#assets.delete(key);
    for (const [key, instance] of this.#instances) {
      if (wanted.has(key)) continue;
      this.#instances.delete(key);
      this.#retired.add(instance);
      void instance.retire(this.#options.waitUntilMs ?? WAIT_UNTIL_MS).then(() => this.#retired.delete(instance));
    }
  }

  /** A version's assets as served; the same object for the same version while it stays deployed. */
  #versionAssets(account: string, version: DeployedVersion, hasWorker: boolean): VersionAssets | undefined {
    if (version.assets === undefined) return undefined;
    const key = `${account}/${version.id}`;
    let assets = this.#assets.get(key);
    if (assets === undefined) {
      assets = new VersionAssets({
        account,
        manifest: version.assets.manifest,
        config: version.assets.config,
        hasWorker,
        compatibilityDate: version.compatibility_date,
        compatibilityFlags: version.compatibility_flags,
        read: this.#readAsset,
      });
      this.#assets.set(key, assets);
    }
    return assets;
  }

  readonly #assets = new Map<string, VersionAssets>();

  /** Runs one request on the script's deployment; undefined when nothing of that script is deployed here. */
  async run(account: string, script: string, request: RunRequest): Promise<RunResult | undefined> {
    const choices = this.#table.get(`${account}/${script}`);
    if (!choices) return undefined;
    const choice = pick(choices);
    if (choice.assets !== undefined && (choice.instance === undefined || !choice.assets.wantsWorker(request.request))) {
      try {
        await choice.assets.serve(request.request, request.response);
        return { result: 'ok', version: choice.versionId };
      } catch (error) {
        return { result: 'exception', version: choice.versionId, error: (error as Error).message, written: request.response.headersSent };
      }
    }
    this.#watchdog.wake();
    return choice.instance!.run(request);
  }

  /**
   * Runs the `scheduled` handler of the script's deployment (a version picked by its
   * percentages, as requests are) for a cron trigger; undefined when nothing of it is deployed here.
   */
  async scheduled(account: string, script: string, cron: string, scheduledTime: number): Promise<ScheduledResult | undefined> {
    const choices = this.#table.get(`${account}/${script}`);
    if (!choices) return undefined;
    const choice = pick(choices);
    // An assets-only version has no worker, so no handler.
    if (choice.instance === undefined) return { result: 'no-handler', version: choice.versionId };
    this.#watchdog.wake();
    return choice.instance.scheduled(cron, scheduledTime);
  }

  /** Stops every version now, then the bucket service. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#applying;
    this.#watchdog.stop();
    const all = new Set([...this.#instances.values(), ...this.#retired, ...[...this.#table.values()].flat().flatMap(({ instance }) => (instance ? [instance] : []))]);
    this.#table = new Map();
    await Promise.all([...all].map((instance) => instance.stop()));
    await Promise.all([this.#bucketService.close(), this.#assetsService.close(), this.#traceSink.close()]);
    rmSync(this.#directory, { recursive: true, force: true });
  }
}

/** A version by the deployment's percentages. */
function pick(choices: Choice[]): Choice {
  if (choices.length === 1) return choices[0]!;
  let roll = Math.random() * 100;
  for (const choice of choices) {
    roll -= choice.percentage;
    if (roll < 0) return choice;
  }
  return choices[choices.length - 1]!;
}
