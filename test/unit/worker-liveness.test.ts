import type { MetricMeter } from '@temporalio/common';
import { reportWorkerLiveness } from '../../src/metrics/worker-liveness';

function recordingMeter() {
  const values = new Map<string, number>();
  const meter = {
    createGauge: (name: string) => ({ set: (value: number) => values.set(name, value) }),
  } as unknown as MetricMeter;
  return { meter, values };
}

describe('reportWorkerLiveness', () => {
  it.each([
    ['RUNNING', 1],
    ['DRAINING', 0],
    ['STOPPED', 0],
  ])('reports running as the worker state says (%s)', (state, expected) => {
    const { meter, values } = recordingMeter();
    const stop = reportWorkerLiveness({ getState: () => state }, meter, () => 1_700_000_000_500);
    expect(values.get('shipping_label_worker_running')).toBe(expected);
    expect(values.get('shipping_label_worker_heartbeat_seconds')).toBe(1_700_000_000.5);
    stop();
    expect(values.get('shipping_label_worker_running')).toBe(0);
  });
});
