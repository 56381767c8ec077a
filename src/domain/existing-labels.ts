import { CARRIERS, type CodRounding } from './carrier-catalog';
import type { Money } from './money';
import type { HolderKind } from './holders';
import { roundCod } from './cod-rounding';
import type {
  ContextCarrierAccount,
  ContextCreation,
  ContextFulfillmentOrder,
  ContextLabel,
  CreationContext,
} from './creation-context';
import type { CreationRequest } from './creation-request';
import { DOCUMENT_RETENTION_MS } from './document-availability';
import type { OnExisting } from './labels';
import { refusal, type CreationWarning, type Refusal } from './refusal';

/** Spec "Limits": pending labels younger than this are adopted (`return`) and never replaced (`create_new`). */
export const PENDING_ADOPTION_WINDOW_MS = 10 * 60_000;
/** Spec `creation_in_progress`: `Retry-After: 5`. */
export const CREATION_IN_PROGRESS_RETRY_AFTER_SECONDS = 5;

export type WaitFor =
  | {
      reason: 'fulfillment_order_held';
      heldBy: HolderKind;
      labelCreationId: string | null;
      fulfillmentOrderIds: string[];
    }
  | { reason: 'label_pending'; labelId: string; pendingSinceMs: number };

export type ExistingLabelsDecision =
  /** Nothing blocks, or `create_new` replaces exactly what blocks (`replaces`: those IDs, sorted). */
  | { kind: 'create'; replaces: string[] }
  /** `return`: ready labels cover the whole target (still to be compared with the request). */
  | { kind: 'return_existing'; labels: ContextLabel[] }
  /** `return`: a holder runs, or a covering label is pending under 10 minutes. */
  | { kind: 'wait_for_existing'; waitFor: WaitFor }
  | { kind: 'refuse'; refusal: Refusal };

export interface ExistingLabelsInput {
  onExisting: OnExisting;
  replaces: readonly string[];
  target: readonly ContextFulfillmentOrder[];
  fulfillmentOrders: readonly ContextFulfillmentOrder[];
  labels: readonly ContextLabel[];
  creations: readonly ContextCreation[];
  holders: CreationContext['holders'];
  selfCreationId: string | null;
  nowMs: number;
}

type Coverage = 'all' | ReadonlySet<string>;
const coverageOf = (l: ContextLabel): Coverage =>
  !l.coverageKnown || l.fulfillmentOrderIds.length === 0 ? 'all' : new Set(l.fulfillmentOrderIds);
const touches = (c: Coverage, ids: ReadonlySet<string>): boolean => c === 'all' || [...c].some((id) => ids.has(id));

/** Fulfillment orders an order edit replaced, directly or through a chain, by one of the target's. */
function replacedIntoTarget(all: readonly ContextFulfillmentOrder[], target: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const fo of all) {
      if (out.has(fo.id) || target.has(fo.id)) continue;
      if (fo.replacedBy.some((id) => target.has(id) || out.has(id))) {
        out.add(fo.id);
        grew = true;
      }
    }
  }
  return out;
}

const labelExists = (reason: string, message: string, details: Record<string, unknown>): ExistingLabelsDecision => ({
  kind: 'refuse',
  refusal: refusal('label_exists', message, { reason, ...details }),
});

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((v, i) => v === [...b].sort()[i]);

/**
 * Spec `POST /labels` "Existing labels": every row of the table for `return` and `reject`, and `create_new` with
 * `replaces`. Rows are checked in the table's order; within the label rows, the most specific reason wins
 * (docs/decisions/0113-existing-labels.md).
 */
export function decideExistingLabels(input: ExistingLabelsInput): ExistingLabelsDecision {
  const targetIds = new Set(input.target.map((fo) => fo.id));
  const others = input.creations.filter(
    (c) => c.id !== input.selfCreationId && c.fulfillmentOrderIds.some((id) => targetIds.has(id)),
  );

  const unresolved = others.filter((c) => c.status === 'needs_attention');
  if (unresolved.length > 0) {
    return {
      kind: 'refuse',
      refusal: refusal(
        'unresolved_creation',
        'An earlier creation for the fulfillment order needs attention; resolve it first (POST /label-creations/{id}/resolve).',
        { label_creation_id: unresolved[0]!.id, label_creation_ids: unresolved.map((c) => c.id) },
      ),
    };
  }

  const held = input.holders.filter(
    (h) =>
      targetIds.has(h.fulfillmentOrderGid) && !(h.heldBy === 'creation' && h.labelCreationId === input.selfCreationId),
  );
  if (held.length > 0) {
    const first = held.find((h) => h.heldBy === 'creation') ?? held[0]!;
    if (input.onExisting === 'return') {
      return {
        kind: 'wait_for_existing',
        waitFor: {
          reason: 'fulfillment_order_held',
          heldBy: first.heldBy,
          labelCreationId: first.labelCreationId,
          fulfillmentOrderIds: [...new Set(held.map((h) => h.fulfillmentOrderGid))],
        },
      };
    }
    return {
      kind: 'refuse',
      refusal: refusal(
        'creation_in_progress',
        first.heldBy === 'export'
          ? 'An admin or automation export holds the fulfillment order; retry after it finishes.'
          : 'Another label creation holds the fulfillment order; retry after it finishes.',
        { held_by: first.heldBy, label_creation_id: first.labelCreationId },
        CREATION_IN_PROGRESS_RETRY_AFTER_SECONDS,
      ),
    };
  }

  const abandoned = others.filter((c) => c.status === 'abandoned');
  const replaced = replacedIntoTarget(input.fulfillmentOrders, targetIds);
  const relevant = input.labels
    .filter((l) => l.status !== 'failed' && l.kind !== 'claim')
    .filter((l) => touches(coverageOf(l), targetIds) || touches(coverageOf(l), replaced));
  const relevantIds = relevant.map((l) => l.id);
  const isPending = (l: ContextLabel) => l.status === 'pending';
  const youngPending = relevant.filter((l) => isPending(l) && input.nowMs - l.createdAtMs < PENDING_ADOPTION_WINDOW_MS);

  if (input.onExisting === 'create_new') {
    if (youngPending.length > 0) {
      return labelExists(
        'existing_label_pending',
        'A covering label is pending for under 10 minutes; create_new never replaces it. Wait for it to finish.',
        { existing_label_ids: youngPending.map((l) => l.id) },
      );
    }
    const blocking = [...abandoned.map((c) => c.id), ...relevantIds].sort();
    if (!sameSet(input.replaces, blocking)) {
      return {
        kind: 'refuse',
        refusal: refusal(
          'precondition_failed',
          blocking.length === 0
            ? 'Nothing blocks the target; send replaces: [].'
            : `replaces must list exactly what blocks the target today: ${blocking.join(', ')}.`,
          { current_blocking: blocking },
        ),
      };
    }
    return { kind: 'create', replaces: blocking };
  }

  if (abandoned.length > 0) {
    return labelExists(
      'shipment_outside_globe',
      'An abandoned creation covers the target: its shipment may exist at the carrier. Create a new label with on_existing: create_new and its lcr_ ID in replaces.',
      {
        label_creation_id: abandoned[0]!.id,
        label_creation_ids: abandoned.map((c) => c.id),
        existing_label_ids: relevantIds,
      },
    );
  }
  if (relevant.length === 0) return { kind: 'create', replaces: [] };

  const block = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
    labelExists(reason, message, { existing_label_ids: relevantIds, ...extra });

  if (relevant.some((l) => !l.coverageKnown)) {
    return block(
      'existing_label_coverage_unknown',
      'An older label of the order was recorded without the fulfillment orders it covers.',
    );
  }
  if (relevant.some((l) => !touches(coverageOf(l), targetIds))) {
    return block(
      'existing_label_on_replaced_fulfillment_order',
      'A current label covers a fulfillment order that an order edit replaced by the target.',
    );
  }
  const overlapping = relevant.some((a, i) =>
    relevant.slice(i + 1).some((b) => {
      const ca = coverageOf(a);
      const cb = coverageOf(b);
      return ca === 'all' || cb === 'all' || [...ca].some((id) => targetIds.has(id) && cb.has(id));
    }),
  );
  if (overlapping) {
    return block(
      'ambiguous_current_set',
      'Two current labels cover one fulfillment order of the target; the set must be checked by a person.',
    );
  }
  if (relevant.some((l) => isPending(l) && input.nowMs - l.createdAtMs >= PENDING_ADOPTION_WINDOW_MS)) {
    return block('existing_label_pending', 'A covering label has been pending for over 10 minutes.');
  }
  if (relevant.some((l) => l.status === 'ready' && input.nowMs - l.createdAtMs > DOCUMENT_RETENTION_MS)) {
    return block('existing_label_expired', 'A covering label is older than 60 days; its document is no longer served.');
  }
  const uncovered = input.target
    .map((fo) => fo.id)
    .filter((id) => !relevant.some((l) => touches(coverageOf(l), new Set([id]))));
  if (uncovered.length > 0) {
    return block('partial_coverage', 'Existing labels cover only part of the target.', {
      uncovered_fulfillment_order_ids: uncovered,
    });
  }
  if (youngPending.length > 0) {
    if (input.onExisting === 'return') {
      const label = youngPending[0]!;
      return {
        kind: 'wait_for_existing',
        waitFor: { reason: 'label_pending', labelId: label.id, pendingSinceMs: label.createdAtMs },
      };
    }
    return block('existing_label_pending', 'A covering label is pending (under 10 minutes old).');
  }
  if (input.onExisting === 'reject') return block('existing_label_ready', 'Ready labels cover the whole target.');
  return { kind: 'return_existing', labels: relevant };
}

export interface Difference {
  field: string;
  requested: unknown;
  existing: unknown;
}

/** The rounding a label's COD went through: its account's table, else its carrier's catalogue entry. */
function roundingOf(label: ContextLabel, accounts: readonly ContextCarrierAccount[]): Record<string, CodRounding> {
  const account = accounts.find((a) => a.id === label.carrierAccountId);
  return account?.codRoundingByCurrency ?? CARRIERS[label.carrierCode]?.codRounding ?? {};
}

const sameMoney = (a: Money, b: Money) => a.amount === b.amount && a.currency === b.currency;

/**
 * Spec `POST /labels`: with `return` handing back existing labels, the request's `carrier_account_id`,
 * `service_code`, `cod`, `declared_value` and `parcels` must match them (COD after the carrier's rounding); values the
 * caller left to derivation are not compared. A request differing only in `carrier_options` or `fulfillment` gets the
 * labels with `request_parameters_not_applied`.
 */
export function compareWithExisting(
  request: CreationRequest,
  labels: readonly ContextLabel[],
  accounts: readonly ContextCarrierAccount[],
): { kind: 'match'; warnings: CreationWarning[] } | { kind: 'refuse'; refusal: Refusal } {
  const ids = labels.map((l) => l.id);
  const compared = [
    request.carrierAccountId !== null && 'carrier_account_id',
    request.serviceCode !== null && 'service_code',
    request.cod !== null && 'cod',
    request.declaredValue !== null && 'declared_value',
    request.parcels !== null && 'parcels',
  ].filter((f): f is string => f !== false);
  const unverifiable = (fields: string[]) => ({
    kind: 'refuse' as const,
    refusal: refusal(
      'label_exists',
      `The existing labels cannot be checked against the request (${fields.join(', ')}); send the request without them, or use on_existing: reject.`,
      { reason: 'existing_label_unverifiable', existing_label_ids: ids },
    ),
  });
  if (compared.length > 0 && labels.length > 1) return unverifiable(compared);

  const label = labels[0]!;
  const differences: Difference[] = [];
  const unrecorded: string[] = [];
  if (request.carrierAccountId !== null) {
    if (label.carrierAccountId === null) unrecorded.push('carrier_account_id');
    else if (label.carrierAccountId !== request.carrierAccountId)
      differences.push({
        field: 'carrier_account_id',
        requested: request.carrierAccountId,
        existing: label.carrierAccountId,
      });
  }
  if (request.serviceCode !== null) {
    if (label.serviceCode === null) unrecorded.push('service_code');
    else if (label.serviceCode !== request.serviceCode)
      differences.push({ field: 'service_code', requested: request.serviceCode, existing: label.serviceCode });
  }
  if (request.cod !== null) {
    if (label.cod === null) unrecorded.push('cod');
    else {
      const existing = { amount: label.cod.amount, currency: label.cod.currency };
      if (!sameMoney(roundCod(request.cod, roundingOf(label, accounts)), existing))
        differences.push({ field: 'cod', requested: request.cod, existing });
    }
  }
  if (request.declaredValue !== null) {
    // API labels record "none" as null; admin and automation labels never record it.
    if (label.declaredValue === null && label.source !== 'api') unrecorded.push('declared_value');
    else if (label.declaredValue === null || !sameMoney(request.declaredValue, label.declaredValue))
      differences.push({ field: 'declared_value', requested: request.declaredValue, existing: label.declaredValue });
  }
  if (request.parcels !== null) {
    const requested = request.parcels[0]!.weightGrams;
    if (label.weightGrams === null) unrecorded.push('parcels');
    else if (label.weightGrams !== requested)
      differences.push({
        field: 'parcels',
        requested: [{ weight_grams: requested }],
        existing: [{ weight_grams: label.weightGrams }],
      });
  }
  if (differences.length > 0) {
    return {
      kind: 'refuse',
      refusal: refusal(
        'label_exists',
        `The existing label differs from the request in ${differences.map((d) => d.field).join(', ')}.`,
        { reason: 'existing_label_differs', existing_label_ids: ids, differences },
      ),
    };
  }
  if (unrecorded.length > 0) return unverifiable(unrecorded);

  const notApplied = [
    Object.keys(request.carrierOptions).length > 0 && 'carrier_options',
    (request.fulfillment === 'fulfill' || request.fulfillment === 'fulfill_and_notify') && 'fulfillment',
  ].filter((p): p is string => p !== false);
  return {
    kind: 'match',
    warnings:
      notApplied.length > 0
        ? [
            {
              code: 'request_parameters_not_applied',
              message: `The existing label is returned as it is: ${notApplied.join(' and ')} applied only to a new label, and a returned label never triggers fulfillment.`,
              details: { parameters: notApplied },
            },
          ]
        : [],
  };
}
