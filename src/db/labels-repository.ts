import type { EntityManager } from '@mikro-orm/postgresql';
import { carrierDefinition } from '../carriers/catalog';
import { deriveCurrentLabels, type CoverageInput } from '../domain/current-labels';
import { orderNameKey, parseFulfillmentOrderId, parseOrderId } from '../domain/platform-ids';
import { newId } from '../ids';
import type {
  CodSource,
  LabelDirection,
  LabelFailureReason,
  LabelKind,
  LabelSource,
  LabelStatus,
} from '../domain/labels';
import { Label, LabelDocument, LabelFulfillmentOrder, type LabelParcel } from './entities/label';

export interface NewLabel {
  id?: string;
  storeId: string;
  /** Order by numeric ID or GID. */
  orderId: string;
  orderName: string;
  /** Fulfillment orders by numeric ID or GID; empty for a whole-order label. */
  fulfillmentOrderIds?: string[];
  /** False for an older label recorded without per-fulfillment-order coverage. */
  coverageKnown?: boolean;
  direction?: LabelDirection;
  kind?: LabelKind;
  status?: LabelStatus;
  failureReason?: LabelFailureReason | null;
  carrierCode: string;
  carrierAccountId?: string | null;
  service?: { code: string; name: string } | null;
  source?: LabelSource | null;
  cod?: { amount: string | number; currency: string; source: CodSource } | null;
  declaredValue?: { amount: string | number; currency: string } | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
  carrierShipmentId?: string | null;
  parcels?: LabelParcel[];
  batchId?: string | null;
  extras?: Record<string, unknown>;
  labelCreationId?: string | null;
  /** Insertion time; truncated to the second (spec: second precision, never changes). */
  createdAt: Date;
  updatedAt?: Date | null;
  printedCount?: number;
  lastPrintedAt?: Date | null;
}

/** State changes of a label (spec "Label status" transitions, export, batch completion, mark printed). */
export interface LabelStatePatch {
  status?: LabelStatus;
  failureReason?: LabelFailureReason | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
  parcels?: LabelParcel[];
  batchId?: string | null;
  printedCount?: number;
  lastPrintedAt?: Date | null;
}

export interface NewLabelDocument {
  labelId: string;
  pdf: Buffer;
  pageSize: string;
  pageCount: number;
  notIsolated?: boolean;
  storedAt: Date;
}

export function truncateToSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

function decimal(amount: string | number): string {
  return Number(amount).toFixed(2);
}

function buildLabel(em: EntityManager, input: NewLabel): { label: Label; coverage: LabelFulfillmentOrder[] } {
  // Coverage is returned as data, not yet persisted: see insertLabels.
  const order = parseOrderId(input.orderId);
  if (!order) throw new Error(`invalid order id ${input.orderId}`);
  const carrier = carrierDefinition(input.carrierCode);
  const status = input.status ?? 'ready';
  const id = input.id ?? newId('label');
  const label = em.create(Label, {
    id,
    storeId: input.storeId,
    orderGid: order.gid,
    orderLegacyId: order.legacyId,
    orderName: input.orderName,
    orderNameKey: orderNameKey(input.orderName),
    direction: input.direction ?? 'outbound',
    kind: input.kind ?? 'shipment',
    status,
    failureReason: status === 'failed' ? (input.failureReason ?? 'not_finalized') : null,
    carrierAccountId: input.carrierAccountId ?? null,
    carrierCode: carrier.code,
    carrierName: carrier.name,
    serviceCode: input.service?.code ?? null,
    serviceName: input.service?.name ?? null,
    source: input.source ?? null,
    codAmount: input.cod ? decimal(input.cod.amount) : null,
    codCurrency: input.cod?.currency ?? null,
    codSource: input.cod?.source ?? null,
    declaredValueAmount: input.declaredValue ? decimal(input.declaredValue.amount) : null,
    declaredValueCurrency: input.declaredValue?.currency ?? null,
    trackingNumber: input.trackingNumber ?? null,
    trackingUrl: input.trackingUrl ?? null,
    carrierShipmentId: input.carrierShipmentId ?? null,
    parcels: input.parcels ?? [],
    batchId: input.batchId ?? null,
    extras: input.extras ?? {},
    labelCreationId: input.labelCreationId ?? null,
    coverageKnown: input.coverageKnown ?? true,
    createdAt: truncateToSecond(input.createdAt),
    updatedAt: input.updatedAt ?? null,
    printedCount: input.printedCount ?? 0,
    lastPrintedAt: input.lastPrintedAt ?? null,
    current: false,
    supersedes: [],
    supersededBy: [],
    currentSet: 'ok',
  });
  const coverage = (input.fulfillmentOrderIds ?? []).map((value) => {
    const fo = parseFulfillmentOrderId(value);
    if (!fo) throw new Error(`invalid fulfillment order id ${value}`);
    return { labelId: id, fulfillmentOrderGid: fo.gid, fulfillmentOrderLegacyId: fo.legacyId, storeId: input.storeId };
  });
  return { label, coverage };
}

/**
 * Recomputes `current`, `supersedes`, `superseded_by` and `current_set` of one order and direction inside the
 * caller's transaction. An advisory lock per order and direction serialises concurrent writers, so two labels
 * inserted at once cannot both miss each other.
 */
export async function recomputeOrderProjection(
  em: EntityManager,
  key: { storeId: string; orderGid: string; direction: LabelDirection },
): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(hashtext(?))', [
    `labels:${key.storeId}:${key.orderGid}:${key.direction}`,
  ]);
  const rows = await em.execute<
    Array<{
      id: string;
      created_at: Date;
      seq: string;
      status: LabelStatus;
      kind: LabelKind;
      coverage_known: boolean;
      fos: string[];
      current: boolean;
      supersedes: string[];
      superseded_by: string[];
      current_set: 'ok' | 'ambiguous';
    }>
  >(
    `select l.id, l.created_at, l.seq, l.status, l.kind, l.coverage_known, l.current, l.supersedes, l.superseded_by, l.current_set,
            coalesce(array_agg(f.fulfillment_order_gid) filter (where f.fulfillment_order_gid is not null), '{}') as fos
       from labels l left join label_fulfillment_orders f on f.label_id = l.id
      where l.store_id = ? and l.order_gid = ? and l.direction = ?
      group by l.id`,
    [key.storeId, key.orderGid, key.direction],
  );
  const inputs: CoverageInput[] = rows.map((r) => ({
    id: r.id,
    createdAt: new Date(r.created_at),
    seq: Number(r.seq),
    status: r.status,
    kind: r.kind,
    coverageKnown: r.coverage_known,
    fulfillmentOrderIds: r.fos,
  }));
  const derived = deriveCurrentLabels(inputs);
  for (const row of rows) {
    const next = derived.get(row.id)!;
    const unchanged =
      row.current === next.current &&
      row.current_set === next.currentSet &&
      sameList(row.supersedes, next.supersedes) &&
      sameList(row.superseded_by, next.supersededBy);
    if (unchanged) continue;
    await em.nativeUpdate(
      Label,
      { id: row.id },
      {
        current: next.current,
        supersedes: next.supersedes,
        supersededBy: next.supersededBy,
        currentSet: next.currentSet,
      },
    );
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Inserts labels (with their coverage) and refreshes the projection of every order and direction they touch. */
/**
 * Inserts labels with their coverage and refreshes the orders' projection. With `refresh: false` the entities come
 * back as built, without the columns the database fills in (`seq`, the projection's flags): for callers that need
 * only the IDs, one statement fewer.
 */
export async function insertLabels(
  em: EntityManager,
  inputs: NewLabel[],
  options: { refresh?: boolean } = {},
): Promise<Label[]> {
  return em.transactional(async (tx) => {
    const built = inputs.map((input) => buildLabel(tx, input));
    // Coverage rows reference their label; the entities are not related in the ORM, so flush labels first.
    await tx.flush();
    for (const b of built) for (const c of b.coverage) tx.create(LabelFulfillmentOrder, c);
    await tx.flush();
    await recomputeFor(
      tx,
      built.map((b) => b.label),
    );
    if (options.refresh === false) return built.map((b) => b.label);
    const ids = built.map((b) => b.label.id);
    const fresh = await tx.find(Label, { id: { $in: ids } }, { refresh: true });
    return ids.map((id) => fresh.find((l) => l.id === id)!);
  });
}

export async function insertLabel(
  em: EntityManager,
  input: NewLabel,
  options: { refresh?: boolean } = {},
): Promise<Label> {
  const [label] = await insertLabels(em, [input], options);
  return label!;
}

/** Applies a state change, stamps `updated_at`, and refreshes the order's projection (status affects `current`). */
export async function updateLabelState(
  em: EntityManager,
  args: { storeId: string; labelId: string; patch: LabelStatePatch; now: Date },
): Promise<Label> {
  return em.transactional(async (tx) => {
    const label = await tx.findOneOrFail(Label, { id: args.labelId, storeId: args.storeId });
    const patch = { ...args.patch };
    if (patch.status !== undefined && patch.status !== 'failed') patch.failureReason = null;
    if (patch.status === 'failed') patch.failureReason ??= label.failureReason ?? 'not_finalized';
    tx.assign(label, { ...patch, updatedAt: truncateToSecond(args.now) });
    await tx.flush();
    await recomputeFor(tx, [label]);
    return tx.findOneOrFail(Label, { id: label.id }, { refresh: true });
  });
}

async function recomputeFor(em: EntityManager, labels: Label[]): Promise<void> {
  const keys = new Map<string, { storeId: string; orderGid: string; direction: LabelDirection }>();
  for (const l of labels)
    keys.set(`${l.storeId}|${l.orderGid}|${l.direction}`, {
      storeId: l.storeId,
      orderGid: l.orderGid,
      direction: l.direction,
    });
  // A fixed order avoids lock-order deadlocks between writers touching the same orders.
  for (const k of [...keys.keys()].sort()) await recomputeOrderProjection(em, keys.get(k)!);
}

/** Stores (or replaces) the PDF of a label. */
export async function storeLabelDocument(em: EntityManager, input: NewLabelDocument): Promise<void> {
  await em.upsert(LabelDocument, {
    labelId: input.labelId,
    pdf: input.pdf,
    pageSize: input.pageSize,
    pageCount: input.pageCount,
    byteSize: input.pdf.byteLength,
    notIsolated: input.notIsolated ?? false,
    storedAt: input.storedAt,
  });
}

/** Counts one print (spec `POST /labels/{label_id}/printed`); an atomic increment, so concurrent prints all count. */
export async function recordLabelPrint(
  em: EntityManager,
  args: { storeId: string; labelId: string; now: Date },
): Promise<void> {
  const at = truncateToSecond(args.now);
  await em.execute(
    'update labels set printed_count = printed_count + 1, last_printed_at = ?, updated_at = ? where id = ? and store_id = ?',
    [at, at, args.labelId, args.storeId],
  );
}
