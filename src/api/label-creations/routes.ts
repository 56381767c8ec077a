import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { Config } from '../../config';
import { resolveCreation } from '../../creation/resolve';
import { holdsScope } from '../../access/scopes';
import { RESOLVE_OUTCOMES } from '../../domain/resolve';
import type { Logger } from '../../logger';
import { creationWire, creationWires } from './creation-wire';
import {
  creationStatement,
  readCreationPage,
  type CreationListFilters,
  type CreationRow,
} from '../../creation/records';
import { creationRow } from './creation-row';
import type { Orm } from '../../db/orm';
import { readRows } from '../../db/rows';
import { LABEL_CREATION_STATUSES } from '../../domain/labels';
import { ORDER_ID_MAX_LENGTH, orderNameKey, parseOrderId } from '../../domain/platform-ids';
import { ApiError } from '../../http/api-error';
import { encodeCursor, filterHash } from '../../http/cursor';
import { baseUrl } from '../../http/middleware';
import { idPathParam, instantParam, limitParam, positionOfCursor } from '../../http/query-params';
import { firstRow, type ReadPlan } from '../../http/read-plan';
import { defineRoute, type RouteInput } from '../../http/route';
import { hasPrefix } from '../../ids';
import { waitWhileProcessing } from '../../creation/prefer-wait';
import { preferHeaderSchema, preferWaitSeconds } from '../labels/create-headers';
import type { WaitHolds } from '../../limits/wait-holds';
import { labelCreationSchema } from './schemas';

export interface LabelCreationRoutesDeps {
  orm: Orm;
  logger: Logger;
  /** At most 8 requests per key hold a `Prefer: wait` (spec "Limits"). */
  waitHolds: WaitHolds;
  temporal: Client;
  now: () => Date;
  config: Pick<Config, 'publicBaseUrl' | 'cursorSecret'>;
}

const LIMIT_MAX = 250;
const LIMIT_DEFAULT = 50;

const listQuerySchema = z
  .object({
    order_id: z
      .string()
      .max(ORDER_ID_MAX_LENGTH)
      .describe('Numeric order ID or GID')
      .transform((value, ctx) => {
        const id = parseOrderId(value.trim());
        if (id) return id.gid;
        ctx.addIssue({ code: 'custom', message: 'must be a numeric order ID or an order GID', input: value });
        return z.NEVER;
      })
      .optional(),
    order_name: z
      .string()
      .min(1)
      .max(255)
      .describe('Order name; leading `#` optional, case-insensitive as `POST /labels` looks an order up by it')
      .transform(orderNameKey)
      .optional(),
    status: z.enum(LABEL_CREATION_STATUSES).optional(),
    idempotency_key: z.string().min(1).max(255).describe('The `Idempotency-Key` of the request').optional(),
    client_reference: z.string().min(1).max(64).optional(),
    created_after: instantParam('Created at or after (inclusive, second precision)').optional(),
    updated_after: instantParam('Changed at or after (inclusive, second precision)').optional(),
    cursor: z.string().min(1).max(2000).describe('`next_cursor` of the previous page, unchanged').optional(),
    limit: limitParam(LIMIT_MAX, LIMIT_DEFAULT),
  })
  .strict();

const listSchema = z.object({
  data: z.array(labelCreationSchema),
  next_cursor: z.string().nullable().describe('Pass unchanged as `cursor`; null on the last page'),
  has_more: z.boolean(),
});

const paramsSchema = z.object({ label_creation_id: idPathParam('labelCreation') });

const resolveBodySchema = z
  .object({
    outcome: z
      .enum(RESOLVE_OUTCOMES)
      .describe(
        '`not_created`: no shipment exists at the carrier; `shipment_exists`: it does (the creation is abandoned)',
      ),
    tracking_number: z
      .string()
      .min(1)
      .max(100)
      .nullable()
      .default(null)
      .describe('The tracking number found at the carrier, recorded on the creation'),
    note: z.string().max(200).nullable().default(null).describe('For people: why, recorded on the creation'),
  })
  .strict();

/**
 * `GET /label-creations/{id}`'s read: one statement with the admission (a poll every 2 seconds is the common client);
 * a key's first request reads on its own. A malformed ID reads nothing and answers as a nonexistent one.
 */
function creationRead(
  deps: LabelCreationRoutesDeps,
): ReadPlan<RouteInput<z.output<typeof paramsSchema>, unknown, unknown>, CreationRow, CreationRow | null> {
  const statement = (storeId: string, id: string) =>
    hasPrefix('labelCreation', id) ? creationStatement(storeId, id) : null;
  return {
    statement: ({ params }, storeId) => statement(storeId, params.label_creation_id),
    row: creationRow,
    answer: firstRow,
    fallback: async ({ params }, { storeId }) => {
      const own = statement(storeId, params.label_creation_id);
      return own && firstRow(await readRows(deps.orm.em.fork(), own, creationRow));
    },
  };
}

export function createLabelCreationResourceRoutes(deps: LabelCreationRoutesDeps) {
  return [
    defineRoute({
      method: 'GET',
      path: '/label-creations',
      operationId: 'listLabelCreations',
      summary: 'List label creations, newest first',
      tag: 'Label creations',
      access: { kind: 'key', scope: 'labels:write' },
      limits: 'read',
      query: listQuerySchema,
      responses: { 200: { description: 'A page of label creations', schema: listSchema } },
      handler: async (ctx, { query }) => {
        const storeId = ctx.state.auth!.storeId;
        const { cursor, limit, ...filters } = query;
        const hash = filterHash(storeId, {
          ...filters,
          created_after: filters.created_after?.toISOString(),
          updated_after: filters.updated_after?.toISOString(),
        });
        const after = positionOfCursor(deps.config.cursorSecret, cursor, hash, 'desc');
        const listFilters: CreationListFilters = {
          storeId,
          orderGid: filters.order_id,
          orderNameKey: filters.order_name,
          status: filters.status,
          idempotencyKey: filters.idempotency_key,
          clientReference: filters.client_reference,
          createdAfter: filters.created_after,
          updatedAfter: filters.updated_after,
        };
        const page = await readCreationPage(deps.orm.em.fork(), listFilters, after, limit);
        const base = baseUrl(ctx, deps.config.publicBaseUrl);
        const now = deps.now();
        const data = await creationWires(deps.orm, page.rows, { baseUrl: base, now });
        const last = page.rows.at(-1);
        ctx.body = {
          data,
          next_cursor:
            page.hasMore && last
              ? encodeCursor(
                  deps.config.cursorSecret,
                  { createdAt: new Date(last.created_at), seq: Number(last.seq) },
                  hash,
                )
              : null,
          has_more: page.hasMore,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/label-creations/{label_creation_id}',
      operationId: 'getLabelCreation',
      summary: 'One label creation',
      description:
        'Answers 200 whatever the status (a failed creation has its code in `error.code`). With `Prefer: wait=N` a ' +
        'creation still `processing` is held up to N seconds and answered as soon as it leaves `processing`.',
      tag: 'Label creations',
      access: { kind: 'key', scope: 'labels:write' },
      limits: 'read',
      params: paramsSchema,
      headers: [
        {
          name: 'Prefer',
          required: false,
          description: '`wait=N`, N 0 to 60 seconds: hold the answer while the creation is `processing`',
          schema: preferHeaderSchema,
        },
      ],
      responses: {
        200: {
          description: 'The label creation',
          schema: labelCreationSchema,
          headers: { 'Preference-Applied': '`wait=N` when a wait was asked for' },
        },
      },
      read: creationRead(deps),
      handler: async (ctx, _input, found) => {
        const prefer = ctx.get('Prefer') || undefined;
        const asksToWait = prefer !== undefined && /(^|[,;]\s*)wait\s*=/i.test(prefer);
        // Parsed whether or not it asks to wait, so an over-long header is refused like on POST /labels.
        const parsed = prefer === undefined ? 0 : preferWaitSeconds(prefer);
        const asked = asksToWait ? parsed : 0;
        if (!found) throw new ApiError('not_found');
        const { row, waitSeconds } = await waitWhileProcessing(deps, {
          row: found,
          apiKeyId: ctx.state.auth!.apiKeyId,
          waitSeconds: asked,
        });
        if (asksToWait) ctx.set('Preference-Applied', `wait=${waitSeconds}`);
        ctx.body = await creationWire(deps.orm, row, {
          baseUrl: baseUrl(ctx, deps.config.publicBaseUrl),
          now: deps.now(),
        });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/label-creations/{label_creation_id}/resolve',
      operationId: 'resolveLabelCreation',
      summary: 'Resolve a creation whose outcome is unclear (`needs_attention`)',
      description:
        '`not_created`: the creation fails with `error.code: resolved_not_created` and releases its fulfillment orders ' +
        'and key (not before `attention.resolve_allowed_at`, and only while `attention.shipment_at_carrier` is ' +
        '`unknown`). `shipment_exists`: the creation is abandoned, its fulfillment orders released and its pending ' +
        'label failed (`not_finalized`). The same outcome again answers 200; no idempotency key. Needs ' +
        '`label_creations:resolve` together with `labels:write`.',
      tag: 'Label creations',
      access: { kind: 'key', scope: 'label_creations:resolve', write: true },
      limits: 'resolve',
      params: paramsSchema,
      body: resolveBodySchema,
      requestExample: { outcome: 'not_created', note: 'Checked the carrier portal: no parcel with this reference.' },
      responses: {
        200: { description: 'The creation after the resolve (or as it is, for a repeat)', schema: labelCreationSchema },
      },
      errors: ['already_resolved', 'not_resolvable', 'resolve_too_early', 'rate_limited', 'temporarily_unavailable'],
      errorHeaders: {
        409: { 'Retry-After': '`resolve_too_early`: seconds until `resolve_allowed_at`' },
        429: { 'Retry-After': 'Seconds until the refusing bucket allows the request' },
        503: { 'Retry-After': 'Seconds to wait before sending the same request again' },
      },
      handler: async (ctx, { params, body }) => {
        const auth = ctx.state.auth!;
        // Spec "Authentication": resolving is granted only together with creating labels.
        if (!holdsScope(auth.scopes, 'labels:write')) {
          throw new ApiError('insufficient_scope', { details: { required_scope: 'labels:write' } });
        }
        if (!hasPrefix('labelCreation', params.label_creation_id)) throw new ApiError('not_found');
        const row = await resolveCreation(deps, {
          storeId: auth.storeId,
          creationId: params.label_creation_id,
          apiKeyId: auth.apiKeyId,
          outcome: body.outcome,
          trackingNumber: body.tracking_number,
          note: body.note,
        });
        if (!row) throw new ApiError('not_found');
        ctx.body = await creationWire(deps.orm, row, {
          baseUrl: baseUrl(ctx, deps.config.publicBaseUrl),
          now: deps.now(),
        });
      },
    }),
  ];
}
