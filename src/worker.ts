import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import { loadConfig } from './config';
import { openOrm } from './db/orm';
import { createLogger } from './logger';
import { connectionOptions, connectTemporal } from './temporal/connection';
import { assertSearchAttributesRegistered } from './temporal/namespace-setup';
import { ensureSchedules } from './temporal/schedules';
import { workflowInterceptorModules, workflowSource } from './temporal/workflow-source';
import { workerTuning } from './temporal/worker-tuning';
import { reportWorkerLiveness } from './metrics/worker-liveness';
import { CALL_BUCKET_OVERRIDES, temporalCallMeter } from './metrics/call-meter';
import { ormPoolReader, reportPoolUsage } from './metrics/pool-metrics';
import { workerActivities } from './temporal/worker-activities';
import { startTracing } from './tracing/provider';
import { tracingClientInterceptors, tracingWorkerOptions } from './tracing/temporal';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'shipping-label-worker', config.log);
  const sdkLevel = (
    {
      fatal: 'ERROR',
      error: 'ERROR',
      warn: 'WARN',
      info: 'INFO',
      debug: 'DEBUG',
      trace: 'TRACE',
      silent: 'ERROR',
    } as const
  )[config.logLevel as 'info'] as LogLevel;
  // The SDK's own logs (bundling, worker state, failed tasks) go through the same JSON logger as ours.
  const sdkToPino = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;
  const metricsPort = config.metrics.workerPort;
  Runtime.install({
    logger: new DefaultLogger(sdkLevel, (entry) =>
      logger[sdkToPino[entry.level]]({ sdk: entry.meta ?? {} }, entry.message),
    ),
    // The SDK runtime serves its Prometheus metrics (task slots, latencies, failures) and ours on this port.
    ...(metricsPort === undefined
      ? {}
      : {
          telemetryOptions: {
            metrics: {
              prometheus: {
                bindAddress: `${config.metrics.host}:${metricsPort}`,
                histogramBucketOverrides: CALL_BUCKET_OVERRIDES,
              },
            },
          },
        }),
  });
  // Off by default: then no interceptor, no sink and the workflow bundle without tracing modules.
  const tracing = startTracing(config.tracing, 'shipping-label-worker');
  const client = await connectTemporal(config.temporal, undefined, tracing ? tracingClientInterceptors() : undefined);
  // Before anything else: on a namespace without the search attributes every creation would fail at its start.
  await assertSearchAttributesRegistered(client.connection, config.temporal.namespace);
  const orm = await openOrm(config.databaseUrl);
  const connection = await NativeConnection.connect(connectionOptions(config.temporal));
  const workflows = workflowSource({
    env: config.env,
    workflowsPath: require.resolve('../workflows'),
    traced: tracing !== null,
  });
  logger.info(
    'workflowBundle' in workflows
      ? { workflow_bundle: workflows.workflowBundle.codePath }
      : { workflows_path: workflows.workflowsPath },
    'workflowBundle' in workflows
      ? 'loading the prebuilt workflow bundle'
      : 'bundling workflows at start (development)',
  );
  const interceptorModules = 'workflowsPath' in workflows ? workflowInterceptorModules(tracing !== null) : [];
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...workerTuning(config.worker),
    ...workflows,
    // A prebuilt bundle already holds its interceptor modules (scripts/build.mjs); one bundled at start is given them.
    ...(tracing
      ? tracingWorkerOptions(tracing, interceptorModules)
      : { interceptors: { workflowModules: interceptorModules } }),
    activities: workerActivities(config, {
      orm,
      logger,
      temporal: client,
      meter: temporalCallMeter(Runtime.instance().metricMeter),
    }),
  });
  if (config.workerManagesSchedules) await ensureSchedules(client, config);
  logger.info({ task_queue: config.temporal.taskQueue }, 'worker started');
  // A parent that spawned us with an IPC channel (npm run dev, the test setup) waits for this.
  process.send?.({ type: 'ready' });
  // Worker.run() resolves after SIGINT/SIGTERM (the SDK installs the handlers) once in-flight tasks finish.
  const running = worker.run();
  // After run(): the worker is RUNNING from here until shutdown.
  const stopLiveness = reportWorkerLiveness(worker, Runtime.instance().metricMeter);
  const stopPoolUsage = reportPoolUsage([ormPoolReader(orm)], Runtime.instance().metricMeter);
  await running;
  stopLiveness();
  stopPoolUsage();
  await client.connection.close();
  await connection.close();
  await orm.close();
  await tracing?.shutdown();
  logger.info('worker stopped');
}

main().catch((error: unknown) => {
  process.stderr.write(`worker failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
