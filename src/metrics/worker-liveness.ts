import type { MetricMeter } from '@temporalio/common';

/** How often the worker reports itself alive; an alert waits several periods. */
export const LIVENESS_PERIOD_MS = 10_000;

/**
 * The worker's own liveness, exported with the Temporal SDK's runtime metrics (same Prometheus endpoint):
 * `shipping_label_worker_running` is 1 while the worker polls, and `shipping_label_worker_heartbeat_seconds` is the Unix
 * time of the last tick of the worker's event loop, so a stuck loop shows as a stale heartbeat even though the SDK's
 * native exporter still answers. Returns a function that stops reporting.
 */
export function reportWorkerLiveness(
  worker: { getState: () => string },
  meter: MetricMeter,
  now: () => number = Date.now,
): () => void {
  const running = meter.createGauge(
    'shipping_label_worker_running',
    'int',
    '',
    '1 while the worker polls its task queue',
  );
  const heartbeat = meter.createGauge(
    'shipping_label_worker_heartbeat_seconds',
    'float',
    's',
    'Unix time of the last liveness tick of the worker',
  );
  const tick = () => {
    running.set(worker.getState() === 'RUNNING' ? 1 : 0);
    heartbeat.set(now() / 1000);
  };
  tick();
  const timer = setInterval(tick, LIVENESS_PERIOD_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    running.set(0);
  };
}
