import type { CreationRow } from '../../creation/records';
import type { StoredAttention } from '../../domain/creation-record';
import { EMPTY_RESOLVED } from '../../domain/creation-decision';
import { readLabelViews, viewsInOrder } from '../../db/labels-query';
import type { Orm } from '../../db/orm';
import { serializeLabel } from '../labels/serializer';
import type { LabelWire } from '../labels/schemas';
import type { LabelCreationWire } from './schemas';
import { serializeLabelCreation, type AttentionView, type LabelCreationView } from './serializer';

/** A stored creation as the label creation object, with its labels as they are now. */
export async function creationWire(
  orm: Orm,
  row: CreationRow,
  options: { baseUrl: string; now: Date },
): Promise<LabelCreationWire> {
  return (await creationWires(orm, [row], options))[0]!;
}

/**
 * Stored creations of one store (a page of `GET /label-creations`) as label creation objects, in their order: the
 * labels of them all in one statement, not one per creation.
 */
export async function creationWires(
  orm: Orm,
  rows: readonly CreationRow[],
  options: { baseUrl: string; now: Date },
): Promise<LabelCreationWire[]> {
  const ids = [...new Set(rows.flatMap((row) => row.label_ids))];
  const storeId = rows[0]?.store_id;
  // Rows read by `creationStatement` carry their labels; others (a page, a claim) read them in one statement.
  const carried = rows.every((row) => row.label_rows !== undefined);
  const views = carried
    ? viewsInOrder(
        rows.flatMap((row) => row.label_rows!),
        ids,
      )
    : storeId && ids.length > 0
      ? await readLabelViews(orm.em.fork(), storeId, ids)
      : [];
  const byId = new Map(
    views.map((v) => [v.label.id, serializeLabel(v, { baseUrl: options.baseUrl, now: options.now })] as const),
  );
  return rows.map((row) => {
    const labels = row.label_ids.flatMap((id) => byId.get(id) ?? []);
    return serializeLabelCreation(creationView(row, labels), { baseUrl: options.baseUrl });
  });
}

const attentionView = (a: StoredAttention): AttentionView => ({
  ...a,
  sentAt: new Date(a.sentAt),
  resolveAllowedAt: new Date(a.resolveAllowedAt),
});

/** A stored record as the label creation serializer's view; `labels` come serialized by the label serializer. */
function creationView(row: CreationRow, labels: LabelWire[]): LabelCreationView {
  return {
    id: row.id,
    status: row.status,
    phase: row.phase,
    created: row.created,
    dryRun: false,
    would: null,
    waitingFor: row.status === 'processing' ? row.waiting_for : null,
    order: { id: row.order_gid, legacyId: row.order_legacy_id, name: row.order_name },
    requested: row.requested,
    resolved: { ...EMPTY_RESOLVED, ...row.resolved },
    labels,
    sideEffects: { fulfillment: null, orderTags: null, ...row.side_effects },
    warnings: row.warnings,
    error: row.error,
    attention: row.attention ? attentionView(row.attention) : null,
    resolution: row.resolution,
    clientReference: row.client_reference,
    idempotencyKey: row.idempotency_key,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
