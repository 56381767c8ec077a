/**
 * The store-platform port: what the service reads from and writes to the store platform, in plain objects. IDs are
 * returned as GIDs with their numeric `legacyId` beside them; lookups accept either.
 */
import type { Money } from '../domain/money';
import type { DeliveryMethodType, FulfillmentOrderStatus } from '../domain/platform-order';

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
  /**
   * Where it ships from. `fulfillmentService`: the fulfillment service (a third-party warehouse app) that fulfils from
   * that location, which ships the order itself; null for the merchant's own location.
   */
  assignedLocation: { id: string; name: string; fulfillmentService: string | null };
  deliveryMethodType: DeliveryMethodType;
  /** What still ships: each line's quantity is the units not yet fulfilled. */
  lineItems: PlatformFulfillmentOrderLineItem[];
  /** Every hold on it, empty when none; the platform refuses to fulfil it while any is on it. */
  holds: FulfillmentOrderHold[];
  /** Fulfillment orders that replaced this one after an order edit. */
  replacedBy: string[];
}

/**
 * A hold on a fulfillment order: an admin or automation export running (`export`), this app's own hold (`app`, with
 * its `handle`; this service holds with the label creation's ID while the creation is unresolved), or a hold by the
 * merchant or another app (`other`). Several holds may be on one fulfillment order; the platform fulfils none while any
 * is on it, and an export cannot start while an app hold is on it.
 */
export type FulfillmentOrderHold =
  | { heldBy: 'export'; reason: string | null }
  | { heldBy: 'app'; reason: string; handle: string }
  | { heldBy: 'other'; reason: string | null };

/**
 * What placing or releasing a hold did to one fulfillment order: `done` (held, or no hold of that handle left on it),
 * `not_found` (the store has no such fulfillment order), `closed` (closed or cancelled: the platform holds only
 * fulfillment orders that can still be fulfilled; never for a release).
 */
export interface FulfillmentOrderHoldResult {
  fulfillmentOrderId: string;
  outcome: 'done' | 'not_found' | 'closed';
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

/** An order and its fulfillment orders, read together. */
export interface PlatformOrderWithFulfillment {
  order: PlatformOrder;
  fulfillmentOrders: PlatformFulfillmentOrder[];
}

export interface StorePlatformPort {
  /** By numeric ID or GID; `null` when the store has no such order. */
  getOrder(storeDomain: string, orderId: string): Promise<PlatformOrder | null>;
  /** Exact name, `#` optional, case-insensitive; several results mean the name is ambiguous. */
  findOrdersByName(storeDomain: string, name: string): Promise<PlatformOrder[]>;
  listFulfillmentOrders(storeDomain: string, orderId: string): Promise<PlatformFulfillmentOrder[]>;
  /**
   * The order with its fulfillment orders in one read (what `getOrder` and `listFulfillmentOrders` answer, one platform
   * round trip where the platform allows it); `null` when the store has no such order.
   */
  getOrderWithFulfillmentOrders(storeDomain: string, orderId: string): Promise<PlatformOrderWithFulfillment | null>;
  fulfill(storeDomain: string, request: FulfillRequest): Promise<Fulfillment>;
  /** Adds tags; tags already on the order stay once. Returns the order's tags. */
  addOrderTags(storeDomain: string, orderId: string, tags: string[]): Promise<string[]>;
  /** Sets the pickup point of the order's delivery method; the next label creation reads it from the order. */
  setOrderPickupPoint(storeDomain: string, orderId: string, point: PlatformPickupPoint): Promise<PlatformOrder>;
  /**
   * Places the app's hold `handle` on each fulfillment order (one platform call each, in the given order). Idempotent:
   * a fulfillment order that already has the handle keeps one hold with the new reason. One result per ID, as given.
   */
  holdFulfillmentOrders(
    storeDomain: string,
    fulfillmentOrderIds: readonly string[],
    hold: { reason: string; handle: string },
  ): Promise<FulfillmentOrderHoldResult[]>;
  /** Removes the app's hold `handle` from each fulfillment order, leaving other holds; a hold already gone is `done`. */
  releaseFulfillmentOrderHolds(
    storeDomain: string,
    fulfillmentOrderIds: readonly string[],
    handle: string,
  ): Promise<FulfillmentOrderHoldResult[]>;
}

/** The platform throttled or refused the call, or did not answer in time (spec `shopify_unavailable`). */
export class PlatformUnavailableError extends Error {
  override readonly name: string = 'PlatformUnavailableError';
  constructor(
    readonly what: string,
    readonly throttled: boolean,
    readonly retryAfterSeconds: number | null,
  ) {
    super(`store platform unavailable for ${what}${throttled ? ' (throttled)' : ''}`);
  }
}

/**
 * The platform refused the app access to what it asked for: a scope the installation lacks, or protected customer data
 * the app is not approved for (`access`: what it needs, in the platform's words). Still `shopify_unavailable` to
 * whoever asked, but no outage: reading again does not help until the merchant grants it (decision 0706).
 */
export class PlatformAccessError extends PlatformUnavailableError {
  override readonly name = 'PlatformAccessError';
  constructor(
    what: string,
    readonly access: string,
  ) {
    super(what, false, null);
    this.message = `store platform refused access for ${what}: needs ${access}`;
  }
}

/**
 * The platform answered 401 to the token (Shopify: `Invalid API key or access token`). Still unavailable to a caller
 * that does not handle it (a custom app's token, as it always was); the Shopify adapter refreshes an expiring token
 * once on it (decision 0710).
 */
export class PlatformUnauthorizedError extends PlatformUnavailableError {
  override readonly name = 'PlatformUnauthorizedError';
  constructor(what: string) {
    super(what, false, null);
    this.message = `store platform refused the access token for ${what}`;
  }
}

/**
 * The platform no longer accepts the app's tokens for this store (a refresh token refused, the public app's
 * non-expiring token invalidated): spec `access_required`, never an outage; the store's `app_installed` gate is closed
 * and the merchant installs the app again (decision 0710). `reason` says why, for the merchant and operators.
 */
export class PlatformAccessLostError extends Error {
  override readonly name = 'PlatformAccessLostError';
  constructor(
    readonly what: string,
    readonly reason: string,
  ) {
    super(`store platform access lost for ${what}: ${reason}`);
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
