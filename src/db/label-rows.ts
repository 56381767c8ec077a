import type { LabelParcel } from './entities/label';
import {
  COD_SOURCES,
  CURRENT_SET_VALUES,
  LABEL_DIRECTIONS,
  LABEL_FAILURE_REASONS,
  LABEL_KINDS,
  LABEL_SOURCES,
  LABEL_STATUSES,
} from '../domain/labels';
import type { LabelRef, ViewRow } from './labels-query';
import { columns as c, eitherRow, orNull, rowParser } from './rows';

// The checks of the composite columns, made once.
const direction = c.oneOf(LABEL_DIRECTIONS);
const kind = c.oneOf(LABEL_KINDS);
const status = c.oneOf(LABEL_STATUSES);
const failureReason = orNull(c.oneOf(LABEL_FAILURE_REASONS));
const source = orNull(c.oneOf(LABEL_SOURCES));
const codSource = orNull(c.oneOf(COD_SOURCES));
const parcels = c.jsonArray<LabelParcel>();
const extras = c.jsonObject<Record<string, unknown>>();
const currentSet = c.oneOf(CURRENT_SET_VALUES);
const coverage = c.jsonArray<[string, string]>();

/** The row of a label by reference (`labelRefStatement`, a first page): its ID, version and keyset position. */
export const labelRefRow = rowParser('label reference', (r): LabelRef => ({
  id: c.text(r.id, 'id'),
  row_version: c.bigintText(r.row_version, 'row_version'),
  created_at: c.timestamp(r.created_at, 'created_at'),
  seq: c.numeric(r.seq, 'seq'),
}));

/** A label's full row (`VIEW_SELECT`), from node-postgres or inside JSON (a creation's `label_rows`). */
export const viewRow = rowParser('label', (r): ViewRow => ({
  id: c.text(r.id, 'id'),
  seq: c.numeric(r.seq, 'seq'),
  store_id: c.text(r.store_id, 'store_id'),
  order_gid: c.text(r.order_gid, 'order_gid'),
  order_legacy_id: c.text(r.order_legacy_id, 'order_legacy_id'),
  order_name: c.text(r.order_name, 'order_name'),
  order_name_key: c.text(r.order_name_key, 'order_name_key'),
  direction: direction(r.direction, 'direction'),
  kind: kind(r.kind, 'kind'),
  status: status(r.status, 'status'),
  failure_reason: failureReason(r.failure_reason, 'failure_reason'),
  carrier_account_id: c.textOrNull(r.carrier_account_id, 'carrier_account_id'),
  carrier_code: c.text(r.carrier_code, 'carrier_code'),
  carrier_name: c.text(r.carrier_name, 'carrier_name'),
  service_code: c.textOrNull(r.service_code, 'service_code'),
  service_name: c.textOrNull(r.service_name, 'service_name'),
  source: source(r.source, 'source'),
  cod_amount: c.numericOrNull(r.cod_amount, 'cod_amount'),
  cod_currency: c.textOrNull(r.cod_currency, 'cod_currency'),
  cod_source: codSource(r.cod_source, 'cod_source'),
  declared_value_amount: c.numericOrNull(r.declared_value_amount, 'declared_value_amount'),
  declared_value_currency: c.textOrNull(r.declared_value_currency, 'declared_value_currency'),
  tracking_number: c.textOrNull(r.tracking_number, 'tracking_number'),
  tracking_url: c.textOrNull(r.tracking_url, 'tracking_url'),
  carrier_shipment_id: c.textOrNull(r.carrier_shipment_id, 'carrier_shipment_id'),
  parcels: parcels(r.parcels, 'parcels'),
  batch_id: c.textOrNull(r.batch_id, 'batch_id'),
  extras: extras(r.extras, 'extras'),
  label_creation_id: c.textOrNull(r.label_creation_id, 'label_creation_id'),
  coverage_known: c.boolean(r.coverage_known, 'coverage_known'),
  created_at: c.timestamp(r.created_at, 'created_at'),
  updated_at: c.timestampOrNull(r.updated_at, 'updated_at'),
  printed_count: c.integer(r.printed_count, 'printed_count'),
  last_printed_at: c.timestampOrNull(r.last_printed_at, 'last_printed_at'),
  current: c.boolean(r.current, 'current'),
  supersedes: c.textArray(r.supersedes, 'supersedes'),
  superseded_by: c.textArray(r.superseded_by, 'superseded_by'),
  current_set: currentSet(r.current_set, 'current_set'),
  coverage: coverage(r.coverage, 'coverage'),
  has_document: c.boolean(r.has_document, 'has_document'),
  document_not_isolated: c.booleanOrNull(r.document_not_isolated, 'document_not_isolated'),
  document_redacted: c.booleanOrNull(r.document_redacted, 'document_redacted'),
  row_version: c.numeric(r.row_version, 'row_version'),
}));

/**
 * A row of `labelPageStatement`: full rows after a cursor, references on a first page. Told apart as the label JSON
 * tells them apart (`isFullRow`: a full row has `order_gid`), and each checked as what it is taken for.
 */
export const labelPageRow = eitherRow((row) => 'order_gid' in row, viewRow, labelRefRow);
