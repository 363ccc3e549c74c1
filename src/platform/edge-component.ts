/**
 * The edge as a component of the platform: the runtime of deployed workers (their buckets from
 * the platform's catalogue) behind the edge's port, following what the store says is deployed.
 * The HTTP server holds slow clients as the API's does (the same timeouts and connection limit),
 * so that one setting moves every port.
 */
import type { Logger } from 'pino';
import { openBucketCatalogue, type DatabasePoolSettings } from '../bucket';
import { startEdgeServer, type EdgeRoutes, type EdgeStages, type Exchange, type WorkerDispatcher } from '../edge';
import { connectionServerOptions, type ConnectionLimits } from '../http-connections';
import { CronTriggers, WorkersRuntime, type CronRun, type Traces } from '../runtime';
import { followDeployments, withZones, type DeploymentsReader } from './deployments';
import type { EdgeSettings } from './settings';

export interface EdgeComponentOptions {
  settings: EdgeSettings;
  dataDir: string;
  databaseUrl: string | undefined;
  /** The buckets' connection pool on PostgreSQL, sized and timed as every component's. */
  databasePool?: DatabasePoolSettings;
  /** Every port's connection limits (the HTTP_* variables). */
  limits: ConnectionLimits;
  /** What is deployed: the store's read model. */
  deployments: DeploymentsReader;
  /** Steps of others around routing (rules, origins, logs). */
  stages?: EdgeStages;
  /** Every zone the platform serves, routed to its origin where no workers route names a worker. */
  zones?: EdgeRoutes['zones'];
  logger: Logger;
  report: (line: string) => void;
  /** The traces of tailed scripts' invocations. */
  onTraces?: (traces: Traces) => void;
  /** The cron triggers' clock and timer (tests drive them: `timer: false`, then `cronTriggers.tick`). */
  cron?: { now?: () => number; timer?: boolean };
}

export interface RunningEdgeComponent {
  url: string;
  /** Tails a script or stops (its versions started again with or without the platform's tail worker). */
  trace(account: string, script: string, on: boolean): Promise<void>;
  /** The cron triggers of what is deployed, fired at each minute. */
  cronTriggers: CronTriggers;
  /** Stops taking requests, lets those in flight finish, then stops the workers and closes the buckets. */
  close(): Promise<void>;
}

/** One log line per request through the edge, as the API logs its own. */
function logRequest(logger: Logger) {
  return (exchange: Exchange) => {
    const { request, response, outcome } = exchange;
    const fields = {
      host: exchange.hostname,
      method: request.method,
      path: request.url,
      status: response.statusCode,
      ms: Date.now() - exchange.received,
      ...(outcome ?? {}),
      ...(response.writableFinished ? {} : { finished: false }),
    };
    if (outcome?.kind === 'worker' && outcome.result !== 'ok') logger.warn(fields, 'edge request: the worker failed');
    else logger.info(fields, 'edge request');
  };
}

/** One log line per run of a cron trigger, beside the edge's request lines: a failure at warn, with the worker's error. */
function logCronRun(logger: Logger) {
  return (run: CronRun) => {
    const { outcome } = run;
    const fields = {
      script: run.script,
      cron: run.cron,
      scheduledTime: new Date(run.scheduledTime).toISOString(),
      result: outcome.result,
      ...('version' in outcome && outcome.version ? { version: outcome.version } : {}),
      ...('error' in outcome && outcome.error !== undefined ? { error: outcome.error } : {}),
      ms: run.ms,
    };
    if (outcome.result === 'ok') logger.info(fields, 'cron trigger');
    else if (outcome.result === 'no-handler') logger.warn(fields, 'cron trigger: the worker has no scheduled handler');
    else if (outcome.result === 'not-deployed') logger.warn(fields, 'cron trigger: nothing of the script is deployed');
    else if (outcome.result === 'claim-failed') logger.warn(fields, 'cron trigger: not run, its run could not be claimed in the store');
    else logger.warn(fields, 'cron trigger: the worker failed');
  };
}

export async function startEdgeComponent(options: EdgeComponentOptions): Promise<RunningEdgeComponent> {
  const { settings, limits, logger } = options;
  const catalogue = await openBucketCatalogue({ dataDir: options.dataDir, databaseUrl: options.databaseUrl, ...(options.databasePool ? { pool: options.databasePool } : {}) });
  let runtime: WorkersRuntime | undefined;
  try {
    runtime = await WorkersRuntime.start({
      catalogue,
      cpuMs: settings.cpuMs,
      // A worker's errors and warnings (its uncaught exceptions among them) at their own level, so
      // a platform logging warnings only still says why a worker failed.
      log: ({ script, version, level, message }) => logger[level === 'error' || level === 'fatal' ? 'error' : level === 'warn' ? 'warn' : 'info']({ script, version, level }, `worker: ${message}`),
      report: options.report,
      assetContent: (account, hash) => options.deployments.assetContent(account, hash),
      ...(options.onTraces ? { onTraces: options.onTraces } : {}),
    });
    const running = runtime;
    const workers: WorkerDispatcher = {
      dispatch: async (target, exchange) =>
        (await running.run(target.account, target.script, {
          request: exchange.request,
          response: exchange.response,
          cf: exchange.cf,
          clientAddress: exchange.clientAddress,
          scheme: exchange.scheme,
        })) ?? { result: 'not-deployed' },
    };
    const stages = options.stages ?? {};
    const edge = await startEdgeServer({
      port: settings.port,
      hostname: settings.host,
      serverOptions: connectionServerOptions(limits),
      maxConnections: limits.maxConnections,
      workers,
      stages: { ...stages, after: [...(stages.after ?? []), logRequest(logger)] },
      report: options.report,
    });
    const reader = options.deployments;
    const cronTriggers = new CronTriggers({
      fire: (account, script, cron, time) => running.scheduled(account, script, cron, time),
      claim: (account, script, cron, minute) => reader.claimScheduledRun(account, script, cron, minute),
      log: logCronRun(logger),
      report: options.report,
      ...(options.cron?.now ? { now: options.cron.now } : {}),
      ...(options.cron?.timer === false ? { timer: false } : {}),
    });
    let following;
    try {
      following = await followDeployments({
        reader,
        runtime: running,
        setRoutes: (routes) => edge.setRoutes(withZones(routes, options.zones ?? [])),
        setCrons: (deployed) => cronTriggers.set(deployed),
        report: options.report,
      });
    } catch (error) {
      await cronTriggers.stop();
      await edge.close();
      throw error;
    }
    return {
      url: edge.url,
      trace: (account, script, on) => running.trace(account, script, on),
      cronTriggers,
      close: async () => {
        await following.stop();
        // Runs under way end with the workers below (their processes stop).
        await cronTriggers.stop();
        await edge.close();
        await running.close();
        await catalogue.close();
      },
    };
  } catch (error) {
    await runtime?.close();
    await catalogue.close();
    throw error;
  }
}
