import { z } from 'zod';
import { duration } from './core';

/**
 * The worker process: its tuning and Schedules, and the timing of what only it does (request-log housekeeping, mail,
 * webhook delivery).
 */
export const workerShape = {
  // Worker tuning; unset: the Temporal SDK's defaults.
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).optional(),
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().positive().optional(),
  WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: z.coerce.number().int().positive().optional(),
  /**
   * Workflows kept in the worker's sticky cache; a miss replays its history. Measured (docs/benchmarks.md, "Worker memory"):
   * about 0.4 MiB of RSS per open creation, so 1,000 hold a worker near 650 MiB. The SDK's own default follows the
   * heap limit (about 2,300 workflows for Node's 4 GiB), which would let a worker grow past 1 GiB.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(1000),
  /**
   * On SIGTERM the worker stops polling and gives running activities this long to finish before cancelling them: longer
   * than a carrier call (CARRIER_TIMEOUT), so a deploy does not leave creations with an unclear outcome.
   */
  WORKER_SHUTDOWN_GRACE_TIME: duration('15s'),
  /** Whether this worker creates and updates the Schedules (one deployment should; extra worker pools need not). */
  WORKER_MANAGES_SCHEDULES: z.enum(['true', 'false']).default('true'),
  // Durations of the spec; tests shorten them.
  REQUEST_LOG_RETENTION: duration('90d'),
  REQUEST_LOG_PURGE_INTERVAL: duration('1h'),
  /** SMTP transport for store notifications; unset keeps them in the outbox (`labelctl outbox`). */
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('Shipping Label API <no-reply@example.com>'),
  NOTIFICATION_DELIVERY_INTERVAL: duration('1m'),
  /** Webhook delivery (docs/webhooks.md): time box per request, exponential backoff, and how long to keep trying. */
  WEBHOOK_TIMEOUT: duration('10s'),
  WEBHOOK_RETRY_INITIAL: duration('30s'),
  WEBHOOK_RETRY_MAX_INTERVAL: duration('1h'),
  WEBHOOK_RETRY_WINDOW: duration('24h'),
  /** Webhook events, with their deliveries and attempts, are deleted this long after the event (hourly housekeeping). */
  WEBHOOK_RETENTION: duration('30d'),
};

type WorkerEnv = z.infer<z.ZodObject<typeof workerShape>>;

/** Options of `Worker.create`; undefined ones keep the SDK's defaults. */
export interface WorkerSettings {
  maxConcurrentWorkflowTaskExecutions: number | undefined;
  maxConcurrentActivityTaskExecutions: number | undefined;
  maxConcurrentLocalActivityExecutions: number | undefined;
  maxCachedWorkflows: number;
  shutdownGraceTimeMs: number;
}

export type WorkerConfig = Readonly<{
  worker: Readonly<WorkerSettings>;
  workerManagesSchedules: boolean;
  requestLog: Readonly<{ retentionMs: number; purgeIntervalMs: number }>;
  mail: Readonly<{ smtpUrl: string | undefined; from: string; deliveryIntervalMs: number }>;
  webhooks: Readonly<{
    timeoutMs: number;
    retentionMs: number;
    retry: Readonly<{ initialIntervalMs: number; maximumIntervalMs: number; windowMs: number }>;
  }>;
}>;

export function workerSettings(e: WorkerEnv): WorkerConfig {
  return {
    worker: Object.freeze({
      maxConcurrentWorkflowTaskExecutions: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxConcurrentActivityTaskExecutions: e.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentLocalActivityExecutions: e.WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES,
      maxCachedWorkflows: e.WORKER_MAX_CACHED_WORKFLOWS,
      shutdownGraceTimeMs: e.WORKER_SHUTDOWN_GRACE_TIME,
    }),
    workerManagesSchedules: e.WORKER_MANAGES_SCHEDULES === 'true',
    requestLog: Object.freeze({ retentionMs: e.REQUEST_LOG_RETENTION, purgeIntervalMs: e.REQUEST_LOG_PURGE_INTERVAL }),
    mail: Object.freeze({
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      deliveryIntervalMs: e.NOTIFICATION_DELIVERY_INTERVAL,
    }),
    webhooks: Object.freeze({
      timeoutMs: e.WEBHOOK_TIMEOUT,
      retentionMs: e.WEBHOOK_RETENTION,
      retry: Object.freeze({
        initialIntervalMs: e.WEBHOOK_RETRY_INITIAL,
        maximumIntervalMs: e.WEBHOOK_RETRY_MAX_INTERVAL,
        windowMs: e.WEBHOOK_RETRY_WINDOW,
      }),
    }),
  };
}
