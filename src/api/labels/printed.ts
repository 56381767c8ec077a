import { z } from 'zod';
import { readLabelView } from '../../db/labels-query';
import { ApiError } from '../../http/api-error';
import { baseUrl } from '../../http/middleware';
import { defineRoute } from '../../http/route';
import { hasPrefix } from '../../ids';
import { isReplay, runIdempotent } from '../../idempotency/idempotency';
import { IDEMPOTENCY_KEY_LENGTH, idempotencyKeyOf } from '../../idempotency/keys';
import { markLabelPrinted, type MarkPrintedDeps } from '../../labels/mark-printed';
import { labelParamsSchema, labelSchema } from './schemas';
import { serializeLabel } from './serializer';

const PRINTED_KEY_TTL_MS = 24 * 3_600_000;
const AUTO_KEY_WINDOW_MS = 60_000;

const printedQuerySchema = z
  .object({
    // `auto` here too, as in the header: a client that can only set the query gets the same 60-second guard.
    idempotency_key: z
      .union([z.literal('auto'), z.string().min(IDEMPOTENCY_KEY_LENGTH.min).max(IDEMPOTENCY_KEY_LENGTH.max)])
      .optional()
      .describe('Alternative to the Idempotency-Key header (8 to 255 characters, or `auto`)'),
  })
  .strict();

const ENDPOINT = 'POST /labels/{label_id}/printed';
/** What a key binds to: the same key with another label is a conflict. */
const printedRequest = (labelId: string) => ({ label_id: labelId });
const printedKeyOf = (header: string, query: string | undefined) =>
  idempotencyKeyOf({ header, query }, { allowQuery: true, allowAuto: true });

export function createPrintedRoutes(
  deps: MarkPrintedDeps & { now: () => Date; publicBaseUrl: string | undefined; idempotencyLeaseMs: number },
) {
  return [
    defineRoute({
      method: 'POST',
      path: '/labels/{label_id}/printed',
      operationId: 'markLabelPrinted',
      summary: "Count a print and add the carrier account's print tag to the order",
      description:
        'Requires an idempotency key; a repeat within 24 hours replays the first answer and counts nothing. ' +
        '`Idempotency-Key: auto` derives the key from the request; an identical request within 60 seconds gets 409 `duplicate_request`. ' +
        'Downloading a document is not a print.',
      tag: 'Labels',
      access: { kind: 'key', scope: 'labels:print', write: true },
      // Spec "Limits": a repeat of a bound Idempotency-Key (answered by replay) counts as a read. The key is validated
      // first, like the query: a request refused by validation is not counted.
      limits: {
        classes: ['print', 'read'],
        classify: async (ctx, { params, query }) => {
          const key = printedKeyOf(ctx.get('Idempotency-Key'), query.idempotency_key);
          const replay = await isReplay(deps.orm, {
            storeId: ctx.state.auth!.storeId,
            endpoint: ENDPOINT,
            key,
            request: printedRequest(params.label_id),
            now: deps.now(),
            ttlMs: PRINTED_KEY_TTL_MS,
          });
          return replay ? 'read' : 'print';
        },
      },
      params: labelParamsSchema,
      query: printedQuerySchema,
      headers: [
        {
          name: 'Idempotency-Key',
          required: false,
          description: '8 to 255 characters, or `auto`; required unless `idempotency_key` is sent',
          schema: z.union([
            z.literal('auto'),
            z.string().min(IDEMPOTENCY_KEY_LENGTH.min).max(IDEMPOTENCY_KEY_LENGTH.max),
          ]),
        },
      ],
      responses: {
        200: {
          description: 'The label',
          schema: labelSchema,
          headers: {
            'Idempotency-Replayed': { description: '`true` on a replayed answer', schema: z.literal('true') },
          },
        },
      },
      errors: ['idempotency_conflict', 'duplicate_request', 'document_expired', 'shopify_unavailable'],
      // The 4xx answers the first request can store (an unknown label, an expired document) replay like a success.
      errorHeaders: {
        404: { 'Idempotency-Replayed': '`true` on a replayed answer (a repeat of the key within 24 hours)' },
        410: { 'Idempotency-Replayed': '`true` on a replayed answer (a repeat of the key within 24 hours)' },
      },
      handler: async (ctx, { params, query }) => {
        const auth = ctx.state.auth!;
        const key = printedKeyOf(ctx.get('Idempotency-Key'), query.idempotency_key);
        if (!hasPrefix('label', params.label_id)) throw new ApiError('not_found');
        const now = deps.now();
        const outcome = await runIdempotent(
          deps.orm,
          {
            storeId: auth.storeId,
            endpoint: ENDPOINT,
            key,
            request: printedRequest(params.label_id),
            now,
            ttlMs: PRINTED_KEY_TTL_MS,
            autoWindowMs: AUTO_KEY_WINDOW_MS,
            leaseMs: deps.idempotencyLeaseMs,
          },
          async () => {
            await markLabelPrinted(deps, { storeId: auth.storeId, labelId: params.label_id, now });
            const view = await readLabelView(deps.orm.em.fork(), auth.storeId, params.label_id);
            return {
              status: 200,
              body: serializeLabel(view!, { baseUrl: baseUrl(ctx, deps.publicBaseUrl), now }),
              headers: {},
            };
          },
        );
        ctx.status = outcome.response.status;
        ctx.body = outcome.response.body;
        if (outcome.replayed) ctx.set('Idempotency-Replayed', 'true');
      },
    }),
  ];
}
