export { deliverNotificationsWorkflow } from './deliver-notifications';
export { importPacketaFeedWorkflow } from './import-packeta-feed';
export { purgeRequestLogWorkflow } from './purge-request-log';
export { abandonedCreationRetentionWorkflow, labelCreationWorkflow } from './label-creation/index';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { shopifyWebhookWorkflow } from './shopify-webhook';
