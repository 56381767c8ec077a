/**
 * The store-platform port: what the service reads from and writes to the store platform, in plain objects. IDs are
 * returned as GIDs with their numeric `legacyId` beside them; lookups accept either.
 */
import type { Money } from '../carriers/port';

export interface PlatformAddress {
  name: string;
  company: string | null;
  street: string;
  city: string;
  postcode: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** Where the platform geocoded the address; absent or null when it did not. */
  latitude?: number | null;
  longitude?: number | null;
}

export interface PlatformPickupPoint {
  id: string;
  carrierCode: string | null;
  name: string | null;
  country: string;
  /** The recipient's registration at the network, for points that hand out only to registered recipients. */
  customerId?: string | null;
}

export type DeliveryMethodType = 'shipping' | 'pickup' | 'local' | 'retail';

export interface PlatformOrder {
  id: string;
  legacyId: string;
  name: string;
  currency: string;
  totalPrice: Money;
  subtotalPrice: Money;
  totalOutstanding: Money;
  /** Gateway names as the platform reports them; COD gateways among them. */
  paymentGateways: string[];
  /** `namespace.key` -> value, e.g. `service.cod_value`, `custom.converted_value`. */
  metafields: Record<string, string>;
  shippingAddress: PlatformAddress | null;
  phone: string | null;
  email: string | null;
  deliveryMethod: { type: DeliveryMethodType; title: string | null; pickupPoint: PlatformPickupPoint | null };
  tags: string[];
  cancelledAt: string | null;
}

export type FulfillmentOrderStatus =
  'open' | 'in_progress' | 'scheduled' | 'on_hold' | 'incomplete' | 'closed' | 'cancelled';

export interface PlatformFulfillmentOrderLineItem {
  id: string;
  sku: string | null;
  quantity: number;
  /** Goods value of the line after discounts. */
  totalAfterDiscounts: Money;
  /** Weight of one unit in grams; null when the product has none (the parcel weight is then not derivable). */
  weightGrams: number | null;
}

export interface PlatformFulfillmentOrder {
  id: string;
  legacyId: string;
  orderId: string;
  status: FulfillmentOrderStatus;
  assignedLocation: { id: string; name: string };
  deliveryMethodType: DeliveryMethodType;
  lineItems: PlatformFulfillmentOrderLineItem[];
  /** Set while the admin or the automation export holds it. */
  hold: { heldBy: 'export'; reason: string | null } | null;
  /** Fulfillment orders that replaced this one after an order edit. */
  replacedBy: string[];
}

export interface Fulfillment {
  id: string;
  fulfillmentOrderIds: string[];
  trackingNumber: string | null;
  trackingUrl: string | null;
  notifyCustomer: boolean;
}

export interface FulfillRequest {
  fulfillmentOrderIds: string[];
  trackingNumber: string | null;
  trackingUrl: string | null;
  carrierName: string | null;
  notifyCustomer: boolean;
}

export interface StorePlatformPort {
  /** By numeric ID or GID; `null` when the store has no such order. */
  getOrder(storeDomain: string, orderId: string): Promise<PlatformOrder | null>;
  /** Exact name, `#` optional, case-insensitive; several results mean the name is ambiguous. */
  findOrdersByName(storeDomain: string, name: string): Promise<PlatformOrder[]>;
  listFulfillmentOrders(storeDomain: string, orderId: string): Promise<PlatformFulfillmentOrder[]>;
  fulfill(storeDomain: string, request: FulfillRequest): Promise<Fulfillment>;
  /** Adds tags; tags already on the order stay once. Returns the order's tags. */
  addOrderTags(storeDomain: string, orderId: string, tags: string[]): Promise<string[]>;
  /** Sets the pickup point of the order's delivery method; the next label creation reads it from the order. */
  setOrderPickupPoint(storeDomain: string, orderId: string, point: PlatformPickupPoint): Promise<PlatformOrder>;
}

/** The platform throttled or refused the call, or did not answer in time (spec `shopify_unavailable`). */
export class PlatformUnavailableError extends Error {
  override readonly name = 'PlatformUnavailableError';
  constructor(
    readonly what: string,
    readonly throttled: boolean,
    readonly retryAfterSeconds: number | null,
  ) {
    super(`store platform unavailable for ${what}${throttled ? ' (throttled)' : ''}`);
  }
}

/** The platform refused a write for a business reason (e.g. fulfilling a closed fulfillment order). */
export class PlatformRequestError extends Error {
  override readonly name = 'PlatformRequestError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
