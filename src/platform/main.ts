// Entry point of `npm start`: the whole local platform in one process over one state (the data
// directory; the API's store in PostgreSQL when DATABASE_URL is set): the management API, the S3
// endpoint, the edge (deployed workers, routed by Host) and the workers a configuration file lists. See docs/server.md#running-the-whole-platform.
import { parseArgs } from 'node:util';
import pino, { type Logger } from 'pino';
import { FaultRulesError } from '../faults';
import { logHealthChanges } from '../storage-health';
import { checkS3FaultRules, startS3Server, type RunningS3Server } from '../s3';
import { connectionLimitsFrom, type ConnectionLimits } from '../http-connections';
import { loadConfig, openServerStore, type ServerConfig } from '../server';
import { LiveTails } from '../tail';
import { startWorker, type RunningWorker } from '../worker';
import { prepareApi, type PreparedApi } from './api-component';
import { startEdgeComponent } from './edge-component';
import type { Traces } from '../runtime';
import { prepareEdgeJudging } from './edge-judging';
import { findConfigFile, PlatformConfigError, resolveSettings, workerVariable, type PlatformSettings } from './settings';
import { keepOldGenerationTight } from './old-generation';
import { keepYoungGenerationSmall } from './young-generation';

const USAGE = `Usage: npm start -- [--config <file>]

Runs the management API, the S3 endpoint, the edge and the workers a configuration file lists,
in one process over one data directory.
  --config <file>   the platform configuration, TOML or JSON (default: PLATFORM_CONFIG, else
                    platform.toml, platform.jsonc or platform.json in this directory if present)
Without a file: the API on PORT (8787), the S3 endpoint on the next port (S3_PORT) and the edge
on the one after (EDGE_PORT).
Stop with Ctrl-C (SIGINT) or SIGTERM.`;

/** A piece of the platform that listens, as GET /readyz names it. */
interface Component {
  state: 'starting' | 'running' | 'stopping';
  url: string;
  close(): Promise<void>;
}

const STOP_TIMEOUT_MS = 10_000;

function fail(lines: string[]): never {
  process.stderr.write(`cannot start the server: ${lines.join('\n')}\n`);
  process.exit(1);
}

function readArguments(): { configFile: string | undefined } | null {
  try {
    const { values } = parseArgs({ options: { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
    if (values.help) return null;
    return { configFile: values.config };
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
}

/** Runs a component's start; its refusal says which component, and how the platform moves its port. */
async function naming<T>(component: string, portSetting: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${component}: ${message.replace('choose another with --port', `choose another with ${portSetting}`)}`);
  }
}

/** A rule problem as `file: faults.api[0] "name": field reason`, when the rules came from the file. */
function faultLines(error: FaultRulesError, settings: PlatformSettings): string[] {
  if (!settings.faults.fromFile) return [error.message];
  return error.problems.map((problem) => `${settings.file}: faults.${problem}`);
}

async function main(): Promise<void> {
  keepYoungGenerationSmall();
  keepOldGenerationTight();
  const args = readArguments();
  if (args === null) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let settings: PlatformSettings;
  let apiConfig: ServerConfig | undefined;
  let connections: ConnectionLimits;
  try {
    settings = resolveSettings(findConfigFile(args.configFile, process.env), process.env);
    if (settings.api) apiConfig = loadConfig(settings.apiEnvironment);
    // Every port holds slow and many clients alike (the HTTP_* variables), the API on or off.
    connections = apiConfig?.http ?? connectionLimitsFrom(process.env);
    if (settings.s3 && settings.faults.s3) checkS3FaultRules(settings.faults.s3.list, settings.faults.s3.source);
  } catch (error) {
    if (error instanceof PlatformConfigError) fail(error.lines);
    if (error instanceof FaultRulesError) fail(faultLines(error, settings!));
    throw error;
  }
  // Asynchronous log writes (one line per request), flushed before the process exits.
  const destination = pino.destination({ sync: false });
  const logger: Logger = pino({ level: apiConfig?.logLevel ?? (process.env.LOG_LEVEL || 'info'), base: undefined }, destination);
  const exit = (code: number) => {
    try {
      destination.flushSync();
    } finally {
      process.exit(code);
    }
  };
  // One line when a database or a data directory is lost or full, one when it is back.
  logHealthChanges(logger);

  if (settings.stateFile) {
    // Loaded only on a first start (nothing stored yet), before anything opens the store or the
    // buckets; the state module is loaded only then, so other starts do not pay for it.
    const { importStateIfEmpty } = await import('../state');
    const started = await importStateIfEmpty(settings.stateFile, { dataDir: settings.dataDir, databaseUrl: settings.databaseUrl });
    logger.info({ stateFile: settings.stateFile, ...started }, started.imported ? 'state loaded' : 'state file not loaded: the store already holds state');
  }
  const components = new Map<string, Component>();
  const readiness = () => Object.fromEntries([...components].map(([name, { state, url }]) => [name, { state, url }]));
  let api: PreparedApi | undefined;
  // Live tails, where the edge runs workers: created through the API, read on its port, traced by the edge's runtime.
  let tracer: ((account: string, script: string, on: boolean) => Promise<void>) | undefined;
  const tails = settings.edge && apiConfig ? new LiveTails({ trace: (account, script, on) => tracer?.(account, script, on) ?? Promise.resolve(), report: (line) => process.stderr.write(`[edge] ${line}\n`) }) : undefined;
  if (apiConfig) {
    try {
      api = await prepareApi({ config: apiConfig, logger, s3AccessKeys: settings.s3?.accessKeys, s3Account: settings.s3?.account, faultRules: settings.faults.api, components: readiness, tails });
    } catch (error) {
      if (error instanceof FaultRulesError) fail(faultLines(error, settings));
      throw error;
    }
  }
  const closeAll = () => Promise.all([...components.values()].map((component) => component.close()));
  // Every component's pool on the database sized and timed as the API's (DATABASE_POOL_*, DATABASE_CONNECT_TIMEOUT_MS).
  const { maxConnections, idleTimeoutMs, connectionTimeoutMs } = apiConfig?.postgres?.pool ?? {};
  const databasePool = { ...(maxConnections ? { maxConnections } : {}), ...(idleTimeoutMs ? { idleTimeoutMs } : {}), ...(connectionTimeoutMs ? { connectionTimeoutMs } : {}) };
  try {
    // Workers first: their buckets are checked as they start, the likeliest refusal.
    const report = (who: string) => (line: string) => process.stderr.write(`[${who}] ${line}\n`);
    // A worker written in TypeScript loads as under `npm run worker` (tsx); loaded only then, so a
    // platform without one starts on plain node alone.
    if (settings.workers.some(({ main }) => /\.[cm]?tsx?$/.test(main))) {
      const { register } = await import('tsx/esm/api');
      register();
    }
    for (const worker of settings.workers) {
      const running: RunningWorker = await naming(`worker ${worker.name}`, `${workerVariable(worker.name, 'PORT')} or its port in the file`, () =>
        startWorker({ configFile: worker.configFile, dataDir: settings.dataDir, databaseUrl: settings.databaseUrl, databasePool, connections, port: worker.port, hostname: worker.host, report: report(`worker ${worker.name}`) }),
      );
      components.set(`worker:${worker.name}`, { state: 'running', url: running.url, close: () => running.close() });
    }
    if (settings.s3) {
      const { s3 } = settings;
      const running: RunningS3Server = await naming('the S3 endpoint', 'S3_PORT or [s3] port', () => startS3Server({
        accessKeys: s3.accessKeys,
        dataDir: settings.dataDir,
        databaseUrl: settings.databaseUrl,
        databasePool,
        connections,
        port: s3.port,
        hostname: s3.host,
        publicRead: s3.publicRead,
        region: s3.region,
        ...(s3.account ? { account: s3.account } : {}),
        ...(s3.tls ? { tls: s3.tls } : {}),
        ...(settings.faults.s3 ? { faultRules: settings.faults.s3 } : {}),
        report: report('s3'),
        log: report('s3'),
      }));
      components.set('s3', { state: 'running', url: running.url, close: () => running.close() });
    }
    if (settings.edge) {
      const edge = settings.edge;
      // What is deployed is the API's store's; with the API off, the edge opens that store alone.
      let deployments = api?.deployments;
      let ownStore: { close(): Promise<void> } | undefined;
      if (!deployments) {
        const store = await openServerStore(loadConfig(settings.apiEnvironment));
        deployments = store.deployedWorkers;
        ownStore = store;
      }
      const reader = deployments;
      let judging;
      try {
        judging = await prepareEdgeJudging({ edge, settings, apiConfig, report: report('edge') });
      } catch (error) {
        await ownStore?.close();
        throw error;
      }
      const judged = judging;
      try {
        const running = await naming('the edge', 'EDGE_PORT or [edge] port', () =>
          startEdgeComponent({
            settings: edge,
            dataDir: settings.dataDir,
            databaseUrl: settings.databaseUrl,
            databasePool,
            limits: connections,
            deployments: reader,
            stages: judged.stages,
            zones: judged.zones,
            logger,
            report: report('edge'),
            ...(tails ? { onTraces: (traces: Traces) => tails.deliver(traces) } : {}),
          }),
        );
        tracer = (account, script, on) => running.trace(account, script, on);
        // Requests in flight are answered (and logged) before the log batches are written.
        components.set('edge', { state: 'running', url: running.url, close: () => running.close().then(() => judged.close()).then(() => ownStore?.close()) });
      } catch (error) {
        await judged.close();
        await ownStore?.close();
        throw error;
      }
    }
    if (api) {
      const url = await api.listen();
      components.set('api', { state: 'running', url, close: () => api.close() });
    }
  } catch (error) {
    await Promise.allSettled([closeAll(), ...(api && !components.has('api') ? [api.close()] : [])]);
    fail([(error as Error).message]);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    for (const component of components.values()) component.state = 'stopping';
    setTimeout(() => {
      process.stderr.write(`still busy after ${STOP_TIMEOUT_MS / 1000} s; exiting anyway\n`);
      exit(1);
    }, STOP_TIMEOUT_MS).unref();
    // Every front door stops taking requests at once; each lets its requests in flight finish,
    // then closes its buckets (and the API its store).
    closeAll().then(
      () => exit(0),
      (error: unknown) => {
        process.stderr.write(`unclean stop: ${String(error)}\n`);
        exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const lines: string[] = [];
  if (apiConfig?.generatedToken) lines.push(`API token (generated, shown once): ${apiConfig.generatedToken}`);
  // Printed once, never logged or stored, as the API token is.
  if (settings.s3?.generatedKey) lines.push(`S3 access key (generated, shown once): ${settings.s3.generatedKey.id} ${settings.s3.generatedKey.secret}`);
  const state = apiConfig?.postgres ? `PostgreSQL database ${apiConfig.postgres.url.location}` : settings.databaseUrl ? 'PostgreSQL database of DATABASE_URL' : `data directory ${settings.dataDir}`;
  lines.push(`Platform${settings.file ? ` of ${settings.file}` : ''} over the ${state}`);
  const width = Math.max(...[...components.keys()].map((name) => name.length));
  for (const name of ['api', 's3', 'edge', ...[...components.keys()].filter((key) => key.startsWith('worker:'))]) {
    const component = components.get(name);
    if (component) lines.push(`  ${name.padEnd(width)}  ${component.url}`);
  }
  if (settings.s3) lines.push(`  S3 access keys: ${[...settings.s3.accessKeys.keys()].join(', ')}`);
  if (settings.faults.api || settings.faults.s3) {
    const count = ((settings.faults.api?.list as unknown[] | undefined)?.length ?? 0) + ((settings.faults.s3?.list as unknown[] | undefined)?.length ?? 0);
    lines.push(`  fault rules: ${count} from ${settings.faults.fromFile ? settings.file : process.env.FAULTS_FILE}`);
  }
  if (apiConfig?.rateLimit) lines.push(`  rate limit: ${apiConfig.rateLimit.requests} requests per ${apiConfig.rateLimit.windowSeconds} s per user`);
  const first = components.get('api') ?? components.get('s3') ?? [...components.values()][0]!;
  // Whatever the log level, the last line says where the platform answers (the API first) and
  // which process to signal; printed once a signal finds its handler.
  lines.push(`Ready on ${first.url} (pid ${process.pid})`);
  logger.info({ ...(components.has('api') ? { url: components.get('api')!.url } : {}), components: readiness(), dataDir: settings.dataDir, ...(apiConfig?.postgres ? { database: apiConfig.postgres.url.location } : {}) }, 'ready');
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`cannot start the server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
