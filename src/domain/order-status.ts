import type { CurrentSet, LabelDirection, LabelKind, LabelStatus } from './labels';
import { isPickupPointMethod, type DeliveryMethodFacts } from './pickup-points';

/**
 * What `GET /orders/{order_id}` derives from the order, its fulfillment orders and its labels (decision 0203), and
 * whether a pickup point may be changed (spec `PUT /orders/{order_id}/pickup-point`). Pure.
 */
export const DELIVERY_STATUSES = [
  'awaiting_label',
  'label_created',
  'partially_fulfilled',
  'fulfilled',
  'cancelled',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const ORDER_REMINDER_CODES = [
  'pickup_point_missing',
  'label_missing',
  'label_pending',
  'ambiguous_current_set',
] as const;
export type OrderReminderCode = (typeof ORDER_REMINDER_CODES)[number];

export interface OrderReminder {
  code: OrderReminderCode;
  labelIds: string[];
}

export interface OrderFacts {
  cancelled: boolean;
  deliveryMethod: DeliveryMethodFacts;
  hasPickupPoint: boolean;
  /** `held`: a hold is on it (then `on_hold` is the hold); `byService`: a fulfillment service ships it, not a label. */
  fulfillmentOrders: ReadonlyArray<{ status: string; deliveryMethodType: string; held: boolean; byService: boolean }>;
}

export interface OrderLabelFacts {
  id: string;
  direction: LabelDirection;
  kind: LabelKind;
  status: LabelStatus;
  current: boolean;
  currentSet: CurrentSet;
}

/** Fulfillment order statuses that still wait for a shipment. */
const OPEN_STATUSES = new Set(['open', 'in_progress', 'scheduled', 'on_hold', 'incomplete']);

function fulfillmentProgress(order: OrderFacts): { closed: number; open: number } {
  let closed = 0;
  let open = 0;
  for (const fo of order.fulfillmentOrders) {
    if (fo.status === 'closed') closed += 1;
    else if (OPEN_STATUSES.has(fo.status)) open += 1;
  }
  return { closed, open };
}

/** Every fulfillment order that was not cancelled is closed, and there is at least one. */
export function isFulfilled(order: OrderFacts): boolean {
  const { closed, open } = fulfillmentProgress(order);
  return closed > 0 && open === 0;
}

const currentOutbound = (labels: readonly OrderLabelFacts[]) =>
  labels.filter((l) => l.direction === 'outbound' && l.kind === 'shipment' && l.current && l.status !== 'failed');

export function deliveryStatus(order: OrderFacts, labels: readonly OrderLabelFacts[]): DeliveryStatus {
  if (order.cancelled) return 'cancelled';
  const { closed, open } = fulfillmentProgress(order);
  if (closed > 0) return open === 0 ? 'fulfilled' : 'partially_fulfilled';
  return currentOutbound(labels).length > 0 ? 'label_created' : 'awaiting_label';
}

/** What the merchant should still do about the order, most pressing first. */
export function orderReminders(order: OrderFacts, labels: readonly OrderLabelFacts[]): OrderReminder[] {
  const status = deliveryStatus(order, labels);
  if (status === 'cancelled' || status === 'fulfilled') return [];
  const reminders: OrderReminder[] = [];
  const current = currentOutbound(labels);
  const ambiguous = current.filter((l) => l.currentSet === 'ambiguous');
  if (ambiguous.length > 0) reminders.push({ code: 'ambiguous_current_set', labelIds: ambiguous.map((l) => l.id) });
  if (isPickupPointMethod(order.deliveryMethod) && !order.hasPickupPoint)
    reminders.push({ code: 'pickup_point_missing', labelIds: [] });
  const waitingParcels = order.fulfillmentOrders.some(
    (fo) =>
      fo.deliveryMethodType === 'shipping' &&
      !fo.byService &&
      (fo.status === 'open' || fo.status === 'in_progress' || (fo.status === 'on_hold' && fo.held)),
  );
  if (status === 'awaiting_label' && waitingParcels) reminders.push({ code: 'label_missing', labelIds: [] });
  const pending = current.filter((l) => l.status === 'pending');
  if (pending.length > 0) reminders.push({ code: 'label_pending', labelIds: pending.map((l) => l.id) });
  return reminders;
}

export type PickupPointChangeRefusal =
  | { code: 'order_not_eligible'; reason: 'order_cancelled' | 'no_pickup_point_method' | 'order_fulfilled' }
  | { code: 'label_exists'; reason: 'order_has_label'; labelIds: string[] };

/**
 * Spec: the pickup point changes only on an order without labels, not fulfilled, with a pickup-point delivery
 * method. Any label that is not failed blocks (it is a shipment addressed to the old point); a failed one never
 * reached the carrier. Checked before who holds the fulfillment orders: those refusals do not go away by waiting.
 */
export function pickupPointChangeRefusal(
  order: OrderFacts,
  labels: readonly OrderLabelFacts[],
): PickupPointChangeRefusal | null {
  if (order.cancelled) return { code: 'order_not_eligible', reason: 'order_cancelled' };
  if (!isPickupPointMethod(order.deliveryMethod))
    return { code: 'order_not_eligible', reason: 'no_pickup_point_method' };
  if (isFulfilled(order)) return { code: 'order_not_eligible', reason: 'order_fulfilled' };
  const blocking = labels.filter((l) => l.status !== 'failed');
  if (blocking.length > 0)
    return { code: 'label_exists', reason: 'order_has_label', labelIds: blocking.map((l) => l.id) };
  return null;
}
