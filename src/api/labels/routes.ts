import type { Config } from '../../config';
import { labelPageRow, labelRefRow } from '../../db/label-rows';
import {
  labelPageOf,
  labelPageStatement,
  labelRefStatement,
  readLabelPage,
  readLabelRows,
  type LabelListFilters,
} from '../../db/labels-query';
import { readRows } from '../../db/rows';
import type { Orm } from '../../db/orm';
import { hasPrefix } from '../../ids';
import { ApiError } from '../../http/api-error';
import { baseUrl } from '../../http/middleware';
import { firstRow } from '../../http/read-plan';
import { defineRoute } from '../../http/route';
import { encodeCursor, filterHash } from '../../http/cursor';
import { positionOfCursor } from '../../http/query-params';
import { setJsonText } from '../../http/serialize';
import { createLabelJson } from './label-json';
import {
  labelListSchema,
  labelParamsSchema,
  labelSchema,
  listLabelsQuerySchema,
  type ListLabelsQuery,
} from './schemas';

/** Spec "GET /labels" Rule 2: the sync feed holds back labels younger than this. */
export const SYNC_FEED_HOLD_BACK_MS = 15_000;
/**
 * `created_at` is the insertion time without the fraction of its second: a label showing second S was stored before
 * S + 1 s, so it is surely as old as the hold-back once S + 1 s is (docs/decisions/0134-sync-feed-hold-back.md).
 */
const CREATED_AT_PRECISION_MS = 1_000;

export interface LabelRoutesDeps {
  orm: Orm;
  now: () => Date;
  config: Pick<Config, 'publicBaseUrl' | 'cursorSecret' | 'labelJsonCacheEntries'>;
}

/** Sync feed = `sort=created_at` without the lookup filters (Rule 2). */
function isSyncFeed(q: ListLabelsQuery): boolean {
  return (
    q.sort === 'created_at' &&
    !q.order_id &&
    q.order_name === undefined &&
    q.batch_id === undefined &&
    q.tracking_number === undefined
  );
}

function filtersOf(storeId: string, q: ListLabelsQuery): LabelListFilters {
  return {
    storeId,
    orderGids: q.order_id,
    orderName: q.order_name,
    batchId: q.batch_id,
    trackingNumber: q.tracking_number,
    direction: q.direction,
    current: q.current,
    status: q.status,
    createdAfter: q.created_after,
    createdBefore: q.created_before,
    updatedAfter: q.updated_after,
    order: q.sort === 'created_at' ? 'asc' : 'desc',
  };
}

/** Everything but `cursor` and `limit` binds a cursor (the page size may change between pages). */
function cursorBinding(q: ListLabelsQuery): Record<string, unknown> {
  const { cursor: _cursor, limit: _limit, ...rest } = q;
  return {
    ...rest,
    created_after: q.created_after?.toISOString(),
    created_before: q.created_before?.toISOString(),
    updated_after: q.updated_after?.toISOString(),
  };
}

/** What a page request reads: its filters (the sync feed's hold-back applied) and where it starts. */
function pageRequest(deps: LabelRoutesDeps, storeId: string, query: ListLabelsQuery, now: Date) {
  const hash = filterHash(storeId, cursorBinding(query));
  const filters = filtersOf(storeId, query);
  const after = positionOfCursor(deps.config.cursorSecret, query.cursor, hash, filters.order);
  const syncFeed = isSyncFeed(query);
  if (syncFeed) {
    const holdBack = new Date(now.getTime() - SYNC_FEED_HOLD_BACK_MS - CREATED_AT_PRECISION_MS);
    if (!filters.createdBefore || filters.createdBefore > holdBack) filters.createdBefore = holdBack;
  }
  return { hash, after, filters, syncFeed };
}

export function createLabelRoutes(deps: LabelRoutesDeps) {
  const labelJson = createLabelJson({
    maxEntries: deps.config.labelJsonCacheEntries,
    readRows: (storeId, ids) => readLabelRows(deps.orm.em.fork(), storeId, ids),
  });
  // The statement built for the admission and the handler share one reading of the request (cursor, filters).
  const pages = new WeakMap<ListLabelsQuery, ReturnType<typeof pageRequest>>();
  const pageOf = (storeId: string, query: ListLabelsQuery) => {
    let page = pages.get(query);
    if (!page) {
      page = pageRequest(deps, storeId, query, deps.now());
      pages.set(query, page);
    }
    return page;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/labels',
      operationId: 'listLabels',
      summary: 'List, look up and sync labels',
      description:
        'Keyset-paginated, newest first by default. With `direction`, `status` or `current` a page may hold fewer than ' +
        '`limit` labels while `has_more` is true. `sort=created_at` without `order_id`, `order_name`, `batch_id` and ' +
        '`tracking_number` is the sync feed: oldest first, labels younger than 15 seconds held back, `next_cursor` always set.',
      tag: 'Labels',
      access: { kind: 'key', scope: 'labels:read' },
      limits: 'read',
      query: listLabelsQuerySchema,
      responses: { 200: { description: 'A page of labels', schema: labelListSchema } },
      read: {
        statement: ({ query }, storeId) => {
          const { filters, after } = pageOf(storeId, query);
          return labelPageStatement(filters, after, query.limit);
        },
        row: labelPageRow,
        answer: (rows, { query }, storeId) => labelPageOf(rows, pageOf(storeId, query).after, query.limit),
        fallback: async ({ query }, { storeId }) => {
          const { filters, after } = pageOf(storeId, query);
          const statement = labelPageStatement(filters, after, query.limit);
          // With post-filters there is no one statement: the page reader scans keys first.
          if (!statement) return readLabelPage(deps.orm.em.fork(), filters, after, query.limit);
          return labelPageOf(await readRows(deps.orm.em.fork(), statement, labelPageRow), after, query.limit);
        },
      },
      handler: async (ctx, { query }, page) => {
        const storeId = ctx.state.auth!.storeId;
        const now = deps.now();
        const { hash, syncFeed } = pageOf(storeId, query);
        const data = await labelJson.of(page.refs, {
          storeId,
          baseUrl: baseUrl(ctx, deps.config.publicBaseUrl),
          now,
        });
        // Rule 2: the feed always hands back a position to resume from, also on its last page.
        const nextCursor =
          page.hasMore || syncFeed ? encodeCursor(deps.config.cursorSecret, page.lastRead, hash) : null;
        // The labels are JSON text already: the page is written around them (labelListSchema's shape).
        setJsonText(
          ctx,
          `{"data":[${data.join(',')}],"next_cursor":${JSON.stringify(nextCursor)},"has_more":${page.hasMore}}`,
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/labels/{label_id}',
      operationId: 'getLabel',
      summary: 'One label',
      tag: 'Labels',
      access: { kind: 'key', scope: 'labels:read' },
      limits: 'read',
      params: labelParamsSchema,
      responses: { 200: { description: 'The label', schema: labelSchema } },
      // A malformed ID and another store's ID read nothing, and answer exactly like a nonexistent one (spec "Identifiers").
      read: {
        statement: ({ params }, storeId) =>
          hasPrefix('label', params.label_id) ? labelRefStatement(storeId, params.label_id) : null,
        row: labelRefRow,
        answer: firstRow,
        fallback: async ({ params }, { storeId }) =>
          hasPrefix('label', params.label_id)
            ? firstRow(await readRows(deps.orm.em.fork(), labelRefStatement(storeId, params.label_id), labelRefRow))
            : null,
      },
      handler: async (ctx, _input, ref) => {
        const storeId = ctx.state.auth!.storeId;
        const [json] = ref
          ? await labelJson.of([ref], { storeId, baseUrl: baseUrl(ctx, deps.config.publicBaseUrl), now: deps.now() })
          : [];
        if (!json) throw new ApiError('not_found');
        setJsonText(ctx, json);
      },
    }),
  ];
}
