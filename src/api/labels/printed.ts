import { z } from 'zod';
import { CarrierAccount } from '../../db/entities/carrier-account';
import { Store } from '../../db/entities/store';
import { findLabel, loadLabelViews } from '../../db/labels-query';
import { recordLabelPrint } from '../../db/labels-repository';
import type { Orm } from '../../db/orm';
import { PlatformUnavailableError, type StorePlatformPort } from '../../platform/port';
import { DOCUMENT_RETENTION_MS } from '../../domain/document-availability';
import { ApiError } from '../../http/api-error';
import { baseUrl } from '../../http/middleware';
import { defineRoute } from '../../http/route';
import type { AppContext } from '../../http/state';
import { hasPrefix } from '../../ids';
import { runIdempotent } from '../../idempotency/idempotency';
import { labelParamsSchema, labelSchema } from './schemas';
import { serializeLabel } from './serializer';

const PRINTED_KEY_TTL_MS = 24 * 3_600_000;
const AUTO_KEY_WINDOW_MS = 60_000;
const KEY_LENGTH = { min: 8, max: 255 };

const printedQuerySchema = z
  .object({
    idempotency_key: z
      .string()
      .min(KEY_LENGTH.min)
      .max(KEY_LENGTH.max)
      .optional()
      .describe('Alternative to the Idempotency-Key header (8 to 255 characters, or `auto`)'),
  })
  .strict();

/** The key from the header or the query (spec: either); `auto` derives it from the request. */
function idempotencyKeyOf(ctx: AppContext, fromQuery: string | undefined): string {
  const header = ctx.get('Idempotency-Key');
  if (header && fromQuery && header !== fromQuery) {
    throw new ApiError('validation_error', {
      message: 'Send the idempotency key once: in the Idempotency-Key header or the idempotency_key parameter.',
      details: { header: 'Idempotency-Key', parameter: 'idempotency_key' },
    });
  }
  const key = header || fromQuery;
  if (!key) {
    throw new ApiError('validation_error', {
      message: 'An idempotency key is required: header Idempotency-Key (or `auto`) or query idempotency_key.',
      details: { header: 'Idempotency-Key', received: null },
    });
  }
  if (key !== 'auto' && (key.length < KEY_LENGTH.min || key.length > KEY_LENGTH.max)) {
    throw new ApiError('validation_error', {
      message: `Idempotency-Key must be ${KEY_LENGTH.min} to ${KEY_LENGTH.max} characters, or \`auto\`.`,
      details: {
        header: 'Idempotency-Key',
        received: key.length > 100 ? `${key.slice(0, 100)}…` : key,
        min: KEY_LENGTH.min,
        max: KEY_LENGTH.max,
      },
    });
  }
  return key;
}

export function createPrintedRoutes(deps: {
  orm: Orm;
  now: () => Date;
  platform: Pick<StorePlatformPort, 'addOrderTags'>;
  publicBaseUrl: string | undefined;
}) {
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
      params: labelParamsSchema,
      query: printedQuerySchema,
      headers: [
        {
          name: 'Idempotency-Key',
          required: false,
          description: '8 to 255 characters, or `auto`; required unless `idempotency_key` is sent',
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
      handler: async (ctx, { params, query }) => {
        const auth = ctx.state.auth!;
        const key = idempotencyKeyOf(ctx, query.idempotency_key);
        if (!hasPrefix('label', params.label_id)) throw new ApiError('not_found');
        const now = deps.now();
        const outcome = await runIdempotent(
          deps.orm,
          {
            storeId: auth.storeId,
            endpoint: 'POST /labels/{label_id}/printed',
            key,
            request: { label_id: params.label_id },
            now,
            ttlMs: PRINTED_KEY_TTL_MS,
            autoWindowMs: AUTO_KEY_WINDOW_MS,
          },
          async () => {
            const em = deps.orm.em.fork();
            const label = await findLabel(em, auth.storeId, params.label_id);
            if (!label) throw new ApiError('not_found');
            if (now.getTime() - label.createdAt.getTime() > DOCUMENT_RETENTION_MS) {
              throw new ApiError('document_expired', { details: { label_id: label.id } });
            }
            const account = label.carrierAccountId
              ? await em.findOne(CarrierAccount, { id: label.carrierAccountId })
              : null;
            if (account?.printTag) {
              const store = await em.findOneOrFail(Store, { id: auth.storeId });
              try {
                // Tag first: adding a tag twice is harmless, counting a print twice is not.
                await deps.platform.addOrderTags(store.domain, label.orderGid, [account.printTag]);
              } catch (error) {
                if (!(error instanceof PlatformUnavailableError)) throw error;
                throw new ApiError('shopify_unavailable', {
                  details: { what: 'order_tags', throttled: error.throttled },
                  headers: { 'Retry-After': String(error.retryAfterSeconds ?? 5) },
                });
              }
            }
            await recordLabelPrint(em, { storeId: auth.storeId, labelId: label.id, now });
            const fresh = await findLabel(deps.orm.em.fork(), auth.storeId, label.id);
            const [view] = await loadLabelViews(deps.orm.em.fork(), [fresh!]);
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
