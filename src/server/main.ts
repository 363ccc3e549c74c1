// Entry point of `npm start`: the management API on PORT (default 8787) under /client/v4,
// with its state in DATA_DIR (default ./data). See README for every setting.
import type { Server } from 'node:http';
import pino from 'pino';
import { openSqliteStore } from '../store';
import { createApp } from './app';
import { loadConfig } from './config';
import { basePath } from './http/openapi-document';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: undefined });
  const store = await openSqliteStore({ dataDir: config.dataDir, ...(config.seedFile ? { seed: config.seedFile } : {}) });
  const { app, ready } = createApp({ store, credentials: config.credentials, logger, validateResponses: config.validateResponses });
  await ready;
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(config.port, config.host, () => resolve(listening));
    listening.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (config.generatedToken) {
    // Printed once, never logged or stored: only its hash is kept.
    process.stdout.write(`API token (generated, shown once): ${config.generatedToken}\n`);
  }
  logger.info({ url: `http://${config.host}:${port}${basePath}`, dataDir: config.dataDir }, 'ready');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close(() => {
      store.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`cannot start the server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
