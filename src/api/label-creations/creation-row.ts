import { viewRow } from '../../db/label-rows';
import { columns as c, orNull, rowParser } from '../../db/rows';
import type { CreationRow } from '../../creation/records';
import type { ResolvedBlock } from '../../domain/creation-decision';
import type { RequestedWire } from '../../domain/creation-request';
import type { SideEffects, StoredAttention } from '../../domain/creation-record';
import type { WaitFor } from '../../domain/existing-labels';
import { LABEL_CREATION_PHASES, LABEL_CREATION_STATUSES } from '../../domain/labels';
import type { CreationError, CreationWarning } from '../../domain/refusal';
import type { Resolution } from '../../domain/resolve';

// The checks of the composite columns, made once.
const status = c.oneOf(LABEL_CREATION_STATUSES);
const phase = orNull(c.oneOf(LABEL_CREATION_PHASES));
const requested = c.jsonObject<RequestedWire>();
const resolved = c.jsonObject<Partial<ResolvedBlock>>();
const warnings = c.jsonArray<CreationWarning>();
const sideEffects = c.jsonObject<Partial<SideEffects>>();
const error = orNull(c.jsonObject<CreationError>());
const attention = orNull(c.jsonObject<StoredAttention>());
const resolution = orNull(c.jsonObject<Resolution>());
const waitingFor = orNull(c.jsonObject<WaitFor>());
const labelRows = c.rows(viewRow);

/**
 * The row of `creationStatement` (`GET /label-creations/{id}`), checked, with the labels it carries (`label_rows`,
 * JSON): on the admitted read and on the read on its own alike.
 */
export const creationRow = rowParser('label creation', (r): CreationRow => ({
  id: c.text(r.id, 'id'),
  store_id: c.text(r.store_id, 'store_id'),
  status: status(r.status, 'status'),
  phase: phase(r.phase, 'phase'),
  idempotency_key: c.text(r.idempotency_key, 'idempotency_key'),
  request_hash: c.text(r.request_hash, 'request_hash'),
  key_bound: c.boolean(r.key_bound, 'key_bound'),
  api_key_id: c.textOrNull(r.api_key_id, 'api_key_id'),
  order_gid: c.textOrNull(r.order_gid, 'order_gid'),
  order_legacy_id: c.textOrNull(r.order_legacy_id, 'order_legacy_id'),
  order_name: c.textOrNull(r.order_name, 'order_name'),
  fulfillment_order_gids: c.textArray(r.fulfillment_order_gids, 'fulfillment_order_gids'),
  created: c.booleanOrNull(r.created, 'created'),
  requested: requested(r.requested, 'requested'),
  resolved: resolved(r.resolved, 'resolved'),
  warnings: warnings(r.warnings, 'warnings'),
  side_effects: sideEffects(r.side_effects, 'side_effects'),
  error: error(r.error, 'error'),
  attention: attention(r.attention, 'attention'),
  resolution: resolution(r.resolution, 'resolution'),
  waiting_for: waitingFor(r.waiting_for, 'waiting_for'),
  client_reference: c.textOrNull(r.client_reference, 'client_reference'),
  workflow_id: c.textOrNull(r.workflow_id, 'workflow_id'),
  label_ids: c.textArray(r.label_ids, 'label_ids'),
  label_rows: labelRows(r.label_rows, 'label_rows'),
  sent_at: c.timestampOrNull(r.sent_at, 'sent_at'),
  carrier_account_id: c.textOrNull(r.carrier_account_id, 'carrier_account_id'),
  created_at: c.timestamp(r.created_at, 'created_at'),
  updated_at: c.timestamp(r.updated_at, 'updated_at'),
  seq: c.bigintText(r.seq, 'seq'),
}));
