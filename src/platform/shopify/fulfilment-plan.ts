/**
 * What a label's fulfilment still has to do on Shopify, decided from the fulfillment orders' state as read just before
 * (decision 0715). `fulfillmentCreate` takes no idempotency key and one location's fulfillment orders per call, so a
 * retry after a lost answer or a failed later location must not send again what an earlier attempt fulfilled: a
 * fulfillment order closed by a fulfilment carrying the label's tracking number is done; anything else is sent, and
 * Shopify's refusal of one closed by something else stays the failure it is.
 */

/** One fulfillment order as read; `null` where Shopify has none by that ID (or the app does not see it). */
export interface FulfillmentOrderState {
  id: string;
  /** Shopify's `FulfillmentOrderStatus` (`OPEN`, `IN_PROGRESS`, `CLOSED`, ...). */
  status: string;
  locationId: string | null;
  fulfillments: ReadonlyArray<{ id: string; status: string; trackingNumbers: ReadonlyArray<string | null> }>;
}

/** A step of the plan, per location in the order the locations first appear: fulfil these, or already done by `id`. */
export type FulfilmentStep =
  | { kind: 'fulfil'; fulfillmentOrderIds: string[] }
  | { kind: 'done'; fulfillmentOrderIds: string[]; fulfillmentId: string };

/** A fulfilment that did not happen or was undone does not close a fulfillment order for this label. */
const NOT_IN_EFFECT = new Set(['CANCELLED', 'ERROR', 'FAILURE']);

/** Tracking numbers compare as carriers print them: without spaces, in any case. */
const normalized = (number: string) => number.replace(/\s+/g, '').toUpperCase();

/** The fulfilment of this label on a closed fulfillment order (its ID), or null. */
export function ownFulfilment(state: FulfillmentOrderState | null, trackingNumber: string | null): string | null {
  if (!state || state.status !== 'CLOSED' || !trackingNumber) return null;
  const wanted = normalized(trackingNumber);
  const own = state.fulfillments.find(
    (f) => !NOT_IN_EFFECT.has(f.status) && f.trackingNumbers.some((n) => n !== null && normalized(n) === wanted),
  );
  return own?.id ?? null;
}

/**
 * The label's fulfillment orders (`ids`, in the request's order) with their states (by ID) as steps: those still to
 * fulfil grouped by location (one `fulfillmentCreate` each), those already done grouped by the fulfilment that closed
 * them. One Shopify does not know goes alone, so its refusal names it.
 */
export function planFulfilment(
  ids: readonly string[],
  states: ReadonlyMap<string, FulfillmentOrderState | null>,
  trackingNumber: string | null,
): FulfilmentStep[] {
  const steps = new Map<string, FulfilmentStep>();
  for (const id of ids) {
    const state = states.get(id) ?? null;
    const done = ownFulfilment(state, trackingNumber);
    const location = state?.locationId ?? `unknown:${id}`;
    const key = done ? `done:${location}:${done}` : `fulfil:${location}`;
    const step = steps.get(key);
    if (step) step.fulfillmentOrderIds.push(id);
    else
      steps.set(
        key,
        done
          ? { kind: 'done', fulfillmentOrderIds: [id], fulfillmentId: done }
          : { kind: 'fulfil', fulfillmentOrderIds: [id] },
      );
  }
  return [...steps.values()];
}
