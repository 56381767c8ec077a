import { ApiKeySchema } from './api-key';
import { NotificationSchema } from './notification';
import { RequestLogEntrySchema } from './request-log-entry';
import { StoreSchema } from './store';

export const entities = [RequestLogEntrySchema, StoreSchema, ApiKeySchema, NotificationSchema];
