import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createLogger } from '../../src/logger';
import { workerActivities } from '../../src/temporal/worker-activities';
import { startTestApp, type TestApp } from './test-app';

type Activities = ReturnType<typeof workerActivities>;

export interface AppWithOwnWorker {
  app: TestApp;
  stop(): Promise<void>;
}

/**
 * An API and a worker of the test file's own, in the test's process, on a task queue of their own (the global test
 * worker never sees its workflows): for tests that read the worker's logs or spans, or replace an activity. The
 * worker bundles the project's workflows with the project's activities, changed by `activities` when given.
 */
export async function startAppWithOwnWorker(options: {
  taskQueue: string;
  /** More of the app's (and so the worker's) environment: another database, say. */
  env?: Record<string, string>;
  worker?: Partial<Omit<WorkerOptions, 'connection' | 'taskQueue' | 'activities'>>;
  activities?: (activities: Activities, app: TestApp) => Partial<Activities>;
}): Promise<AppWithOwnWorker> {
  const app = await startTestApp({ env: { ...options.env, TEMPORAL_TASK_QUEUE: options.taskQueue } });
  const connection = await NativeConnection.connect({ address: app.config.temporal.address });
  const activities = workerActivities(app.config, {
    orm: app.orm,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    temporal: app.temporal,
  });
  const worker = await Worker.create({
    workflowsPath: require.resolve('../../workflows'),
    ...options.worker,
    connection,
    taskQueue: options.taskQueue,
    activities: { ...activities, ...options.activities?.(activities, app) },
  });
  const running = worker.run();
  return {
    app,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await app.close();
    },
  };
}
