import type { Money } from '../../domain/money';
import type { CodSplit } from '../../domain/cod';
import type { OrderRef, ResolvedBlock } from '../../domain/creation-decision';
import type { RequestedWire } from '../../domain/creation-request';
import type { WaitFor } from '../../domain/existing-labels';
import type { LabelCreationPhase, LabelCreationStatus, NextAction, Would } from '../../domain/labels';
import { nextActionOf } from '../../domain/next-action';
import type { CreationWarning } from '../../domain/refusal';
import type { Resolution } from '../../domain/resolve';
import { withRetryPair, type ErrorCode } from '../../domain/error-catalog';
import { isoSeconds, isoSecondsOrNull } from '../../domain/wire-format';
import type { LabelWire } from '../labels/schemas';
import type { LabelCreationWire } from './schemas';

type SideEffectStatus = 'pending' | 'succeeded' | 'failed' | 'skipped';

export interface AttentionView {
  reason: 'carrier_timeout' | 'carrier_error' | 'worker_lost' | 'label_not_retrieved' | 'confirmation_missing';
  shipmentAtCarrier: 'unknown' | 'exists';
  carrier: { code: string; name: string; accountId: string | null };
  carrierReference: string | null;
  carrierNote: 'draft_until_label_printed' | null;
  sentAt: Date;
  resolveAllowedAt: Date;
}

/**
 * Everything the label creation object shows, as plain values: a dry run builds it from its decision, a stored
 * `label_creations` row maps to it one field at a time (`resolved` and `warnings` are stored as the domain shapes).
 * Labels come already serialized by the label serializer.
 */
export interface LabelCreationView {
  id: string | null;
  status: LabelCreationStatus | 'validated';
  phase: LabelCreationPhase | null;
  created: boolean | null;
  dryRun: boolean;
  would: Would | null;
  waitingFor: WaitFor | null;
  /** Null `id` and `legacy_id` until the creation found an order named by `order_name`; null fields of an order not found. */
  order: { [K in keyof OrderRef]: OrderRef[K] | null };
  requested: RequestedWire;
  resolved: ResolvedBlock;
  labels: LabelWire[];
  sideEffects: {
    fulfillment: { mode: 'none' | 'fulfill' | 'fulfill_and_notify'; status: SideEffectStatus } | null;
    orderTags: { status: SideEffectStatus } | null;
  };
  warnings: CreationWarning[];
  error: { code: ErrorCode | 'resolved_not_created'; message: string; details?: Record<string, unknown> } | null;
  attention: AttentionView | null;
  resolution: Resolution | null;
  clientReference: string | null;
  idempotencyKey: string | null;
  createdAt: Date | null;
  updatedAt: Date | null;
}

const moneyWire = (m: Money): Money => ({ amount: m.amount, currency: m.currency });
const splitWire = (s: CodSplit) => ({
  label_goods_value: moneyWire(s.labelGoodsValue),
  order_goods_value: moneyWire(s.orderGoodsValue),
  fulfillment_order_ids: s.fulfillmentOrderIds,
});

function resolvedWire(r: ResolvedBlock): LabelCreationWire['resolved'] {
  return {
    selection: r.selection,
    matched_rule: r.matchedRule,
    carrier_account_id: r.carrierAccountId,
    service_code: r.serviceCode,
    parcels: r.parcels ? r.parcels.map((p) => ({ weight_grams: p.weightGrams, source: p.source })) : null,
    fulfillment: r.fulfillment,
    cod: r.cod
      ? {
          decided: { ...moneyWire(r.cod.decided), source: r.cod.decided.source },
          to_carrier: {
            ...moneyWire(r.cod.toCarrier),
            adjustments: r.cod.toCarrier.adjustments.map((a) => ({
              kind: a.kind,
              rule: a.rule,
              from: a.from,
              to: a.to,
            })),
            state: r.cod.toCarrier.state,
          },
          derivation: {
            base: r.cod.derivation.base && moneyWire(r.cod.derivation.base),
            raw_metafield: r.cod.derivation.rawMetafield,
            matched_gateway: r.cod.derivation.matchedGateway,
            outstanding_balance: r.cod.derivation.outstandingBalance && moneyWire(r.cod.derivation.outstandingBalance),
            share: r.cod.derivation.share && moneyWire(r.cod.derivation.share),
            split: r.cod.derivation.split && splitWire(r.cod.derivation.split),
            converted: r.cod.derivation.converted,
          },
        }
      : null,
    declared_value: r.declaredValue
      ? {
          decided: r.declaredValue.decided && {
            ...moneyWire(r.declaredValue.decided),
            source: r.declaredValue.decided.source,
          },
          to_carrier: r.declaredValue.toCarrier && moneyWire(r.declaredValue.toCarrier),
        }
      : null,
  };
}

function waitingForWire(w: WaitFor): NonNullable<LabelCreationWire['waiting_for']> {
  return w.reason === 'fulfillment_order_held'
    ? {
        reason: w.reason,
        held_by: w.heldBy,
        label_creation_id: w.labelCreationId,
        label_id: null,
        fulfillment_order_ids: w.fulfillmentOrderIds,
      }
    : { reason: w.reason, held_by: null, label_creation_id: null, label_id: w.labelId, fulfillment_order_ids: [] };
}

/**
 * The one serializer of the label creation object (`POST /labels`, its dry run, `GET /label-creations`). `baseUrl`
 * has no `/v1`.
 */
export function serializeLabelCreation(view: LabelCreationView, context: { baseUrl: string }): LabelCreationWire {
  // The stored error shows the same `retry` / `next_action` pair as the direct answer of `POST /labels`.
  const errorDetails = view.error && withRetryPair(view.error.code, view.error.details);
  const errorNextAction = (errorDetails?.next_action as NextAction | undefined) ?? null;
  return {
    id: view.id,
    status: view.status,
    phase: view.status === 'processing' ? view.phase : null,
    next_action: nextActionOf({
      status: view.status,
      errorNextAction,
      labelAvailabilities: view.labels.map((l) => l.document.availability),
    }),
    created: view.created,
    dry_run: view.dryRun,
    would: view.dryRun ? view.would : null,
    waiting_for: view.waitingFor && waitingForWire(view.waitingFor),
    order: { id: view.order.id, legacy_id: view.order.legacyId, name: view.order.name },
    requested: view.requested,
    resolved: resolvedWire(view.resolved),
    labels: view.labels,
    side_effects: { fulfillment: view.sideEffects.fulfillment, order_tags: view.sideEffects.orderTags },
    warnings: view.warnings.map((w) => ({
      code: w.code,
      message: w.message,
      ...(w.details ? { details: w.details } : {}),
    })),
    error: view.error && {
      code: view.error.code,
      message: view.error.message,
      ...(errorDetails && Object.keys(errorDetails).length > 0 ? { details: errorDetails } : {}),
      doc_url: `${context.baseUrl}/v1/docs/errors#${view.error.code}`,
    },
    attention: view.attention && {
      reason: view.attention.reason,
      shipment_at_carrier: view.attention.shipmentAtCarrier,
      carrier: {
        code: view.attention.carrier.code,
        name: view.attention.carrier.name,
        account_id: view.attention.carrier.accountId,
      },
      carrier_reference: view.attention.carrierReference,
      carrier_note: view.attention.carrierNote,
      sent_at: isoSeconds(view.attention.sentAt),
      resolve_allowed_at: isoSeconds(view.attention.resolveAllowedAt),
    },
    resolution: view.resolution && {
      outcome: view.resolution.outcome,
      tracking_number: view.resolution.trackingNumber,
      note: view.resolution.note,
      resolved_by: view.resolution.resolvedBy,
      resolved_at: isoSeconds(new Date(view.resolution.resolvedAt)),
    },
    client_reference: view.clientReference,
    idempotency_key: view.idempotencyKey,
    url: view.id ? `${context.baseUrl}/v1/label-creations/${view.id}` : null,
    created_at: isoSecondsOrNull(view.createdAt),
    updated_at: isoSecondsOrNull(view.updatedAt),
  };
}
