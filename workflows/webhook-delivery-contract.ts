import type { WebhookRetrySchedule } from '../src/domain/webhooks';

/** The webhook delivery workflow's contract: its name and types, for the code that starts it (src/webhooks/). */
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';

export interface WebhookDeliveryInput {
  /** `whd_...`: the delivery row; the event, endpoint and log live in the database, not in this history. */
  deliveryId: string;
  retry: WebhookRetrySchedule;
}

export interface WebhookDeliveryResult {
  outcome: 'delivered' | 'failed' | 'cancelled';
  attempts: number;
}

export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;
