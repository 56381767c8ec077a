import { carrierDefinition } from '../../domain/carrier-catalog';
import type { LabelView } from '../../db/labels-query';
import { deriveDocument } from '../../domain/document-availability';
import { isoSeconds, isoSecondsOrNull, money } from '../../domain/wire-format';
import type { LabelWire } from './schemas';

/** Carrier-specific `extras` exist only for carrier A (spec: `{}` for other carriers). */
const CARRIERS_WITH_EXTRAS = new Set(['carrier_a']);

/**
 * The one serializer of the label object, used by every endpoint that returns labels. `baseUrl` has no `/v1`;
 * `now` decides `document.availability` (age).
 */
export function serializeLabel(view: LabelView, context: { baseUrl: string; now: Date }): LabelWire {
  const { label } = view;
  const carrier = carrierDefinition(label.carrierCode);
  const document = deriveDocument(
    {
      kind: label.kind,
      status: label.status,
      createdAt: label.createdAt,
      carrier: { documentMode: carrier.documentMode, formats: carrier.formats },
      storedDocument: view.storedDocument,
      redacted: label.documentRedacted,
    },
    context.now,
  );
  return {
    id: label.id,
    order: { id: label.orderGid, legacy_id: label.orderLegacyId, name: label.orderName },
    fulfillment_orders: view.fulfillmentOrders.map((fo) => ({ id: fo.gid, legacy_id: fo.legacyId })),
    direction: label.direction,
    kind: label.kind,
    status: label.status,
    failure_reason: label.status === 'failed' ? label.failureReason : null,
    current: label.current,
    supersedes: label.supersedes,
    superseded_by: label.supersededBy,
    current_set: label.currentSet,
    carrier: { code: carrier.code, name: label.carrierName, account_id: label.carrierAccountId },
    // Spec "Label": `service` only on labels created through the API; `declared_value` null on admin and automation
    // labels, whatever an import or an older row holds.
    service:
      label.source === 'api' && label.serviceCode !== null
        ? { code: label.serviceCode, name: label.serviceName ?? label.serviceCode }
        : null,
    source: label.source,
    cod:
      label.codAmount !== null && label.codCurrency !== null && label.codSource !== null
        ? { amount: money(label.codAmount), currency: label.codCurrency, source: label.codSource }
        : null,
    declared_value:
      label.source !== 'admin' &&
      label.source !== 'flow' &&
      label.declaredValueAmount !== null &&
      label.declaredValueCurrency !== null
        ? { amount: money(label.declaredValueAmount), currency: label.declaredValueCurrency }
        : null,
    tracking_number: label.trackingNumber,
    tracking_url: label.trackingUrl,
    parcels: label.parcels.map((p) => ({
      tracking_number: p.trackingNumber,
      tracking_url: p.trackingUrl,
      weight_grams: p.weightGrams,
    })),
    batch_id: label.batchId,
    document: {
      availability: document.availability,
      source: document.source,
      formats: document.formats,
      available_until: isoSeconds(document.availableUntil),
      url: `${context.baseUrl}/v1/labels/${label.id}/document`,
    },
    extras: CARRIERS_WITH_EXTRAS.has(label.carrierCode) ? label.extras : {},
    created_at: isoSeconds(label.createdAt),
    updated_at: isoSecondsOrNull(label.updatedAt),
  };
}
