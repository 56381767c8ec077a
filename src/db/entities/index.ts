import { ApiKeySchema } from './api-key';
import { NotificationSchema } from './notification';
import { CarrierAccountSchema } from './carrier-account';
import { CarrierRuleSchema } from './carrier-rule';
import { LabelDocumentSchema, LabelFulfillmentOrderSchema, LabelSchema } from './label';
import { LabelCreationSchema } from './label-creation';
import { PickupPointProviderSchema } from './pickup-point-provider';
import { RequestLogEntrySchema } from './request-log-entry';
import { StoreSchema } from './store';
import { StoreSettingsSchema } from './store-settings';

export const entities = [
  RequestLogEntrySchema,
  StoreSchema,
  ApiKeySchema,
  StoreSettingsSchema,
  CarrierAccountSchema,
  CarrierRuleSchema,
  LabelSchema,
  LabelFulfillmentOrderSchema,
  LabelDocumentSchema,
  LabelCreationSchema,
  NotificationSchema,
  PickupPointProviderSchema,
];
