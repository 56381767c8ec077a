import { EntitySchema } from '@mikro-orm/core';

/**
 * One row per API request attributed to a store (spec "Authentication" 5); never bodies or query strings. The table is
 * partitioned by day (docs/decisions/0105-request-log-partitions.md): its key is `(id, created_at)`, `id` alone is
 * still unique (one sequence), which is all the ORM's reads need.
 */
export class RequestLogEntry {
  id!: string;
  requestId!: string;
  storeId!: string | null;
  apiKeyId!: string | null;
  method!: string;
  /** Route template, e.g. `/v1/labels/{label_id}`; null for unknown endpoints. */
  endpoint!: string | null;
  status!: number;
  errorCode!: string | null;
  ip!: string | null;
  labelCount!: number | null;
  byteSize!: number | null;
  createdAt!: Date;
}

export const RequestLogEntrySchema = new EntitySchema<RequestLogEntry>({
  class: RequestLogEntry,
  tableName: 'request_log',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    requestId: { type: 'string', fieldName: 'request_id' },
    storeId: { type: 'string', nullable: true, fieldName: 'store_id' },
    apiKeyId: { type: 'string', nullable: true, fieldName: 'api_key_id' },
    method: { type: 'string' },
    endpoint: { type: 'string', nullable: true },
    status: { type: 'integer' },
    errorCode: { type: 'string', nullable: true, fieldName: 'error_code' },
    ip: { type: 'string', nullable: true },
    labelCount: { type: 'integer', nullable: true, fieldName: 'label_count' },
    byteSize: { type: 'integer', nullable: true, fieldName: 'byte_size' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
  },
});
