import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { createShopifyWebhookActivities } from '../activities/shopify-webhooks';
import type { ShopifyWebhookInput } from './shopify-webhook-contract';

const { processShopifyWebhook } = proxyActivities<ReturnType<typeof createShopifyWebhookActivities>>({
  startToCloseTimeout: '2 minutes',
  // A database or platform failure is retried; the activity itself is idempotent (decision 0709).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** Looks at most this often before the history starts afresh (a redaction waiting for creations of its orders). */
const LOOKS_PER_RUN = 100;

/**
 * A webhook Shopify sent, processed durably after the API acknowledged it (docs/decisions/0709): the activity does the
 * topic's work from the stored row; a redaction whose orders still have creations in flight waits and looks again,
 * since their send plan is what a retry of the carrier call needs.
 */
export async function shopifyWebhookWorkflow(input: ShopifyWebhookInput): Promise<string> {
  for (let look = 0; look < LOOKS_PER_RUN; look += 1) {
    const step = await processShopifyWebhook({ webhookId: input.webhookId });
    if (step.kind === 'done') return step.outcome;
    await sleep(input.retryMs);
  }
  return continueAsNew<typeof shopifyWebhookWorkflow>(input);
}
