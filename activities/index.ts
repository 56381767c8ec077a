import type { ActivityDeps } from './deps';
import { createLabelCreationActivities } from './label-creation';
import { createNotificationActivities } from './notifications';
import { createPickupFeedActivities } from './pickup-feed';
import { createRequestLogActivities } from './request-log';
import { createShopifyWebhookActivities } from './shopify-webhooks';
import { createWebhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createRequestLogActivities(deps),
    ...createNotificationActivities(deps),
    ...createLabelCreationActivities(deps),
    ...createWebhookActivities(deps),
    ...createShopifyWebhookActivities(deps),
    ...createPickupFeedActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
