import type { Money } from '../../domain/money';
import type { DeliveryMethodType, FulfillmentOrderStatus } from '../../domain/platform-order';
import type {
  FulfillmentOrderHold,
  PlatformFulfillmentOrder,
  PlatformFulfillmentOrderLineItem,
  PlatformOrder,
  PlatformPickupPoint,
} from '../port';
import type {
  DeliveryMethodType as ShopifyDeliveryMethodType,
  FulfillmentOrderFieldsFragment,
  LineFieldsFragment,
  OrderFieldsFragment,
} from './admin.generated';
import { ORDER_METAFIELDS } from './queries';

/** The Admin API's answers to the documents in queries.ts, as generated from Shopify's schema (admin.generated.ts). */
export type WireOrder = OrderFieldsFragment;
export type WireLine = LineFieldsFragment;
export type WireFulfillmentOrder = FulfillmentOrderFieldsFragment;
export type WirePageInfo = WireFulfillmentOrder['lineItems']['pageInfo'];
type WireMoneyBag = WireOrder['totalPriceSet'];
type WireMethodType = ShopifyDeliveryMethodType;

/** The numeric part of a GID (`gid://shopify/Order/1001` -> `1001`); a numeric ID as it is. */
export function legacyIdOf(id: string): string {
  const match = /^(?:gid:\/\/shopify\/\w+\/)?(\d+)$/.exec(id.trim());
  return match ? match[1]! : id;
}

/** A numeric ID or a GID as the GID of `type`. */
export function gidOf(type: 'Order' | 'FulfillmentOrder', id: string): string {
  return id.startsWith('gid://') ? id : `gid://shopify/${type}/${id}`;
}

/** Order names compare without `#` and case (spec: `order_name` exact, `#` optional, case-insensitive). */
export function normalizeOrderName(name: string): string {
  return name.trim().replace(/^#/, '').toLowerCase();
}

/** The search query for a name; quoted so spaces and colons stay part of it. */
export function orderNameQuery(name: string): string {
  return `name:"${normalizeOrderName(name).replace(/["\\]/g, '\\$&')}"`;
}

const moneyOf = (bag: WireMoneyBag): Money => ({
  amount: bag.presentmentMoney.amount,
  currency: bag.presentmentMoney.currencyCode,
});

/**
 * A fulfillment order's method as the port's: a parcel (shipping or to a pickup point) is `shipping`; in-store pickup
 * `pickup`; nothing to deliver (`NONE`) is retail-like, never a parcel.
 */
export function fulfillmentOrderMethod(type: WireMethodType | undefined): DeliveryMethodType {
  switch (type) {
    case 'PICK_UP':
      return 'pickup';
    case 'LOCAL':
      return 'local';
    case 'RETAIL':
    case 'NONE':
      return 'retail';
    default:
      return 'shipping';
  }
}

/**
 * The order's method: Shopify keeps it per fulfillment order, so an order with a pickup-point fulfillment order is a
 * pickup-point order (`pickup` in the port's words); otherwise the first fulfillment order's kind, in-store pickup
 * counting as `retail` (no carrier, and never a pickup-point method). Decision 0701.
 */
export function orderMethod(types: ReadonlyArray<WireMethodType | undefined>): DeliveryMethodType {
  if (types.includes('PICKUP_POINT')) return 'pickup';
  const first = fulfillmentOrderMethod(types[0]);
  return first === 'pickup' ? 'retail' : first;
}

/** The app metafield's JSON; a value that is not a usable point reads as none. */
export function pickupPointOf(value: string | null | undefined): PlatformPickupPoint | null {
  if (!value) return null;
  try {
    const p = JSON.parse(value) as Record<string, unknown>;
    if (typeof p.id !== 'string' || typeof p.country !== 'string') return null;
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    return {
      id: p.id,
      carrierCode: text(p.carrier_code),
      name: text(p.name),
      country: p.country,
      customerId: text(p.customer_id),
    };
  } catch {
    return null;
  }
}

/**
 * The order's pickup point (decision 0719): the shared metafield first; the app-reserved one where it was written
 * before, while the shared one holds none.
 */
export const orderPickupPoint = (o: WireOrder): PlatformPickupPoint | null =>
  pickupPointOf(o.sharedPickupPoint?.value) ?? pickupPointOf(o.pickupPoint?.value);

/** A point found only where it was written before: what the adapter copies to the shared place on reading it. */
export const pickupPointToMove = (o: WireOrder): PlatformPickupPoint | null =>
  pickupPointOf(o.sharedPickupPoint?.value) ? null : pickupPointOf(o.pickupPoint?.value);

export function pickupPointValue(point: PlatformPickupPoint): string {
  return JSON.stringify({
    id: point.id,
    carrier_code: point.carrierCode,
    name: point.name,
    country: point.country,
    customer_id: point.customerId ?? null,
  });
}

/**
 * The recipient's phone: the shipping address's (given at checkout with the address, where `Order.phone` is often
 * null), else the order's, else the customer's default (decision 0716). Blank counts as none.
 */
export function recipientPhone(...candidates: ReadonlyArray<string | null | undefined>): string | null {
  return candidates.map((p) => p?.trim()).find((p): p is string => !!p) ?? null;
}

export function toOrder(o: WireOrder): PlatformOrder {
  const metafields: Record<string, string> = {};
  for (const [alias, name] of Object.entries(ORDER_METAFIELDS)) {
    const field = o[alias as keyof typeof ORDER_METAFIELDS];
    if (field) metafields[name] = field.value;
  }
  const a = o.shippingAddress;
  const total = moneyOf(o.totalPriceSet);
  return {
    id: o.id,
    legacyId: o.legacyResourceId,
    name: o.name,
    currency: o.presentmentCurrencyCode,
    totalPrice: total,
    subtotalPrice: o.subtotalPriceSet ? moneyOf(o.subtotalPriceSet) : total,
    totalOutstanding: moneyOf(o.totalOutstandingSet),
    paymentGateways: o.paymentGatewayNames,
    metafields,
    shippingAddress: a
      ? {
          name: a.name ?? '',
          company: a.company,
          street: [a.address1, a.address2].filter(Boolean).join(', '),
          city: a.city ?? '',
          postcode: a.zip ?? '',
          country: a.countryCodeV2 ?? '',
          latitude: a.latitude,
          longitude: a.longitude,
        }
      : null,
    phone: recipientPhone(a?.phone, o.phone, o.customerPhone?.defaultPhoneNumber?.phoneNumber),
    email: o.email,
    deliveryMethod: {
      type: orderMethod(o.fulfillmentOrders.nodes.map((f) => f.deliveryMethod?.methodType)),
      title: o.shippingLine?.title ?? null,
      pickupPoint: orderPickupPoint(o),
    },
    tags: o.tags,
    cancelledAt: o.cancelledAt,
  };
}

const GRAMS_PER_UNIT = { GRAMS: 1, KILOGRAMS: 1000, OUNCES: 28.349523125, POUNDS: 453.59237 } as const;

/** A non-negative amount times a quantity in cents, so `33.33 x 3` is `99.99` exactly. */
export function times(amount: string, quantity: number): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  const total = (BigInt(whole) * 100n + BigInt(`${fraction}00`.slice(0, 2))) * BigInt(quantity);
  return `${total / 100n}.${String(total % 100n).padStart(2, '0')}`;
}

/**
 * A line as what still ships: `remainingQuantity` units (Shopify's `totalQuantity` counts those already fulfilled
 * too), valued at the unit price after discounts.
 */
export function toLine(l: WireLine): PlatformFulfillmentOrderLineItem {
  const unit = moneyOf(l.lineItem.discountedUnitPriceAfterAllDiscountsSet);
  return {
    id: l.id,
    sku: l.sku,
    quantity: l.remainingQuantity,
    totalAfterDiscounts: { amount: times(unit.amount, l.remainingQuantity), currency: unit.currency },
    weightGrams: l.weight ? Math.round(l.weight.value * GRAMS_PER_UNIT[l.weight.unit]) : null,
  };
}

/**
 * Our own holds carry their handle; any other (the merchant's, another app's: Shopify tells only that it is not ours)
 * is `other`, and blocks a fulfilment the same way (decision 0705).
 */
export function toHold(h: WireFulfillmentOrder['fulfillmentHolds'][number]): FulfillmentOrderHold {
  return h.heldByRequestingApp && h.handle
    ? { heldBy: 'app', reason: h.reasonNotes ?? h.reason, handle: h.handle }
    : { heldBy: 'other', reason: h.reasonNotes };
}

export function toFulfillmentOrder(
  orderId: string,
  f: WireFulfillmentOrder,
  lines: readonly WireLine[],
): PlatformFulfillmentOrder {
  const location = f.assignedLocation.location;
  return {
    id: f.id,
    legacyId: legacyIdOf(f.id),
    orderId,
    status: f.status.toLowerCase() as FulfillmentOrderStatus,
    assignedLocation: {
      id: location?.id ?? '',
      name: f.assignedLocation.name,
      fulfillmentService: location?.isFulfillmentService
        ? (location.fulfillmentService?.serviceName ?? f.assignedLocation.name)
        : null,
    },
    deliveryMethodType: fulfillmentOrderMethod(f.deliveryMethod?.methodType),
    // A line fully fulfilled already ships nothing more.
    lineItems: lines.filter((l) => l.remainingQuantity > 0).map(toLine),
    holds: f.fulfillmentHolds.map(toHold),
    // Shopify names no replacement of an edited fulfillment order; the service does not read it (decision 0701).
    replacedBy: [],
  };
}
