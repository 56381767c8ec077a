import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * The custom search attributes operators filter creations by (registered on the server: the dev server at start from
 * `src/temporal/search-attributes.json`, elsewhere by the setup step `npm run temporal:setup`, decision 0310).
 */
export const STORE_ID = defineSearchAttributeKey('StoreId', 'KEYWORD');
export const ORDER_ID = defineSearchAttributeKey('OrderId', 'KEYWORD');
export const LABEL_CREATION_ID = defineSearchAttributeKey('LabelCreationId', 'KEYWORD');
export const CREATION_STATUS = defineSearchAttributeKey('CreationStatus', 'KEYWORD');
export const CARRIER_ACCOUNT_ID = defineSearchAttributeKey('CarrierAccountId', 'KEYWORD');
export const IDEMPOTENCY_KEY = defineSearchAttributeKey('IdempotencyKey', 'KEYWORD');

/**
 * What a workflow of the service is for, where its type alone does not say it to an operator: `webhook_delivery` and
 * `webhook_redelivery` (one type, `webhookDeliveryWorkflow`), `abandoned_creation_retention` (decision 0801).
 */
export const KIND = defineSearchAttributeKey('Kind', 'KEYWORD');
export type WorkflowKind = 'webhook_delivery' | 'webhook_redelivery' | 'abandoned_creation_retention';
