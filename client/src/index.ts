// The Shipping Label API client: the typed client over the generated types, named types, and helpers (docs/client.md).
export type { components, operations, paths } from '../generated/schema.js';
export { createShippingLabelClient, type ShippingLabelClient, type ShippingLabelClientOptions } from './client.js';
export { createLabel, CreationStillProcessing, type CreateLabelOptions } from './create-label.js';
export { retryAfterSeconds, ShippingLabelApiError } from './errors.js';
export { labelCreationPages, labelPages } from './pages.js';
export { retryingFetch, type RetryOptions } from './retry.js';
export type * from './types.js';
export {
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  type VerifyWebhookOptions,
  type WebhookVerification,
} from './webhooks.js';
