import type { Server } from 'node:http';
import { createApp } from './app';
import { loadConfig } from './config';
import { openAppDeps } from './dependencies';
import { serveConnections } from './http/connections';
import { createLogger } from './logger';
import { startMetricsServer } from './metrics/server';
import { startTracing } from './tracing/provider';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'shipping-label-api', config.log);
  // Before anything that traces: the app and the Temporal client install their tracing only when this is on.
  const tracing = startTracing(config.tracing, 'shipping-label-api');
  const { deps, close } = await openAppDeps(config, { logger });
  const { metrics } = deps;
  const app = createApp(deps);
  const server: Server = app.listen(config.port, config.host, () => {
    logger.info({ port: config.port }, 'api listening');
    // A parent that spawned us with an IPC channel (tests) waits for this.
    process.send?.({ type: 'ready' });
  });
  serveConnections(server, {
    logger,
    publicBaseUrl: config.publicBaseUrl,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
  });
  const metricsPort = config.metrics.apiPort;
  const metricsServer =
    metricsPort === undefined
      ? null
      : await startMetricsServer(metrics.registry, { host: config.metrics.host, port: metricsPort });
  if (metricsServer) logger.info({ port: metricsPort, host: config.metrics.host }, 'metrics listening');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting, let in-flight requests finish, then release connections.
    server.close(() => {
      void close()
        .then(() => tracing?.shutdown())
        .then(() => process.exit(0));
    });
    server.closeIdleConnections();
    metricsServer?.close();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`api failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
