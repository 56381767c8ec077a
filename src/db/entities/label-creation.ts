import { EntitySchema } from '@mikro-orm/core';
import type { LabelCreationPhase, LabelCreationStatus } from '../../domain/labels';

/** One `POST /labels` (`lcr_...`): its decision, progress and result. Dry runs are never stored. */
export class LabelCreation {
  id!: string;
  storeId!: string;
  status!: LabelCreationStatus;
  phase!: LabelCreationPhase | null;
  idempotencyKey!: string;
  /** Hash of the request, to tell a repeat from a different request under the same key. */
  requestHash!: string;
  orderGid!: string;
  orderLegacyId!: string;
  orderName!: string;
  fulfillmentOrderGids!: string[];
  /** true/false once known whether this attempt created the shipment; null while unknown. */
  created!: boolean | null;
  requested!: Record<string, unknown>;
  resolved!: Record<string, unknown>;
  warnings!: Array<Record<string, unknown>>;
  sideEffects!: Record<string, unknown>;
  error!: Record<string, unknown> | null;
  attention!: Record<string, unknown> | null;
  /** The merchant's resolve of an unclear creation (`src/domain/resolve.ts`). */
  resolution!: Record<string, unknown> | null;
  clientReference!: string | null;
  workflowId!: string | null;
  createdAt!: Date;
  updatedAt!: Date;
}

export const LabelCreationSchema = new EntitySchema<LabelCreation>({
  class: LabelCreation,
  tableName: 'label_creations',
  properties: {
    id: { type: 'string', primary: true },
    storeId: { type: 'string', fieldName: 'store_id' },
    status: { type: 'string' },
    phase: { type: 'string', nullable: true },
    idempotencyKey: { type: 'string', fieldName: 'idempotency_key' },
    requestHash: { type: 'string', fieldName: 'request_hash' },
    orderGid: { type: 'string', fieldName: 'order_gid' },
    orderLegacyId: { type: 'string', fieldName: 'order_legacy_id' },
    orderName: { type: 'string', fieldName: 'order_name' },
    fulfillmentOrderGids: { type: 'string[]', fieldName: 'fulfillment_order_gids', columnType: 'text[]' },
    created: { type: 'boolean', nullable: true },
    requested: { type: 'json' },
    resolved: { type: 'json' },
    warnings: { type: 'json' },
    sideEffects: { type: 'json', fieldName: 'side_effects' },
    error: { type: 'json', nullable: true },
    attention: { type: 'json', nullable: true },
    resolution: { type: 'json', nullable: true },
    clientReference: { type: 'string', nullable: true, fieldName: 'client_reference' },
    workflowId: { type: 'string', nullable: true, fieldName: 'workflow_id' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', fieldName: 'updated_at', columnType: 'timestamptz' },
  },
});
