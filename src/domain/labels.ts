/**
 * The label vocabulary of the spec ("Label", "Label document object", "Label creation"), in one place: the database
 * entities, the wire schemas, the fixtures and the domain functions all take their values from here.
 */
export const LABEL_DIRECTIONS = ['outbound', 'return'] as const;
export const LABEL_KINDS = ['shipment', 'claim', 'collection'] as const;
export const LABEL_STATUSES = ['pending', 'ready', 'failed'] as const;
export const LABEL_FAILURE_REASONS = ['carrier_import_rejected', 'not_finalized'] as const;
export const LABEL_SOURCES = ['admin', 'flow', 'api'] as const;
export const COD_SOURCES = ['request', 'order_metafield', 'payment_gateway', 'shop_rule', 'none'] as const;
export const CURRENT_SET_VALUES = ['ok', 'ambiguous'] as const;

export type LabelDirection = (typeof LABEL_DIRECTIONS)[number];
export type LabelKind = (typeof LABEL_KINDS)[number];
export type LabelStatus = (typeof LABEL_STATUSES)[number];
export type LabelFailureReason = (typeof LABEL_FAILURE_REASONS)[number];
export type LabelSource = (typeof LABEL_SOURCES)[number];
export type CodSource = (typeof COD_SOURCES)[number];
export type CurrentSet = (typeof CURRENT_SET_VALUES)[number];

/** Print formats a label can be served in; `zpl` is reserved and never produced. */
export const DOCUMENT_FORMATS = ['label', 'a4'] as const;
export const REQUESTABLE_DOCUMENT_FORMATS = ['label', 'a4', 'zpl'] as const;
export const DOCUMENT_SOURCES = ['stored', 'carrier'] as const;
export const DOCUMENT_AVAILABILITIES = [
  'available',
  'pending',
  'expired',
  'not_applicable',
  'not_isolated',
  'carrier_excluded',
  'not_reissuable',
] as const;

export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];
export type RequestedDocumentFormat = (typeof REQUESTABLE_DOCUMENT_FORMATS)[number];
export type DocumentSource = (typeof DOCUMENT_SOURCES)[number];
export type DocumentAvailability = (typeof DOCUMENT_AVAILABILITIES)[number];

export const LABEL_CREATION_STATUSES = ['processing', 'succeeded', 'failed', 'needs_attention', 'abandoned'] as const;
export const LABEL_CREATION_PHASES = [
  'queued',
  'preparing',
  'waiting_for_lock',
  'sending_to_carrier',
  'waiting_for_carrier',
  'finalizing',
] as const;
export const NEXT_ACTIONS = [
  'fetch_document',
  'wait_for_document',
  'poll',
  'manual_check',
  'fix_and_retry',
  'retry_later',
  'none',
] as const;

export type LabelCreationStatus = (typeof LABEL_CREATION_STATUSES)[number];
export type LabelCreationPhase = (typeof LABEL_CREATION_PHASES)[number];
export type NextAction = (typeof NEXT_ACTIONS)[number];

/** `POST /labels` `fulfillment`: `account_default` follows the carrier account's default mode. */
export const FULFILLMENT_MODES = ['none', 'fulfill', 'fulfill_and_notify'] as const;
export const FULFILLMENT_REQUESTS = ['account_default', ...FULFILLMENT_MODES] as const;
export const ON_EXISTING_MODES = ['return', 'reject', 'create_new'] as const;
/** Dry runs only: what the live call would do. */
export const WOULD_VALUES = ['create', 'return_existing', 'wait_for_existing'] as const;

export type FulfillmentMode = (typeof FULFILLMENT_MODES)[number];
export type FulfillmentRequest = (typeof FULFILLMENT_REQUESTS)[number];
export type OnExisting = (typeof ON_EXISTING_MODES)[number];
export type Would = (typeof WOULD_VALUES)[number];
