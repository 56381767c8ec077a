import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Config } from '../config';

export const REQUEST_LOG_PURGE_SCHEDULE_ID = 'request-log-purge';
export const NOTIFICATION_DELIVERY_SCHEDULE_ID = 'notification-delivery';
export const PACKETA_FEED_SCHEDULE_ID = 'packeta-pickup-feed';

async function upsertSchedule(
  client: Client,
  scheduleId: string,
  everyMs: number,
  workflowType: string,
  args: unknown[],
  taskQueue: string,
  /** A new Schedule runs at once instead of after its first interval. */
  triggerImmediately = false,
) {
  const action = { type: 'startWorkflow' as const, workflowType, workflowId: scheduleId, taskQueue, args };
  const spec = { intervals: [{ every: everyMs }] };
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      state: { triggerImmediately },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
  }
}

/**
 * Packeta's pickup-point feed every PACKETA_FEED_INTERVAL (decision 1220), and at once when the Schedule is new, so a
 * fresh deployment has points before its first interval ends. Without an API key the Schedule goes (an operator who
 * removed the key stops the imports by restarting the worker).
 */
export async function ensurePacketaFeedSchedule(
  client: Client,
  config: Pick<Config, 'packetaFeed' | 'temporal'>,
): Promise<void> {
  if (!config.packetaFeed) {
    try {
      await client.schedule.getHandle(PACKETA_FEED_SCHEDULE_ID).delete();
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
    return;
  }
  await upsertSchedule(
    client,
    PACKETA_FEED_SCHEDULE_ID,
    config.packetaFeed.intervalMs,
    'importPacketaFeedWorkflow',
    [],
    config.temporal.taskQueue,
    true,
  );
}

/** Creates or updates the project's Schedules; run by the worker at boot, so it is idempotent. */
export async function ensureSchedules(client: Client, config: Config): Promise<void> {
  const queue = config.temporal.taskQueue;
  await upsertSchedule(
    client,
    REQUEST_LOG_PURGE_SCHEDULE_ID,
    config.requestLog.purgeIntervalMs,
    'purgeRequestLogWorkflow',
    // The same hourly run fails creations nothing carries on any more (a minute after their own deadline) and deletes
    // webhook events past their retention, and starts stored Shopify webhooks whose workflow never started.
    [
      {
        retentionMs: config.requestLog.retentionMs,
        staleCreationAfterMs: config.creation.notStartedMs + 60_000,
        webhookRetentionMs: config.webhooks.retentionMs,
        shopifyRedactRetryMs: config.privacy.redactRetryMs,
      },
    ],
    queue,
  );
  await upsertSchedule(
    client,
    NOTIFICATION_DELIVERY_SCHEDULE_ID,
    config.mail.deliveryIntervalMs,
    'deliverNotificationsWorkflow',
    [],
    queue,
  );
  await ensurePacketaFeedSchedule(client, config);
}
