import { viewRow } from '../../db/label-rows';
import { columns as c, rowParser } from '../../db/rows';
import type { CreationRow } from '../../creation/records';
import type { ResolvedBlock } from '../../domain/creation-decision';
import type { RequestedWire } from '../../domain/creation-request';
import type { SideEffects, StoredAttention } from '../../domain/creation-record';
import type { WaitFor } from '../../domain/existing-labels';
import { LABEL_CREATION_PHASES, LABEL_CREATION_STATUSES } from '../../domain/labels';
import type { CreationError, CreationWarning } from '../../domain/refusal';
import type { Resolution } from '../../domain/resolve';

/**
 * The row of `creationStatement` (`GET /label-creations/{id}`), checked, with the labels it carries (`label_rows`,
 * JSON): on the admitted read and on the read on its own alike.
 */
export const creationRow = rowParser<CreationRow>('label creation', {
  id: c.text,
  store_id: c.text,
  status: c.oneOf(LABEL_CREATION_STATUSES),
  phase: c.nullable(c.oneOf(LABEL_CREATION_PHASES)),
  idempotency_key: c.text,
  request_hash: c.text,
  key_bound: c.boolean,
  api_key_id: c.nullable(c.text),
  order_gid: c.nullable(c.text),
  order_legacy_id: c.nullable(c.text),
  order_name: c.nullable(c.text),
  fulfillment_order_gids: c.textArray,
  created: c.nullable(c.boolean),
  requested: c.jsonObject<RequestedWire>(),
  resolved: c.jsonObject<Partial<ResolvedBlock>>(),
  warnings: c.jsonArray<CreationWarning>(),
  side_effects: c.jsonObject<Partial<SideEffects>>(),
  error: c.nullable(c.jsonObject<CreationError>()),
  attention: c.nullable(c.jsonObject<StoredAttention>()),
  resolution: c.nullable(c.jsonObject<Resolution>()),
  waiting_for: c.nullable(c.jsonObject<WaitFor>()),
  client_reference: c.nullable(c.text),
  workflow_id: c.nullable(c.text),
  label_ids: c.textArray,
  label_rows: c.rows(viewRow),
  sent_at: c.nullable(c.timestamp),
  carrier_account_id: c.nullable(c.text),
  created_at: c.timestamp,
  updated_at: c.timestamp,
  seq: c.bigintText,
});
