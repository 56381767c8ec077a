import type { Server } from 'node:http';
import { createApp } from './app';
import { loadConfig } from './config';
import { openOrm } from './db/orm';
import { createLogger } from './logger';
import { connectTemporal } from './temporal/connection';
import { createAuthorizer } from './access/authorizer';
import { createPorts } from './ports';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const orm = await openOrm(config.databaseUrl);
  const temporal = await connectTemporal(config.temporal.address, config.temporal.namespace);
  const { platform, renderer, pickupPoints } = createPorts(config, orm, logger);
  const app = createApp({
    config,
    orm,
    temporal,
    logger,
    now: () => new Date(),
    authorize: createAuthorizer({ orm, now: () => new Date(), supportEmail: config.supportEmail }),
    renderer,
    platform,
    pickupPoints,
  });
  const server: Server = app.listen(config.port, config.host, () => {
    logger.info({ port: config.port }, 'api listening');
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting, let in-flight requests finish, then release connections.
    server.close(() => {
      void Promise.allSettled([temporal.connection.close(), orm.close()]).then(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`api failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
