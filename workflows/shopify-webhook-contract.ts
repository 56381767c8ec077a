/** The Shopify webhook workflow's contract (decision 0709): its name, ID and input, for the API that starts it. */
export const SHOPIFY_WEBHOOK_WORKFLOW = 'shopifyWebhookWorkflow';

/** One workflow per webhook Shopify sent: its `X-Shopify-Webhook-Id` makes a repeat start nothing. */
export const shopifyWebhookWorkflowId = (webhookId: string) => `shopify-webhook/${webhookId}`;

export interface ShopifyWebhookInput {
  /** The row in `shopify_webhooks`; the payload stays there (it carries personal data), never in this history. */
  webhookId: string;
  /** How long a redaction waits before it looks again at creations still in flight for its orders. */
  retryMs: number;
}

/** What one processing step came to: done, or creations of the redacted orders still in flight. */
export type ShopifyWebhookStep = { kind: 'done'; outcome: string } | { kind: 'wait'; inFlight: number };

export type ShopifyWebhookWorkflow = (input: ShopifyWebhookInput) => Promise<string>;
