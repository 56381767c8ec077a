export { deliverNotificationsWorkflow } from './deliver-notifications';
export { purgeRequestLogWorkflow } from './purge-request-log';
export { abandonedCreationRetentionWorkflow, labelCreationWorkflow } from './label-creation/index';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { shopifyWebhookWorkflow } from './shopify-webhook';
