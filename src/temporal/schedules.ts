import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';

export const REQUEST_LOG_PURGE_SCHEDULE_ID = 'request-log-purge';

/** Creates or updates the project's Schedules; run by the worker at boot, so it is idempotent. */
export async function ensureSchedules(client: Client, config: Config): Promise<void> {
  const action = {
    type: 'startWorkflow' as const,
    workflowType: 'purgeRequestLogWorkflow',
    workflowId: 'request-log-purge',
    taskQueue: config.temporal.taskQueue,
    args: [{ retentionMs: config.requestLog.retentionMs }],
  };
  const spec = { intervals: [{ every: config.requestLog.purgeIntervalMs }] };
  try {
    await client.schedule.create({
      scheduleId: REQUEST_LOG_PURGE_SCHEDULE_ID,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(REQUEST_LOG_PURGE_SCHEDULE_ID).update((previous) => ({ ...previous, spec, action }));
  }
}
