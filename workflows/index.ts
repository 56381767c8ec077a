export { deliverNotificationsWorkflow } from './deliver-notifications';
export { purgeRequestLogWorkflow } from './purge-request-log';
export { labelCreationWorkflow } from './label-creation';
export { webhookDeliveryWorkflow } from './webhook-delivery';
