import { DomainError } from '../../domain/errors';
import { holdsScope } from '../../access/scopes';
import type { CarrierProtection } from '../../creation/carrier-protection';
import { decideBeforeCarrier } from '../../creation/decide-before-carrier';
import { readLabelViews } from '../../db/labels-query';
import type { Orm } from '../../db/orm';
import { normalizeCreationRequest, type CreationRequest } from '../../domain/creation-request';
import { ApiError } from '../../http/api-error';
import { AMOUNT_VALIDATION_EXAMPLE, PLATFORM_QUEUE_FULL_EXAMPLE } from '../../http/error-examples';
import { baseUrl } from '../../http/middleware';
import { defineRoute } from '../../http/route';
import type { AppContext } from '../../http/state';
import type { StorePlatformPort } from '../../platform/port';
import { labelCreationSchema } from '../label-creations/schemas';
import { serializeLabelCreation } from '../label-creations/serializer';
import {
  creationIdempotencyKey,
  creationKeyHeaderSchema,
  preferHeaderSchema,
  preferWaitSeconds,
} from './create-headers';
import { createLabelBodySchema } from './create-schema';
import { dryRunView } from './dry-run';
import type { LiveCreation } from '../../creation/live-creation';
import { renderCreation } from './creation-answer';
import type { LabelWire } from './schemas';
import { serializeLabel } from './serializer';

export interface CreateLabelRouteDeps {
  orm: Orm;
  now: () => Date;
  platform: Pick<StorePlatformPort, 'getOrderWithFulfillmentOrders' | 'findOrdersByName' | 'listFulfillmentOrders'>;
  publicBaseUrl: string | undefined;
  liveCreation: LiveCreation;
  /** The dry run answers the carrier-protection refusal a live call would get (docs/decisions/0503). */
  carrierProtection: Pick<CarrierProtection, 'check'>;
}

const preferenceApplied = { 'Preference-Applied': '`wait=N`: how long the answer was held for the result' };
/** Only a succeeded creation's answer is replayed (spec "Idempotency of POST /labels"; decision 0012). */
const creationHeaders = {
  ...preferenceApplied,
  'Idempotency-Replayed': '`true` on a repeat of a bound Idempotency-Key answered with the original answer',
};

/** Whether a request's Idempotency-Key was bound when its limit class was decided: the creation need not ask again. */
const keyBoundOf = new WeakMap<AppContext, boolean>();

export function createLabelCreationRoutes(deps: CreateLabelRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/labels',
      operationId: 'createLabel',
      summary: 'Create a label (at most one shipment for one order), or dry-run the checks',
      description:
        'Answers a label creation. Live: 201 new label, 200 existing labels (`on_existing: return`), 202 not finished ' +
        'within `Prefer: wait` (poll; never create again) or outcome unknown (`needs_attention`); an error means this ' +
        'call created no shipment. Dry run (`dry_run: true`): runs every check up to the carrier call (order, target, ' +
        'existing labels, carrier selection, COD, pre-carrier checks) and answers 200 `validated` with `would`, or the ' +
        'error a live call would get; it creates no record, binds no key, takes no lock and calls no carrier. Decide on ' +
        '`next_action`, not on the HTTP status.',
      tag: 'Label creations',
      access: { kind: 'key', scope: 'labels:write', write: true },
      // Spec "Limits": dry runs have their own buckets; a repeat of a bound Idempotency-Key counts as a read. The
      // headers are validated first, like the body: a request refused by validation is not counted. The PDFs of
      // `include: ["document"]` count as stored documents, charged by the answer that serves them (decision 0121).
      limits: {
        classes: ['dry_run', 'write', 'read', 'document'],
        classify: async (ctx, { body }) => {
          preferWaitSeconds(ctx.get('Prefer') || undefined);
          if (body.dry_run) return 'dry_run';
          const idempotencyKey = creationIdempotencyKey(ctx.get('Idempotency-Key') || undefined);
          const bound = await deps.liveCreation.isBound?.({ storeId: ctx.state.auth!.storeId, idempotencyKey });
          if (bound !== undefined) keyBoundOf.set(ctx, bound);
          return bound ? 'read' : 'write';
        },
      },
      body: createLabelBodySchema,
      errorExamples: {
        validation_error: AMOUNT_VALIDATION_EXAMPLE,
        temporarily_unavailable: PLATFORM_QUEUE_FULL_EXAMPLE,
      },
      requestExample: {
        order_id: '1001',
        parcels: [{ weight_grams: 1200 }],
        cod: { amount: '499.00', currency: 'CZK' },
        on_existing: 'return',
        client_reference: 'wms-42-7',
      },
      headers: [
        {
          name: 'Idempotency-Key',
          required: false,
          description:
            'Required on live requests: 8 to 255 characters, header only, `auto` not accepted; binds the creation for ' +
            '30 days. Ignored with `dry_run`.',
          schema: creationKeyHeaderSchema,
        },
        {
          name: 'Prefer',
          required: false,
          description: '`wait=N`, N 0 to 60 seconds (default 20): how long the answer is held for the result',
          schema: preferHeaderSchema,
        },
      ],
      responses: {
        200: {
          description:
            'Dry run: `validated` with `would`. Live: existing labels returned (`succeeded`, `created: false`)',
          schema: labelCreationSchema,
          headers: { 'Content-Location': 'The creation (live only)', ...creationHeaders },
        },
        201: {
          description: 'New label: `succeeded`, `created: true`, one label',
          schema: labelCreationSchema,
          headers: { Location: 'The label', 'Content-Location': 'The creation', ...creationHeaders },
        },
        202: {
          description:
            'Not finished within the wait (`processing`, `next_action: poll`) or outcome unknown (`needs_attention`, `next_action: manual_check`)',
          schema: labelCreationSchema,
          headers: {
            Location: 'The creation',
            'Retry-After': '2 while `processing`',
            ...preferenceApplied,
          },
        },
      },
      errors: [
        'idempotency_conflict',
        'label_exists',
        'unresolved_creation',
        'creation_in_progress',
        'precondition_failed',
        'carrier_rejected',
        'repeated_rejection',
        'label_validation_failed',
        'currency_mismatch',
        'order_not_eligible',
        'order_ambiguous',
        'fulfillment_order_required',
        'carrier_selection_failed',
        'unsupported_parameter',
        'rate_limited',
        'carrier_unavailable',
        'shopify_unavailable',
        'temporarily_unavailable',
        'not_started',
      ],
      errorHeaders: {
        409: { 'Retry-After': '`creation_in_progress`: 5' },
        422: { 'Retry-After': '`repeated_rejection`: seconds until `blocked_until`' },
        429: { 'Retry-After': 'Seconds until the refusing bucket allows the request' },
        503: {
          'Retry-After':
            'Seconds to wait before sending the same request again; `carrier_unavailable` (`circuit_open`, `account_rejecting`): until the carrier account is called again; `temporarily_unavailable`: 30 when the platform-wide creation queue is full, 5 when the write counters are unavailable',
        },
      },
      handler: async (ctx, { body }) => {
        const auth = ctx.state.auth!;
        const waitSeconds = preferWaitSeconds(ctx.get('Prefer') || undefined);
        const request = normalizeCreationRequest(body);
        if (request.include.includes('document') && !holdsScope(auth.scopes, 'labels:print')) {
          throw new ApiError('insufficient_scope', {
            message: 'include: ["document"] needs the `labels:print` scope.',
            details: { required_scope: 'labels:print' },
          });
        }
        const base = baseUrl(ctx, deps.publicBaseUrl);
        if (request.dryRun) await answerDryRun(ctx, deps, request, base);
        else await answerLive(ctx, deps, { request, waitSeconds, orderName: body.order_name?.trim() ?? null, base });
      },
    }),
  ];
}

/** A live creation: created, or joined when its key is bound, within `Prefer: wait`, and answered from its record. */
async function answerLive(
  ctx: AppContext,
  deps: CreateLabelRouteDeps,
  given: { request: CreationRequest; waitSeconds: number; orderName: string | null; base: string },
): Promise<void> {
  const auth = ctx.state.auth!;
  const { request, base } = given;
  const idempotencyKey = creationIdempotencyKey(ctx.get('Idempotency-Key') || undefined);
  const outcome = await deps.liveCreation.create({
    storeId: auth.storeId,
    apiKeyId: auth.apiKeyId,
    idempotencyKey,
    waitSeconds: given.waitSeconds,
    request,
    orderName: given.orderName,
    keyBound: keyBoundOf.get(ctx),
    requestId: ctx.state.requestId,
    noteLimits: (states) => ctx.state.limits?.note(states),
  });
  await renderCreation(ctx, deps.orm, outcome, {
    baseUrl: base,
    now: deps.now(),
    includeDocuments: request.include.includes('document'),
  });
}

/**
 * A dry run: every check up to the carrier call, carrier protection's included, answered as `validated` with what a
 * live call would do, or refused as a live call would be. No record, no key, no lock, no carrier call.
 */
async function answerDryRun(
  ctx: AppContext,
  deps: CreateLabelRouteDeps,
  request: CreationRequest,
  base: string,
): Promise<void> {
  const auth = ctx.state.auth!;
  const now = deps.now();
  const decision = await decideBeforeCarrier({ ...deps, now: () => now }, { storeId: auth.storeId, request });
  if (decision.kind === 'refuse') throw DomainError.from(decision.refusal);
  const labelIds =
    decision.kind === 'return_existing'
      ? decision.labelIds
      : decision.kind === 'wait_for_existing' && decision.waitFor.reason === 'label_pending'
        ? [decision.waitFor.labelId]
        : [];
  const labels: LabelWire[] = (await readLabelViews(deps.orm.em.fork(), auth.storeId, labelIds)).map((view) =>
    serializeLabel(view, { baseUrl: base, now }),
  );
  ctx.status = 200;
  ctx.body = serializeLabelCreation(dryRunView(decision, request, labels), { baseUrl: base });
}
