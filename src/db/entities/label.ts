import { EntitySchema } from '@mikro-orm/core';
import type {
  CodSource,
  CurrentSet,
  LabelDirection,
  LabelFailureReason,
  LabelKind,
  LabelSource,
  LabelStatus,
} from '../../domain/labels';

export interface LabelParcel {
  trackingNumber: string | null;
  trackingUrl: string | null;
  weightGrams: number | null;
}

/**
 * A label: one shipment booked at a carrier. `current`, `supersedes`, `supersededBy` and `currentSet` are a
 * projection kept by `labels-repository.ts` for the label's order and direction; nothing else writes them.
 * The table's `seq` column (insertion order, not mapped) breaks ties between labels created in the same second.
 */
export class Label {
  id!: string;
  storeId!: string;
  orderGid!: string;
  orderLegacyId!: string;
  orderName!: string;
  /** Lowercased order name without the leading `#`: the `order_name` filter's key. */
  orderNameKey!: string;
  direction!: LabelDirection;
  kind!: LabelKind;
  status!: LabelStatus;
  failureReason!: LabelFailureReason | null;
  carrierAccountId!: string | null;
  carrierCode!: string;
  carrierName!: string;
  serviceCode!: string | null;
  serviceName!: string | null;
  source!: LabelSource | null;
  /** numeric(12,2) as a decimal string. */
  codAmount!: string | null;
  codCurrency!: string | null;
  codSource!: CodSource | null;
  declaredValueAmount!: string | null;
  declaredValueCurrency!: string | null;
  trackingNumber!: string | null;
  trackingUrl!: string | null;
  /** The carrier's own shipment ID, which a render call at the carrier is addressed by; null on older labels. */
  carrierShipmentId!: string | null;
  /** A redaction (Shopify's privacy webhooks) removed the stored document: never served again (decision 0708). */
  documentRedacted?: boolean;
  parcels!: LabelParcel[];
  batchId!: string | null;
  extras!: Record<string, unknown>;
  labelCreationId!: string | null;
  /** False for older labels recorded without per-fulfillment-order coverage. */
  coverageKnown!: boolean;
  createdAt!: Date;
  updatedAt!: Date | null;
  printedCount!: number;
  lastPrintedAt!: Date | null;
  current!: boolean;
  supersedes!: string[];
  supersededBy!: string[];
  currentSet!: CurrentSet;
}

export const LabelSchema = new EntitySchema<Label>({
  class: Label,
  tableName: 'labels',
  properties: {
    id: { type: 'string', primary: true },
    storeId: { type: 'string', fieldName: 'store_id' },
    orderGid: { type: 'string', fieldName: 'order_gid' },
    orderLegacyId: { type: 'string', fieldName: 'order_legacy_id' },
    orderName: { type: 'string', fieldName: 'order_name' },
    orderNameKey: { type: 'string', fieldName: 'order_name_key' },
    direction: { type: 'string' },
    kind: { type: 'string' },
    status: { type: 'string' },
    failureReason: { type: 'string', nullable: true, fieldName: 'failure_reason' },
    carrierAccountId: { type: 'string', nullable: true, fieldName: 'carrier_account_id' },
    carrierCode: { type: 'string', fieldName: 'carrier_code' },
    carrierName: { type: 'string', fieldName: 'carrier_name' },
    serviceCode: { type: 'string', nullable: true, fieldName: 'service_code' },
    serviceName: { type: 'string', nullable: true, fieldName: 'service_name' },
    source: { type: 'string', nullable: true },
    codAmount: { type: 'decimal', nullable: true, fieldName: 'cod_amount', columnType: 'numeric(12,2)' },
    codCurrency: { type: 'string', nullable: true, fieldName: 'cod_currency' },
    codSource: { type: 'string', nullable: true, fieldName: 'cod_source' },
    declaredValueAmount: {
      type: 'decimal',
      nullable: true,
      fieldName: 'declared_value_amount',
      columnType: 'numeric(12,2)',
    },
    declaredValueCurrency: { type: 'string', nullable: true, fieldName: 'declared_value_currency' },
    trackingNumber: { type: 'string', nullable: true, fieldName: 'tracking_number' },
    trackingUrl: { type: 'string', nullable: true, fieldName: 'tracking_url' },
    carrierShipmentId: { type: 'string', nullable: true, fieldName: 'carrier_shipment_id' },
    documentRedacted: { type: 'boolean', fieldName: 'document_redacted', default: false },
    parcels: { type: 'json' },
    batchId: { type: 'string', nullable: true, fieldName: 'batch_id' },
    extras: { type: 'json' },
    labelCreationId: { type: 'string', nullable: true, fieldName: 'label_creation_id' },
    coverageKnown: { type: 'boolean', fieldName: 'coverage_known' },
    createdAt: { type: 'Date', fieldName: 'created_at', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', nullable: true, fieldName: 'updated_at', columnType: 'timestamptz' },
    printedCount: { type: 'integer', fieldName: 'printed_count' },
    lastPrintedAt: { type: 'Date', nullable: true, fieldName: 'last_printed_at', columnType: 'timestamptz' },
    current: { type: 'boolean' },
    supersedes: { type: 'string[]', columnType: 'text[]' },
    supersededBy: { type: 'string[]', fieldName: 'superseded_by', columnType: 'text[]' },
    currentSet: { type: 'string', fieldName: 'current_set' },
  },
});

/** A fulfillment order a label covers (spec: `fulfillment_orders`; none for whole-order labels). */
export class LabelFulfillmentOrder {
  labelId!: string;
  fulfillmentOrderGid!: string;
  fulfillmentOrderLegacyId!: string;
  storeId!: string;
}

export const LabelFulfillmentOrderSchema = new EntitySchema<LabelFulfillmentOrder>({
  class: LabelFulfillmentOrder,
  tableName: 'label_fulfillment_orders',
  properties: {
    labelId: { type: 'string', primary: true, fieldName: 'label_id' },
    fulfillmentOrderGid: { type: 'string', primary: true, fieldName: 'fulfillment_order_gid' },
    fulfillmentOrderLegacyId: { type: 'string', fieldName: 'fulfillment_order_legacy_id' },
    storeId: { type: 'string', fieldName: 'store_id' },
  },
});

/** The stored PDF of a label. Labels whose carrier renders on demand and that have no stored copy have none. */
export class LabelDocument {
  labelId!: string;
  pdf!: Buffer;
  /** Page size name from the carrier catalogue (`A6`, `10x15`, ...). */
  pageSize!: string;
  pageCount!: number;
  byteSize!: number;
  /** Older carrier batch file that may contain other labels of its batch. */
  notIsolated!: boolean;
  storedAt!: Date;
}

export const LabelDocumentSchema = new EntitySchema<LabelDocument>({
  class: LabelDocument,
  tableName: 'label_documents',
  properties: {
    labelId: { type: 'string', primary: true, fieldName: 'label_id' },
    // Lazy: listing labels needs to know a copy exists, never its bytes.
    pdf: { type: 'blob', lazy: true, columnType: 'bytea' },
    pageSize: { type: 'string', fieldName: 'page_size' },
    pageCount: { type: 'integer', fieldName: 'page_count' },
    byteSize: { type: 'integer', fieldName: 'byte_size' },
    notIsolated: { type: 'boolean', fieldName: 'not_isolated' },
    storedAt: { type: 'Date', fieldName: 'stored_at', columnType: 'timestamptz' },
  },
});
