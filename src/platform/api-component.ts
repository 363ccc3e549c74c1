/**
 * The management API as one component of the platform: its store opened and its app built
 * (fault rules checked) before anything listens, then listening on request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { connectionServerOptions, limitConnections } from '../http-connections';
import { basePath, createApp, openServerBuckets, openServerStore, type ServerConfig } from '../server';
import { tailUpgrades, type LiveTails } from '../tail';
import type { DeploymentsReader } from './deployments';
import type { RuleList } from './settings';

export interface PreparedApi {
  config: ServerConfig;
  /** What is deployed, as the store reads it (the edge follows it). */
  deployments: DeploymentsReader;
  /** Listens; resolves with the URL of /client/v4. */
  listen(): Promise<string>;
  /** Lets requests in flight finish, then closes the store and the buckets. */
  close(): Promise<void>;
}

export interface ApiOptions {
  /** The API's settings (`loadConfig` over the environment the platform filled in). */
  config: ServerConfig;
  logger: Logger;
  /** The S3 endpoint's keys, so temporary credentials the API issues are good there. */
  s3AccessKeys: Map<string, string> | undefined;
  /** The account whose buckets the S3 endpoint serves (log push destinations are checked against it). */
  s3Account?: string | undefined;
  faultRules: RuleList | undefined;
  components: () => Record<string, { state: string; url: string }>;
  /** Live tails of the edge's workers, read over WebSockets on this port (none when the edge is off). */
  tails?: LiveTails | undefined;
}

/** Opens the API's store and builds its app (bad fault rules throw a FaultRulesError here). */
export async function prepareApi(options: ApiOptions): Promise<PreparedApi> {
  const { config } = options;
  const store = await openServerStore(config);
  let buckets;
  try {
    // The buckets of the data directory, or of the database when the API runs on PostgreSQL: the
    // same catalogue the S3 endpoint and the workers open.
    buckets = await openServerBuckets(config);
  } catch (error) {
    await store.close();
    throw error;
  }
  let app;
  try {
    const created = createApp({
      store,
      database: config.postgres ? 'postgres' : 'sqlite',
      credentials: config.credentials,
      buckets,
      s3AccessKeys: options.s3AccessKeys ?? config.s3AccessKeys,
      ...(options.s3Account ? { s3Account: options.s3Account } : {}),
      logger: options.logger,
      validateResponses: config.validateResponses,
      components: options.components,
      ...(options.tails ? { tails: options.tails } : {}),
      ...(options.faultRules ? { faultRules: options.faultRules } : {}),
      ...(config.rateLimit ? { rateLimit: config.rateLimit } : {}),
    });
    await created.ready;
    app = created.app;
  } catch (error) {
    await Promise.allSettled([store.close(), buckets.close()]);
    throw error;
  }
  let server: Server | undefined;
  const upgrades = options.tails ? tailUpgrades(options.tails) : undefined;
  return {
    config,
    deployments: store.deployedWorkers,
    listen: async () => {
      server = await new Promise<Server>((resolve, reject) => {
        const listening = createServer(connectionServerOptions(config.http), app);
        const limits = limitConnections(listening, config.http.maxConnections);
        // WebSockets: a tail's (`/tails/<id>`); no other upgrade is served.
        if (upgrades) {
          listening.on('upgrade', (request, socket: Socket, head) => {
            limits.upgraded(socket);
            if (!upgrades.upgrade(request, socket, head)) socket.destroy();
          });
        }
        listening.once('error', (error: NodeJS.ErrnoException) =>
          reject(new Error(error.code === 'EADDRINUSE' ? `the API: port ${config.port} on ${config.host} is already in use; choose another with PORT or [api] port` : `cannot listen on ${config.host}:${config.port}: ${error.message}`)),
        );
        listening.listen(config.port, config.host, () => resolve(listening));
      });
      const { port } = server.address() as AddressInfo;
      return `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${basePath}`;
    },
    close: async () => {
      options.tails?.close();
      upgrades?.close();
      if (server) {
        const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        await closing;
      }
      await Promise.all([store.close(), buckets.close()]);
    },
  };
}

