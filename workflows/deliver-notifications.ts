import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliverNotificationsResult } from '../activities/notifications';

const { deliverNotifications } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

/** Run by the `notification-delivery` Schedule: drains the e-mail outbox. */
export async function deliverNotificationsWorkflow(): Promise<DeliverNotificationsResult> {
  return deliverNotifications();
}
