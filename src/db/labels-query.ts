import type { EntityManager } from '@mikro-orm/postgresql';
import type { LabelDirection, LabelStatus } from '../domain/labels';
import { Label, LabelDocument, LabelFulfillmentOrder } from './entities/label';

/**
 * Spec "GET /labels" Rule 1: with `direction`, `status` or `current` a page reads at most this many labels in
 * keyset order and may come back short with `has_more: true`, so one page never scans a whole store.
 */
export const POST_FILTER_SCAN_WINDOW = 1000;

/** Where a page ended: the last label read, by the keyset (created_at, id); null before the first label. */
export type KeysetPosition = { createdAt: Date; id: string } | null;

export interface LabelListFilters {
  storeId: string;
  orderGids?: string[];
  orderNameKey?: string;
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
  labels: Label[];
  /** The last label read (returned or skipped by a filter); null when nothing was read. */
  lastRead: KeysetPosition;
  hasMore: boolean;
}

function matchesPostFilters(label: Label, f: LabelListFilters): boolean {
  return (
    (f.direction === undefined || label.direction === f.direction) &&
    (f.status === undefined || label.status === f.status) &&
    (f.current === undefined || label.current === f.current)
  );
}

/** One page by keyset (created_at, id) after `after`, in the filters' order. */
export async function readLabelPage(
  em: EntityManager,
  filters: LabelListFilters,
  after: KeysetPosition,
  limit: number,
): Promise<LabelPage> {
  const postFiltered = filters.direction !== undefined || filters.status !== undefined || filters.current !== undefined;
  const window = postFiltered ? Math.max(limit, POST_FILTER_SCAN_WINDOW) : limit;
  const qb = em.createQueryBuilder(Label, 'l').select('*').where({ storeId: filters.storeId });
  if (filters.orderGids) qb.andWhere({ orderGid: { $in: filters.orderGids } });
  if (filters.orderNameKey !== undefined) qb.andWhere({ orderNameKey: filters.orderNameKey });
  if (filters.batchId !== undefined) qb.andWhere({ batchId: filters.batchId });
  if (filters.trackingNumber !== undefined) qb.andWhere({ trackingNumber: filters.trackingNumber });
  if (filters.createdAfter) qb.andWhere({ createdAt: { $gte: filters.createdAfter } });
  if (filters.createdBefore) qb.andWhere({ createdAt: { $lte: filters.createdBefore } });
  if (filters.updatedAfter) qb.andWhere({ updatedAt: { $gte: filters.updatedAfter } });
  if (after) {
    // Row comparison keeps the keyset on the (store_id, created_at, id) index.
    qb.andWhere(`(l.created_at, l.id) ${filters.order === 'asc' ? '>' : '<'} (?, ?)`, [after.createdAt, after.id]);
  }
  qb.orderBy({ createdAt: filters.order, id: filters.order }).limit(window + 1);
  const rows = await qb.getResult();

  const labels: Label[] = [];
  let consumed = 0;
  for (const row of rows.slice(0, window)) {
    consumed += 1;
    if (!matchesPostFilters(row, filters)) continue;
    labels.push(row);
    if (labels.length === limit) break;
  }
  const last = consumed > 0 ? rows[consumed - 1]! : null;
  return {
    labels,
    lastRead: last ? { createdAt: last.createdAt, id: last.id } : after,
    hasMore: rows.length > consumed,
  };
}

/** A label with what its wire object needs besides its own row. */
export interface LabelView {
  label: Label;
  fulfillmentOrders: Array<{ gid: string; legacyId: string }>;
  storedDocument: { notIsolated: boolean } | null;
}

export async function loadLabelViews(em: EntityManager, labels: Label[]): Promise<LabelView[]> {
  if (labels.length === 0) return [];
  const ids = labels.map((l) => l.id);
  const coverage = await em.find(
    LabelFulfillmentOrder,
    { labelId: { $in: ids } },
    { orderBy: { fulfillmentOrderGid: 'asc' } },
  );
  const documents = await em.find(LabelDocument, { labelId: { $in: ids } }, { fields: ['labelId', 'notIsolated'] });
  return labels.map((label) => {
    const doc = documents.find((d) => d.labelId === label.id);
    return {
      label,
      fulfillmentOrders: coverage
        .filter((c) => c.labelId === label.id)
        .map((c) => ({ gid: c.fulfillmentOrderGid, legacyId: c.fulfillmentOrderLegacyId })),
      storedDocument: doc ? { notIsolated: doc.notIsolated } : null,
    };
  });
}

export async function findLabel(em: EntityManager, storeId: string, labelId: string): Promise<Label | null> {
  return em.findOne(Label, { id: labelId, storeId });
}
