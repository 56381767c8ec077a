import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import { webhookRetryDelayMs } from '../src/domain/webhooks';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from './webhook-delivery-contract';
import { workflowNow } from './workflow-time';

// One attempt is one HTTP request: Temporal does not retry it (a second POST is the workflow's decision, after its
// backoff). The request's own time box is shorter than this; the margin covers the database writes around it.
const { attemptWebhookDelivery } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 1 },
});

/**
 * Delivers one event to one endpoint (decision 0604): attempts with exponential backoff until one is answered 2xx or
 * the retry window (24 hours) is over. Each attempt records itself, with the time of the next one, in the delivery
 * log. The history stays small: about ten events per attempt, about 30 attempts over 24 hours with the defaults.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const firstAttemptAt = workflowNow();
  for (let attempt = 1; ; attempt += 1) {
    const retryInMs = webhookRetryDelayMs(input.retry, attempt, workflowNow() - firstAttemptAt);
    let outcome: 'delivered' | 'retry' | 'failed' | 'cancelled';
    try {
      ({ outcome } = await attemptWebhookDelivery({ deliveryId: input.deliveryId, attempt, retryInMs }));
    } catch {
      // The worker running the attempt was lost, or the log could not be written: a failed attempt like any other.
      outcome = retryInMs === null ? 'failed' : 'retry';
    }
    if (outcome !== 'retry') return { outcome, attempts: attempt };
    // Named for the Web UI's event history (user metadata: the timer is matched on replay as before).
    await sleep(retryInMs!, {
      summary: `wait ${Math.round(retryInMs! / 1000)} s, then attempt delivery ${attempt + 1}`,
    });
  }
}
