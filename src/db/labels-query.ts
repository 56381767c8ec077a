import type { EntityManager } from '@mikro-orm/postgresql';
import type { LabelDirection, LabelStatus } from '../domain/labels';
import type { Label } from './entities/label';
import { limitClause, runPrepared, type ReadStatement } from './prepared';
import { firstThenOnDemand, inFlightPart } from './updated-after';

/**
 * The label read path: plain rows from one SQL statement per request into the one serializer, never ORM entities.
 * Reads are the hot path (docs/decisions/0009-read-path.md): hydrating entities and building queries through the ORM
 * cost more CPU than everything else a read does. Writes keep going through MikroORM and the labels repository.
 */

/**
 * Spec "GET /labels" Rule 1: with `direction`, `status` or `current` a page reads at most this many labels in
 * keyset order and may come back short with `has_more: true`, so one page never scans a whole store.
 */
export const POST_FILTER_SCAN_WINDOW = 1000;

/**
 * The window with `updated_after` (decision 0036): the labels it reads are the updated ones, about one in each heap page
 * rather than a page's run of neighbours, so a key costs several times as much and the window counts a quarter of them.
 */
export const UPDATED_AFTER_SCAN_WINDOW = 250;

/** How many keys one page's post-filter scan reads at most: a window, and never fewer than the page. */
export function postFilterScanWindow(f: Pick<LabelListFilters, 'updatedAfter'>, limit: number): number {
  return Math.max(limit, f.updatedAfter ? UPDATED_AFTER_SCAN_WINDOW : POST_FILTER_SCAN_WINDOW);
}

/**
 * Where a page ended: the last row read, by the keyset (created_at, seq); null before the first row. `seq` is the
 * insertion order, which orders rows of one time (docs/decisions/0103-list-order-ties.md).
 */
export type KeysetPosition = { createdAt: Date; seq: number } | null;

/** A label row as the read path returns it: the entity's fields plus `seq` (insertion order within a second). */
export type LabelRecord = { [K in keyof Label]: Label[K] } & { seq: number };

/** A label with what its wire object needs besides its own row. */
export interface LabelView {
  label: LabelRecord;
  fulfillmentOrders: Array<{ gid: string; legacyId: string }>;
  storedDocument: { notIsolated: boolean } | null;
}

export interface LabelListFilters {
  storeId: string;
  orderGids?: string[];
  /** The exact order name without a leading `#` (spec: case counts). */
  orderName?: string;
  batchId?: string;
  trackingNumber?: string;
  direction?: LabelDirection;
  current?: boolean;
  status?: LabelStatus;
  createdAfter?: Date;
  createdBefore?: Date;
  updatedAfter?: Date;
  /** `asc` is the sync feed order. */
  order: 'asc' | 'desc';
}

export interface LabelPage {
  /** The page's labels, by reference or as full rows (their wire JSON comes from src/api/labels/label-json.ts). */
  refs: Array<LabelRef | ViewRow>;
  /** The last label read (returned or skipped by a filter); null when nothing was read. */
  lastRead: KeysetPosition;
  hasMore: boolean;
}

/** A label view row: from node-postgres (numbers and timestamps as strings) or from JSON (numbers as numbers). */
export interface ViewRow {
  id: string;
  seq: string | number;
  store_id: string;
  order_gid: string;
  order_legacy_id: string;
  order_name: string;
  order_name_key: string;
  direction: Label['direction'];
  kind: Label['kind'];
  status: Label['status'];
  failure_reason: Label['failureReason'];
  carrier_account_id: string | null;
  carrier_code: string;
  carrier_name: string;
  service_code: string | null;
  service_name: string | null;
  source: Label['source'];
  cod_amount: string | number | null;
  cod_currency: string | null;
  cod_source: Label['codSource'];
  declared_value_amount: string | number | null;
  declared_value_currency: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  carrier_shipment_id: string | null;
  parcels: Label['parcels'];
  batch_id: string | null;
  extras: Record<string, unknown>;
  label_creation_id: string | null;
  coverage_known: boolean;
  created_at: string;
  updated_at: string | null;
  printed_count: number;
  last_printed_at: string | null;
  current: boolean;
  supersedes: string[];
  superseded_by: string[];
  current_set: Label['currentSet'];
  coverage: Array<[string, string]>;
  has_document: boolean;
  document_not_isolated: boolean | null;
  document_redacted?: boolean | null;
  /**
   * A new number with every insert and update of the row (migration 20261125100000): what cached wire JSON is for. A
   * bigint: a string from node-postgres, a number in JSON.
   */
  row_version: string | number;
}

/**
 * What the hot reads ask PostgreSQL for (docs/decisions/0020-label-json-cache.md): a label's ID and row version, which
 * find its wire JSON in the API's memory, and its keyset position for the page's cursor.
 */
export interface LabelRef {
  id: string;
  row_version: string;
  created_at: string;
  /** A number in JSON, a string from node-postgres (bigint). */
  seq: string | number;
}

/** Whether a row read for a page is the label's full row (a page after a cursor) rather than its reference. */
export function isFullRow(row: LabelRef | ViewRow): row is ViewRow {
  return 'order_gid' in row;
}

/**
 * Every column of the label, with its coverage and whether a stored copy exists (never its bytes): both kept on the
 * label row from `label_fulfillment_orders` and `label_documents` by triggers (migration 20261124000000).
 */
const VIEW_SELECT = `
  select l.id, l.seq, l.store_id, l.order_gid, l.order_legacy_id, l.order_name, l.order_name_key, l.direction, l.kind,
         l.status, l.failure_reason, l.carrier_account_id, l.carrier_code, l.carrier_name, l.service_code,
         l.service_name, l.source, l.cod_amount, l.cod_currency, l.cod_source, l.declared_value_amount,
         l.declared_value_currency, l.tracking_number, l.tracking_url, l.carrier_shipment_id, l.parcels, l.batch_id,
         l.extras, l.label_creation_id, l.coverage_known, l.created_at, l.updated_at, l.printed_count,
         l.last_printed_at, l.current, l.supersedes, l.superseded_by, l.current_set,
         l.coverage,
         l.document_stored as has_document, l.document_not_isolated, l.document_redacted, l.row_version
    from labels l`;

const REF_SELECT = 'select l.id, l.row_version, l.created_at, l.seq from labels l';

// MikroORM's PostgreSQL driver hands timestamps to raw queries as strings (`2026-11-23 06:14:22.32+00`), JSON as ISO.
const dateOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));
// Numeric columns (numeric(12, 2)) are strings from the driver (`1250.50`) and numbers in JSON (1250.5); the label
// keeps the driver's string either way.
const decimalOrNull = (value: string | number | null): string | null =>
  value === null ? null : typeof value === 'number' ? value.toFixed(2) : value;

export function toView(r: ViewRow): LabelView {
  return {
    label: {
      id: r.id,
      seq: Number(r.seq),
      storeId: r.store_id,
      orderGid: r.order_gid,
      orderLegacyId: r.order_legacy_id,
      orderName: r.order_name,
      orderNameKey: r.order_name_key,
      direction: r.direction,
      kind: r.kind,
      status: r.status,
      failureReason: r.failure_reason,
      carrierAccountId: r.carrier_account_id,
      carrierCode: r.carrier_code,
      carrierName: r.carrier_name,
      serviceCode: r.service_code,
      serviceName: r.service_name,
      source: r.source,
      codAmount: decimalOrNull(r.cod_amount),
      codCurrency: r.cod_currency,
      codSource: r.cod_source,
      declaredValueAmount: decimalOrNull(r.declared_value_amount),
      declaredValueCurrency: r.declared_value_currency,
      trackingNumber: r.tracking_number,
      trackingUrl: r.tracking_url,
      carrierShipmentId: r.carrier_shipment_id,
      documentRedacted: r.document_redacted ?? false,
      parcels: r.parcels,
      batchId: r.batch_id,
      extras: r.extras,
      labelCreationId: r.label_creation_id,
      coverageKnown: r.coverage_known,
      createdAt: new Date(r.created_at),
      updatedAt: dateOrNull(r.updated_at),
      printedCount: r.printed_count,
      lastPrintedAt: dateOrNull(r.last_printed_at),
      current: r.current,
      supersedes: r.supersedes,
      supersededBy: r.superseded_by,
      currentSet: r.current_set,
    },
    fulfillmentOrders: r.coverage.map(([gid, legacyId]) => ({ gid, legacyId })),
    storedDocument: r.has_document ? { notIsolated: r.document_not_isolated ?? false } : null,
  };
}

/** One label of the store, by reference (another store's ID reads nothing, like a nonexistent one). */
export function labelRefStatement(storeId: string, labelId: string): ReadStatement {
  return { text: `${REF_SELECT} where l.store_id = $1 and l.id = $2`, values: [storeId, labelId] };
}

/** One label of the store by reference, or null (another store's ID answers like a nonexistent one). */
export async function readLabelRef(em: EntityManager, storeId: string, labelId: string): Promise<LabelRef | null> {
  const { text, values } = labelRefStatement(storeId, labelId);
  const [row] = await runPrepared<LabelRef>(em, text, values);
  return row ?? null;
}

/** One label of the store, or null (another store's ID answers like a nonexistent one). */
export async function readLabelView(em: EntityManager, storeId: string, labelId: string): Promise<LabelView | null> {
  const [row] = await runPrepared<ViewRow>(em, `${VIEW_SELECT} where l.store_id = $1 and l.id = $2`, [
    storeId,
    labelId,
  ]);
  return row ? toView(row) : null;
}

/** Rows of the store's labels by ID, in no particular order; IDs the store does not have are left out. */
export async function readLabelRows(em: EntityManager, storeId: string, ids: readonly string[]): Promise<ViewRow[]> {
  if (ids.length === 0) return [];
  return runPrepared<ViewRow>(em, `${VIEW_SELECT} where l.store_id = $1 and l.id = any($2)`, [storeId, ids]);
}

/**
 * A subquery fragment: the labels of store `storeExpr` whose IDs are in `idsExpr`, as a JSON array of view rows (`toView`
 * reads them as it reads the driver's rows), for a statement that carries a record's labels with it.
 */
export function labelRowsJson(storeExpr: string, idsExpr: string): string {
  // No IDs (a creation still processing, the record a client polls most): no subquery run at all.
  return `case when cardinality(${idsExpr}::text[]) = 0 then '[]'::json else
    (select coalesce(json_agg(v), '[]'::json) from (${VIEW_SELECT} where l.store_id = ${storeExpr} and l.id = any(${idsExpr})) v) end`;
}

/** View rows as views, in the order of `ids`; rows of other IDs are left out. */
export function viewsInOrder(rows: readonly ViewRow[], ids: readonly string[]): LabelView[] {
  const byId = new Map(rows.map((r) => [r.id, toView(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Labels of the store by ID, in the order asked; IDs the store does not have are left out. */
export async function readLabelViews(em: EntityManager, storeId: string, ids: readonly string[]): Promise<LabelView[]> {
  return viewsInOrder(await readLabelRows(em, storeId, ids), ids);
}

/** Every label of the order, oldest first; same-second labels in insertion order. */
export async function readOrderLabels(em: EntityManager, storeId: string, orderGid: string): Promise<LabelRecord[]> {
  const rows = await runPrepared<ViewRow>(
    em,
    `${VIEW_SELECT} where l.store_id = $1 and l.order_gid = $2 order by l.created_at, l.seq`,
    [storeId, orderGid],
  );
  return rows.map((r) => toView(r).label);
}

/** The order's current outbound labels, oldest first; same-second labels in insertion order. */
export async function readCurrentOutboundViews(
  em: EntityManager,
  storeId: string,
  orderGid: string,
): Promise<LabelView[]> {
  const rows = await runPrepared<ViewRow>(
    em,
    `${VIEW_SELECT} where l.store_id = $1 and l.order_gid = $2 and l.direction = 'outbound' and l.current
      order by l.created_at, l.seq`,
    [storeId, orderGid],
  );
  return rows.map(toView);
}

/** The keyset and lookup filters as SQL, the bindings so far and a binder for more (post-filters are the reader's). */
interface KeysetWhere {
  sql: string;
  params: unknown[];
  bind: (value: unknown) => string;
  /** The placeholder of the cursor's `created_at`, after a cursor. */
  cursorAt: string | null;
}

function keysetWhere(f: LabelListFilters, after: KeysetPosition): KeysetWhere {
  const params: unknown[] = [];
  // The next positional placeholder for `value`.
  const bind = (value: unknown) => `$${params.push(value)}`;
  const clauses = [`l.store_id = ${bind(f.storeId)}`];
  if (f.orderGids) clauses.push(`l.order_gid = any(${bind(f.orderGids)})`);
  // The lowercased key finds the rows on the (store_id, order_name_key) index; the name itself must match exactly.
  if (f.orderName !== undefined) {
    clauses.push(`l.order_name_key = ${bind(f.orderName.toLowerCase())}`);
    clauses.push(`regexp_replace(l.order_name, '^#', '') = ${bind(f.orderName)}`);
  }
  const equal: Array<[string, unknown]> = [
    ['l.batch_id', f.batchId],
    ['l.tracking_number', f.trackingNumber],
  ];
  for (const [column, value] of equal) {
    if (value !== undefined) clauses.push(`${column} = ${bind(value)}`);
  }
  if (f.createdAfter) clauses.push(`l.created_at >= ${bind(f.createdAfter)}`);
  if (f.createdBefore) clauses.push(`l.created_at <= ${bind(f.createdBefore)}`);
  const cursorAt = after ? bind(after.createdAt) : null;
  if (after) {
    // Row comparison keeps the keyset on the (store_id, created_at, seq) index.
    clauses.push(`(l.created_at, l.seq) ${f.order === 'asc' ? '>' : '<'} (${cursorAt}, ${bind(after.seq)})`);
  }
  return { sql: clauses.join(' and '), params, bind, cursorAt };
}

function matchesPostFilters(
  label: { direction: string; status: string; current: boolean },
  f: LabelListFilters,
): boolean {
  return (
    (f.direction === undefined || label.direction === f.direction) &&
    (f.status === undefined || label.status === f.status) &&
    (f.current === undefined || label.current === f.current)
  );
}

const hasPostFilters = (f: LabelListFilters) =>
  f.direction !== undefined || f.status !== undefined || f.current !== undefined;

/**
 * The keyset order of a page: `created_at`, then insertion order (`seq`) among labels of one second, never the random
 * ID; oldest first for the sync feed.
 */
const pageOrder = (f: LabelListFilters) => {
  const direction = f.order === 'asc' ? 'asc' : 'desc';
  return `l.created_at ${direction}, l.seq ${direction}`;
};

/**
 * The statement of a page (or of a post-filter scan): `select` over `labels l` with the filters, in keyset order, at
 * most `rows` rows. With `updated_after` it is two reads, each at the cost of its rows, not of the store
 * (docs/decisions/0104-updated-after-in-two-parts.md): the labels created before the bound and updated at or after it
 * (`inFlightPart`), then those created at or after it, which are every updated label from there on, read in keyset
 * order on the partial index of updated labels (migration 20261204000000). Every label of the first part is older than
 * every one of the second: each part is limited, and so is the whole.
 */
function keysetStatement(select: string, f: LabelListFilters, after: KeysetPosition, rows: number): ReadStatement {
  const where = keysetWhere(f, after);
  const order = pageOrder(f);
  if (!f.updatedAfter) {
    return { text: `${select} where ${where.sql} order by ${order} ${limitClause(rows)}`, values: where.params };
  }
  const bound = `${where.bind(f.updatedAfter)}::timestamptz`;
  const spanning = inFlightPart({
    select,
    conditions: [where.sql, 'l.updated_at is not null'],
    alias: 'l.',
    bound,
    cursorAt: where.cursorAt,
    order: f.order,
    rows,
  });
  const later = `${select} where ${where.sql} and l.updated_at is not null
      and l.created_at >= ${bound} and l.updated_at >= ${bound} order by ${order} ${limitClause(rows)}`;
  // The part the order reaches first is read first; the other only when the first is short of a page (decision
  // 0109). The newest page of a store with recent updates never reads the labels in flight at the bound.
  const [first, second] = f.order === 'asc' ? [spanning, later] : [later, spanning];
  return { text: firstThenOnDemand(first, second, order, rows), values: where.params };
}

/**
 * A page without post-filters as one statement (one row more than `limit` tells `has_more`); null with post-filters,
 * which scan keys first (`readLabelPage`). The first page, which clients poll, reads references (decision 0020); a
 * page after a cursor reads full rows, because paging (the sync feed above all) reads each page once, so its labels are
 * rarely in memory and a second statement for them would cost more than the columns.
 */
export function labelPageStatement(
  filters: LabelListFilters,
  after: KeysetPosition,
  limit: number,
): ReadStatement | null {
  if (hasPostFilters(filters)) return null;
  return keysetStatement(after ? VIEW_SELECT : REF_SELECT, filters, after, limit + 1);
}

const positionOf = (row: { created_at: string; seq: string | number }): KeysetPosition => ({
  createdAt: new Date(row.created_at),
  seq: Number(row.seq),
});

/** The page a `labelPageStatement` read: its first `limit` rows, and whether there are more. */
export function labelPageOf(rows: ReadonlyArray<LabelRef | ViewRow>, after: KeysetPosition, limit: number): LabelPage {
  const refs = rows.slice(0, limit);
  const last = refs.at(-1);
  return {
    refs,
    lastRead: last ? positionOf(last) : after,
    hasMore: rows.length > limit,
  };
}

/**
 * The post-filter scan's first read: a page's worth and an eighth more. A common value (`status=ready`) fills the page
 * from it, so the page costs about what the newest page costs instead of a whole window; a rare one reads the rest of
 * the window after it (docs/decisions/0108-post-filter-scan-in-two-reads.md). Either way the keys read are the
 * window's, in the same order, so the page and its cursor are the same as one read of the window.
 */
const firstScanRows = (limit: number) => limit + Math.ceil(limit / 8);

type ScanRow = LabelRef & { direction: string; status: string; current: boolean };
const SCAN_SELECT = 'select l.id, l.row_version, l.created_at, l.seq, l.direction, l.status, l.current from labels l';

/**
 * One page by keyset (created_at, seq) after `after`, in the filters' order. Without post-filters it is one statement.
 * With them, a narrow scan of at most `postFilterScanWindow` keys picks the page, in at most two reads.
 */
export async function readLabelPage(
  em: EntityManager,
  filters: LabelListFilters,
  after: KeysetPosition,
  limit: number,
): Promise<LabelPage> {
  const statement = labelPageStatement(filters, after, limit);
  if (statement) {
    return labelPageOf(await runPrepared<LabelRef | ViewRow>(em, statement.text, statement.values), after, limit);
  }
  const window = postFilterScanWindow(filters, limit);
  const read = async (from: KeysetPosition, rows: number) => {
    const scan = keysetStatement(SCAN_SELECT, filters, from, rows);
    return runPrepared<ScanRow>(em, scan.text, scan.values);
  };
  // The window's first rows, then (unless the page filled or the store ended) the rest of it and one row past it.
  const first = Math.min(window, firstScanRows(limit));
  let scanned = await read(after, first);
  const fills = scanned.filter((row) => matchesPostFilters(row, filters)).length >= limit;
  if (!fills && scanned.length === first && first < window) {
    scanned = scanned.concat(await read(positionOf(scanned.at(-1)!), window - first + 1));
  } else if (scanned.length === first && first === window) {
    scanned = scanned.concat(await read(positionOf(scanned.at(-1)!), 1));
  }
  const refs: LabelRef[] = [];
  let consumed = 0;
  for (const row of scanned.slice(0, window)) {
    consumed += 1;
    if (!matchesPostFilters(row, filters)) continue;
    refs.push({ id: row.id, row_version: row.row_version, created_at: row.created_at, seq: row.seq });
    if (refs.length === limit) break;
  }
  const last = consumed > 0 ? scanned[consumed - 1]! : null;
  // Whether a key follows the last one read: when the page filled within the first read and that was its last row,
  // the first read alone cannot tell, so one more key is asked for.
  let hasMore = scanned.length > consumed;
  if (!hasMore && fills && scanned.length === first && consumed === first) {
    hasMore = (await read(positionOf(last!), 1)).length > 0;
  }
  return { refs, lastRead: last ? positionOf(last) : after, hasMore };
}
