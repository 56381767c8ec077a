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
import { columns as c, eitherRow, rowParser } from './rows';

/** The row of a label by reference (`labelRefStatement`, a first page): its ID, version and keyset position. */
export const labelRefRow = rowParser<LabelRef>('label reference', {
  id: c.text,
  row_version: c.bigintText,
  created_at: c.timestamp,
  seq: c.numeric,
});

/** A label's full row (`VIEW_SELECT`), from node-postgres or inside JSON (a creation's `label_rows`). */
export const viewRow = rowParser<ViewRow>('label', {
  id: c.text,
  seq: c.numeric,
  store_id: c.text,
  order_gid: c.text,
  order_legacy_id: c.text,
  order_name: c.text,
  order_name_key: c.text,
  direction: c.oneOf(LABEL_DIRECTIONS),
  kind: c.oneOf(LABEL_KINDS),
  status: c.oneOf(LABEL_STATUSES),
  failure_reason: c.nullable(c.oneOf(LABEL_FAILURE_REASONS)),
  carrier_account_id: c.nullable(c.text),
  carrier_code: c.text,
  carrier_name: c.text,
  service_code: c.nullable(c.text),
  service_name: c.nullable(c.text),
  source: c.nullable(c.oneOf(LABEL_SOURCES)),
  cod_amount: c.nullable(c.numeric),
  cod_currency: c.nullable(c.text),
  cod_source: c.nullable(c.oneOf(COD_SOURCES)),
  declared_value_amount: c.nullable(c.numeric),
  declared_value_currency: c.nullable(c.text),
  tracking_number: c.nullable(c.text),
  tracking_url: c.nullable(c.text),
  carrier_shipment_id: c.nullable(c.text),
  parcels: c.jsonArray<LabelParcel>(),
  batch_id: c.nullable(c.text),
  extras: c.jsonObject<Record<string, unknown>>(),
  label_creation_id: c.nullable(c.text),
  coverage_known: c.boolean,
  created_at: c.timestamp,
  updated_at: c.nullable(c.timestamp),
  printed_count: c.integer,
  last_printed_at: c.nullable(c.timestamp),
  current: c.boolean,
  supersedes: c.textArray,
  superseded_by: c.textArray,
  current_set: c.oneOf(CURRENT_SET_VALUES),
  coverage: c.jsonArray<[string, string]>(),
  has_document: c.boolean,
  document_not_isolated: c.nullable(c.boolean),
  document_redacted: c.nullable(c.boolean),
  row_version: c.numeric,
});

/**
 * A row of `labelPageStatement`: full rows after a cursor, references on a first page. Told apart as the label JSON
 * tells them apart (`isFullRow`: a full row has `order_gid`), and each checked as what it is taken for.
 */
export const labelPageRow = eitherRow((row) => 'order_gid' in row, viewRow, labelRefRow);
