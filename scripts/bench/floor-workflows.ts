import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/** The creation benchmark's floor: one workflow with one no-op activity, started and awaited by a client. */
export async function floorWorkflow(): Promise<void> {
  await noop();
}
