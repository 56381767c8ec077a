import type { ContextFulfillmentOrder, ContextLabel, ContextOrder, OrderLookup } from './creation-context';
import type { CreationRequest } from './creation-request';
import { decided, refusal, refused, type Decided } from './refusal';

/**
 * Spec "Limits": at most 20 fulfillment orders per order, counted over every fulfillment order of the order, whatever
 * its status, delivery method or location (docs/decisions/0130-fulfillment-orders-per-order.md).
 */
export const MAX_ORDER_FULFILLMENT_ORDERS = 20;

const SHIPPABLE_STATUSES = new Set(['open', 'in_progress']);

/**
 * A parcel fulfillment order ships through a carrier from the merchant's own location; pickup in store, local delivery
 * and retail never do, and a fulfillment service ships from its own location itself (decision 0705).
 */
export const isParcel = (fo: ContextFulfillmentOrder): boolean =>
  fo.deliveryMethodType === 'shipping' && fo.fulfillmentService === null;

/** `on_hold` with a hold on it is held, not waiting: who holds it decides (`holders`, spec `creation_in_progress`). */
const isHeld = (fo: ContextFulfillmentOrder): boolean => fo.status === 'on_hold' && fo.heldOnPlatform;
export const isShippable = (fo: ContextFulfillmentOrder): boolean =>
  isParcel(fo) && (SHIPPABLE_STATUSES.has(fo.status) || isHeld(fo));
/** Scheduled for later, or on hold with no hold to wait for: it cannot ship yet. */
const isNotReady = (fo: ContextFulfillmentOrder): boolean =>
  fo.status === 'scheduled' || (fo.status === 'on_hold' && !fo.heldOnPlatform);

export function resolveOrder(lookup: OrderLookup): Decided<ContextOrder> {
  if (lookup.kind === 'found') return decided(lookup.order);
  if (lookup.kind === 'ambiguous') {
    return refused(
      refusal(
        'order_ambiguous',
        `order_name ${JSON.stringify(lookup.name)} matches ${lookup.matches} orders; send order_id.`,
        {
          order_name: lookup.name,
        },
      ),
    );
  }
  return refused(
    refusal(
      'order_not_eligible',
      lookup.by === 'name'
        ? `No order is named ${JSON.stringify(lookup.value)}. The name search index may lag a few seconds behind new orders; retry, or send order_id.`
        : lookup.platform === 'sandbox'
          ? 'The store has no such order on the sandbox store platform.'
          : 'The store has no such order (an app without read_all_orders on Shopify sees only orders of the last 60 days).',
      lookup.by === 'name'
        ? { reason: 'order_not_found', order_name: lookup.value }
        : { reason: 'order_not_found', order_id: lookup.value },
    ),
  );
}

function notEligible(reason: string, message: string, details: Record<string, unknown>): Decided<never> {
  return refused(refusal('order_not_eligible', message, { reason, ...details }));
}

/** The `{id, status, assigned_location_name, existing_label_ids}` entries of `fulfillment_orders` details. */
export function fulfillmentOrderSummaries(
  fulfillmentOrders: readonly ContextFulfillmentOrder[],
  labels: readonly ContextLabel[],
): Array<{ id: string; status: string; assigned_location_name: string; existing_label_ids: string[] }> {
  return fulfillmentOrders.map((fo) => ({
    id: fo.id,
    status: fo.status,
    assigned_location_name: fo.assignedLocationName,
    existing_label_ids: labels
      .filter((l) => !l.coverageKnown || l.fulfillmentOrderIds.length === 0 || l.fulfillmentOrderIds.includes(fo.id))
      .map((l) => l.id),
  }));
}

/**
 * `nothing_to_ship`. When current labels cover the order's parcel fulfillment orders (the order shipped with them: a
 * label that fulfilled it, or one the admin made), the refusal names them in `existing_label_ids` and says nothing
 * is left to do (`retry: no`, `next_action: none`): no fix to the request makes a label, and the label is already
 * there (decision 0037).
 */
function nothingToShip(
  order: ContextOrder,
  fulfillmentOrders: readonly ContextFulfillmentOrder[],
  labels: readonly ContextLabel[],
): Decided<never> {
  const summaries = fulfillmentOrderSummaries(fulfillmentOrders, labels);
  const parcel = summaries.filter((_, i) => isParcel(fulfillmentOrders[i]!));
  const shippedWith = [...new Set(parcel.flatMap((fo) => fo.existing_label_ids))];
  if (parcel.length === 0 || parcel.some((fo) => fo.existing_label_ids.length === 0)) {
    return notEligible('nothing_to_ship', 'The order has no open parcel fulfillment order.', {
      order_id: order.id,
      fulfillment_orders: summaries,
    });
  }
  const named = shippedWith.map((id) => `${id} (GET /v1/labels/${id})`).join(', ');
  return notEligible(
    'nothing_to_ship',
    `The order has nothing left to ship: none of its parcel fulfillment orders is open, and label${shippedWith.length === 1 ? '' : 's'} ${named} cover${shippedWith.length === 1 ? 's' : ''} them.`,
    {
      order_id: order.id,
      existing_label_ids: shippedWith,
      fulfillment_orders: summaries,
      retry: 'no',
      next_action: 'none',
    },
  );
}

/**
 * Spec `POST /labels` "Target rules": which fulfillment orders the label is for (GIDs, in the platform's order).
 * Shippable = open or in progress with a parcel delivery method; on split and ship-and-pickup orders only the parcel
 * ones are ever a target (docs/decisions/0111-target-rules.md).
 */
export function decideTarget(
  order: ContextOrder,
  fulfillmentOrders: readonly ContextFulfillmentOrder[],
  labels: readonly ContextLabel[],
  request: Pick<CreationRequest, 'fulfillmentOrderIds' | 'allLocations'>,
): Decided<ContextFulfillmentOrder[]> {
  if (order.cancelled) return notEligible('order_cancelled', 'The order is cancelled.', { order_id: order.id });
  if (fulfillmentOrders.length > MAX_ORDER_FULFILLMENT_ORDERS) {
    return notEligible(
      'too_many_fulfillment_orders',
      `The order has ${fulfillmentOrders.length} fulfillment orders; labels are made for orders with at most ${MAX_ORDER_FULFILLMENT_ORDERS}.`,
      { order_id: order.id, fulfillment_orders: fulfillmentOrderSummaries(fulfillmentOrders, labels) },
    );
  }

  const named = request.fulfillmentOrderIds?.[0];
  if (named !== undefined) {
    const fo = fulfillmentOrders.find((f) => f.id === named);
    if (!fo) {
      return notEligible('fulfillment_order_not_in_order', 'The fulfillment order is not part of this order.', {
        order_id: order.id,
        fulfillment_order_id: named,
      });
    }
    if (fo.fulfillmentService !== null) {
      return notEligible(
        'fulfillment_order_not_parcel',
        `The fulfillment order ships from the location of the fulfillment service ${fo.fulfillmentService}, which ships it itself; it never gets a label here.`,
        { order_id: order.id, fulfillment_order_id: fo.id, delivery_method: fo.deliveryMethodType },
      );
    }
    if (!isParcel(fo)) {
      return notEligible(
        'fulfillment_order_not_parcel',
        `The fulfillment order is delivered by ${fo.deliveryMethodType}, not as a parcel; it never gets a carrier label.`,
        { order_id: order.id, fulfillment_order_id: fo.id, delivery_method: fo.deliveryMethodType },
      );
    }
    if (isNotReady(fo)) {
      return notEligible('fulfillment_orders_not_ready', `The fulfillment order is ${fo.status}; it cannot ship yet.`, {
        order_id: order.id,
        fulfillment_order_id: fo.id,
        status: fo.status,
        fulfillment_orders: fulfillmentOrderSummaries([fo], labels),
      });
    }
    if (!isShippable(fo)) {
      return notEligible('fulfillment_order_not_open', `The fulfillment order is ${fo.status}.`, {
        order_id: order.id,
        fulfillment_order_id: fo.id,
        status: fo.status,
      });
    }
    return decided([fo]);
  }

  const shippable = fulfillmentOrders.filter(isShippable);
  if (shippable.length === 0) {
    const waiting = fulfillmentOrders.filter((fo) => isParcel(fo) && isNotReady(fo));
    if (fulfillmentOrders.length === 0 || waiting.length > 0) {
      return notEligible(
        'fulfillment_orders_not_ready',
        fulfillmentOrders.length === 0
          ? 'The store platform has not created fulfillment orders for the order yet.'
          : 'The order’s parcel fulfillment orders are scheduled or on hold; they cannot ship yet.',
        { order_id: order.id, fulfillment_orders: fulfillmentOrderSummaries(waiting, labels) },
      );
    }
    return nothingToShip(order, fulfillmentOrders, labels);
  }
  const locations = new Set(shippable.map((fo) => fo.assignedLocationId));
  if (locations.size > 1 && !request.allLocations) {
    return refused(
      refusal(
        'fulfillment_order_required',
        `The order ships from ${locations.size} locations; name one fulfillment order in fulfillment_order_ids, or send all_locations: true.`,
        { fulfillment_orders: fulfillmentOrderSummaries(shippable, labels) },
      ),
    );
  }
  return decided(shippable);
}
