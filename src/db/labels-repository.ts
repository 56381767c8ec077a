import type { EntityManager } from '@mikro-orm/postgresql';
import { carrierDefinition } from '../domain/carrier-catalog';
import { deriveCurrentLabels, type CoverageInput, type DerivedLabelProperties } from '../domain/current-labels';
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
import { Label, LabelFulfillmentOrder, type LabelParcel } from './entities/label';
import { renderWrite, type SqlPart } from './write-statement';

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

/** A new label's properties (the projection's flags not yet derived) and its coverage rows, from its input. */
function newLabelFields(input: NewLabel): { fields: Label; coverage: LabelFulfillmentOrder[] } {
  const order = parseOrderId(input.orderId);
  if (!order) throw new Error(`invalid order id ${input.orderId}`);
  const carrier = carrierDefinition(input.carrierCode);
  const status = input.status ?? 'ready';
  const id = input.id ?? newId('label');
  const fields: Label = {
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
  };
  const coverage = (input.fulfillmentOrderIds ?? []).map((value) => {
    const fo = parseFulfillmentOrderId(value);
    if (!fo) throw new Error(`invalid fulfillment order id ${value}`);
    return { labelId: id, fulfillmentOrderGid: fo.gid, fulfillmentOrderLegacyId: fo.legacyId, storeId: input.storeId };
  });
  return { fields, coverage };
}

type ProjectionKey = { storeId: string; orderGid: string; direction: LabelDirection };

/** A label of one order and direction as the projection reads it (`deriveCurrentLabels`' input and its last result). */
interface ProjectionRow {
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
}

/**
 * Takes the projection lock of one order and direction (until the transaction ends), then reads its labels: every
 * writer of the order's labels does both before it derives, so two labels written at once cannot miss each other.
 * The read is a statement of its own, after the lock: its snapshot then includes every writer that went before.
 */
async function lockAndReadProjection(em: EntityManager, key: ProjectionKey): Promise<ProjectionRow[]> {
  await em.execute('select pg_advisory_xact_lock(hashtext(?))', [
    `labels:${key.storeId}:${key.orderGid}:${key.direction}`,
  ]);
  return em.execute<ProjectionRow[]>(
    `select l.id, l.created_at, l.seq, l.status, l.kind, l.coverage_known, l.current, l.supersedes, l.superseded_by, l.current_set,
            coalesce(array_agg(f.fulfillment_order_gid) filter (where f.fulfillment_order_gid is not null), '{}') as fos
       from labels l left join label_fulfillment_orders f on f.label_id = l.id
      where l.store_id = ? and l.order_gid = ? and l.direction = ?
      group by l.id`,
    [key.storeId, key.orderGid, key.direction],
  );
}

const coverageInput = (r: ProjectionRow): CoverageInput => ({
  id: r.id,
  createdAt: new Date(r.created_at),
  seq: Number(r.seq),
  status: r.status,
  kind: r.kind,
  coverageKnown: r.coverage_known,
  fulfillmentOrderIds: r.fos,
});

/** The rows whose derived properties differ from what is stored, as a write of them (null: nothing changed). */
function projectionUpdate(
  rows: readonly ProjectionRow[],
  derived: Map<string, DerivedLabelProperties>,
): SqlPart | null {
  const changed = rows.flatMap((row) => {
    const next = derived.get(row.id)!;
    const unchanged =
      row.current === next.current &&
      row.current_set === next.currentSet &&
      sameList(row.supersedes, next.supersedes) &&
      sameList(row.superseded_by, next.supersededBy);
    return unchanged
      ? []
      : [
          {
            id: row.id,
            current: next.current,
            supersedes: next.supersedes,
            superseded_by: next.supersededBy,
            current_set: next.currentSet,
          },
        ];
  });
  if (changed.length === 0) return null;
  return {
    sql: `update labels l set current = v.current, supersedes = v.supersedes, superseded_by = v.superseded_by,
                 current_set = v.current_set
            from json_populate_recordset(null::labels, ?::json) v where l.id = v.id`,
    values: [JSON.stringify(changed)],
  };
}

/**
 * Recomputes `current`, `supersedes`, `superseded_by` and `current_set` of one order and direction inside the
 * caller's transaction (`lockAndReadProjection`), writing the changed rows in one statement.
 */
export async function recomputeOrderProjection(em: EntityManager, key: ProjectionKey): Promise<void> {
  const rows = await lockAndReadProjection(em, key);
  const update = projectionUpdate(rows, deriveCurrentLabels(rows.map(coverageInput)));
  if (update) await em.execute(update.sql, [...update.values]);
}

/**
 * One new label as parts of the caller's write (`renderWrite`), inside its transaction: takes the order's projection
 * lock and reads its labels (two round trips), then derives the projection with the new label in it. The parts insert
 * the label with its derived flags and its coverage, and update the order's other labels whose flags change: the
 * label costs the caller no statement of its own. Every label is inserted this way (`insertLabels` too).
 */
export async function newLabelWrite(
  tx: EntityManager,
  input: NewLabel,
): Promise<{ labelId: string; ctes: Array<SqlPart & { name: string }> }> {
  return labelWriteOf(tx, newLabelFields(input));
}

async function labelWriteOf(
  tx: EntityManager,
  { fields, coverage }: ReturnType<typeof newLabelFields>,
): Promise<{ labelId: string; ctes: Array<SqlPart & { name: string }> }> {
  const rows = await lockAndReadProjection(tx, fields);
  // Inserted under the lock, after every label read here: its `seq` is the order's highest.
  const derived = deriveCurrentLabels([
    ...rows.map(coverageInput),
    {
      id: fields.id,
      createdAt: fields.createdAt,
      seq: Number.MAX_SAFE_INTEGER,
      status: fields.status,
      kind: fields.kind,
      coverageKnown: fields.coverageKnown,
      fulfillmentOrderIds: coverage.map((c) => c.fulfillmentOrderGid),
    },
  ]);
  const own = derived.get(fields.id)!;
  const label = { ...fields, ...own };
  // The entity's mapping names the columns: the same as the ORM's inserts, whatever is added to the entity.
  const entries = tx
    .getMetadata()
    .get<Label>(Label.name)
    .props.filter((p) => p.fieldNames?.length === 1 && p.name in label)
    .map((p) => {
      const value = label[p.name as keyof Label];
      return [p.fieldNames[0]!, value instanceof Date ? value.toISOString() : value] as const;
    });
  const columns = entries.map(([column]) => column);
  const record = Object.fromEntries(entries);
  const ctes: Array<SqlPart & { name: string }> = [
    {
      name: 'new_label',
      sql: `insert into labels (${columns.join(', ')})
            select ${columns.join(', ')} from json_populate_record(null::labels, ?::json)`,
      values: [JSON.stringify(record)],
    },
  ];
  if (coverage.length > 0) {
    ctes.push({
      name: 'new_label_coverage',
      sql: `insert into label_fulfillment_orders (label_id, fulfillment_order_gid, fulfillment_order_legacy_id, store_id)
            select label_id, fulfillment_order_gid, fulfillment_order_legacy_id, store_id
              from json_populate_recordset(null::label_fulfillment_orders, ?::json)`,
      values: [
        JSON.stringify(
          coverage.map((c) => ({
            label_id: c.labelId,
            fulfillment_order_gid: c.fulfillmentOrderGid,
            fulfillment_order_legacy_id: c.fulfillmentOrderLegacyId,
            store_id: c.storeId,
          })),
        ),
      ],
    });
  }
  const others = projectionUpdate(rows, derived);
  if (others) ctes.push({ name: 'projection', ...others });
  return { labelId: fields.id, ctes };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Inserts labels with their coverage and refreshes the orders' projection, in one transaction: each label as its own
 * write of `newLabelWrite`'s parts (the one way a label is inserted), by order so that writers touching the same
 * orders take their projection locks in the same order (no deadlock). Labels of one order keep their given order,
 * which is their insertion order (`seq`).
 */
export async function insertLabels(em: EntityManager, inputs: NewLabel[]): Promise<Label[]> {
  return em.transactional(async (tx) => {
    const built = inputs.map(newLabelFields);
    const key = ({ fields: l }: (typeof built)[number]) => `${l.storeId}|${l.orderGid}|${l.direction}`;
    for (const label of [...built].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0))) {
      const write = renderWrite({ ctes: (await labelWriteOf(tx, label)).ctes, main: { sql: 'select 1', values: [] } });
      await tx.execute(write.sql, write.values);
    }
    const ids = built.map((b) => b.fields.id);
    const fresh = await tx.find(Label, { id: { $in: ids } }, { refresh: true });
    return ids.map((id) => fresh.find((l) => l.id === id)!);
  });
}

export async function insertLabel(em: EntityManager, input: NewLabel): Promise<Label> {
  const [label] = await insertLabels(em, [input]);
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

/** A label's status, or null when the store has no such label. */
export async function labelStatus(em: EntityManager, storeId: string, labelId: string): Promise<string | null> {
  const [row] = await em.execute<Array<{ status: string }>>('select status from labels where store_id = ? and id = ?', [
    storeId,
    labelId,
  ]);
  return row?.status ?? null;
}

/** Whether a label's PDF is stored. */
export async function hasLabelDocument(em: EntityManager, labelId: string): Promise<boolean> {
  const [row] = await em.execute('select 1 from label_documents where label_id = ?', [labelId]);
  return row !== undefined;
}

/** Stores (or replaces) the PDF of a label. */
export async function storeLabelDocument(em: EntityManager, input: NewLabelDocument): Promise<void> {
  const upsert = labelDocumentUpsert(input);
  await em.execute(upsert.sql, [...upsert.values]);
}

/** The write that stores (or replaces) a label's PDF: a statement, or a part of a larger write (`renderWrite`). */
export function labelDocumentUpsert(input: NewLabelDocument): SqlPart {
  return {
    sql: `insert into label_documents (label_id, pdf, page_size, page_count, byte_size, not_isolated, stored_at)
          values (?, ?, ?, ?, ?, ?, ?)
          on conflict (label_id) do update set pdf = excluded.pdf, page_size = excluded.page_size,
             page_count = excluded.page_count, byte_size = excluded.byte_size, not_isolated = excluded.not_isolated,
             stored_at = excluded.stored_at`,
    values: [
      input.labelId,
      input.pdf,
      input.pageSize,
      input.pageCount,
      input.pdf.byteLength,
      input.notIsolated ?? false,
      input.storedAt,
    ],
  };
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
