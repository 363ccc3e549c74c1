// Entry point of `npm start`: the management API on PORT (default 8787) under /client/v4,
// with its state in PostgreSQL when DATABASE_URL is set, else in SQLite under DATA_DIR
// (default ./data). See docs/server.md for every setting.
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { readRulesFile } from '../faults';
import { logHealthChanges } from '../storage-health';
import { createApp } from './app';
import { loadConfig } from './config';
import { connectionServerOptions, limitConnections } from '../http-connections';
import { basePath } from './http/openapi-document';
import { openServerBuckets, openServerStore } from './open-state';

async function main(): Promise<void> {
  const config = loadConfig();
  // Asynchronous log writes (one line per request), flushed before the process exits.
  const destination = pino.destination({ sync: false });
  const logger = pino({ level: config.logLevel, base: undefined }, destination);
  const exit = (code: number) => {
    try {
      destination.flushSync();
    } finally {
      process.exit(code);
    }
  };
  logHealthChanges(logger);
  // Read before the store opens: a bad rules file stops the start with nothing opened.
  const faultRules = config.faultsFile ? { list: readRulesFile(config.faultsFile).api ?? [], source: `faults file ${config.faultsFile}` } : undefined;
  if (config.stateFile) {
    // Loaded only on a first start (nothing stored yet), before the store opens and seeds; the
    // state module is loaded only then, so other starts do not pay for it.
    const { importStateIfEmpty } = await import('../state');
    const started = await importStateIfEmpty(config.stateFile, { dataDir: config.dataDir, databaseUrl: config.postgres?.url.connectionString });
    logger.info({ stateFile: config.stateFile, ...started }, started.imported ? 'state loaded' : 'state file not loaded: the store already holds state');
  }
  const store = await openServerStore(config);
  const database = config.postgres ? 'postgres' : 'sqlite';
  const buckets = await openServerBuckets(config);
  const { app, ready } = createApp({
    store,
    database,
    credentials: config.credentials,
    buckets,
    s3AccessKeys: config.s3AccessKeys,
    logger,
    validateResponses: config.validateResponses,
    ...(faultRules ? { faultRules } : {}),
    ...(config.rateLimit ? { rateLimit: config.rateLimit } : {}),
  });
  await ready;
  const server: Server = await new Promise((resolve, reject) => {
    const listening = createServer(connectionServerOptions(config.http), app).listen(config.port, config.host, () => resolve(listening));
    limitConnections(listening, config.http.maxConnections);
    listening.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (config.generatedToken) {
    // Printed once, never logged or stored: only its hash is kept.
    process.stdout.write(`API token (generated, shown once): ${config.generatedToken}\n`);
  }
  const where = config.postgres ? { database: config.postgres.url.location } : { dataDir: config.dataDir };
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${basePath}`;
  const extras = {
    ...(config.rateLimit ? { rateLimit: config.rateLimit } : {}),
    ...(faultRules ? { faultsFile: config.faultsFile, faultRules: (faultRules.list as unknown[]).length } : {}),
  };
  logger.info({ url, ...where, ...extras }, 'ready');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => exit(1), 10_000);
    force.unref();
    // In-flight requests finish first, then the store drains and closes its connections.
    server.close(() => {
      Promise.all([store.close(), buckets.close()]).then(
        () => exit(0),
        () => exit(1),
      );
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Whatever the log level, one plain line says where the server listens (PORT=0 picks a free
  // port) and which process to signal, as the worker host does; printed once a signal finds
  // its handler.
  process.stdout.write(`Ready on ${url} (pid ${process.pid})\n`);
}


main().catch((error: unknown) => {
  process.stderr.write(`cannot start the server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
